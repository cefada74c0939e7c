/* rule-governor.c: the cpufreq governor of a cell's CPUs (as each run recorded them) not the one
 * the definition's host.governor asked for, or different from the baseline's. Medium: the
 * governor decides how fast an idle-then-busy CPU runs, the seed's powersave case. */
#include "findings/rules.h"

#include <stdio.h>
#include <string.h>

#define GOVERNORS_TEXT 256

/* The distinct governors of the cell's runs' CPUs, space-separated in first-seen order. */
static bool governors_of(const struct findings_cell *c, char *buf, size_t size) {
        buf[0] = 0;
        for (size_t i = 0; i < c->n_runs; i++) {
                const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->runs[i].metrics, "cpu"), "governor"), *v;
                cJSON_ArrayForEach(v, g) {
                        const char *name = cJSON_GetStringValue(v);
                        if (!name)
                                continue;
                        char word[64];
                        snprintf(word, sizeof word, " %s ", name);
                        char padded[GOVERNORS_TEXT + 2];
                        snprintf(padded, sizeof padded, " %s ", buf);
                        if (strstr(padded, word))
                                continue;
                        size_t len = strlen(buf);
                        snprintf(buf + len, size - len, "%s%s", len ? " " : "", name);
                }
        }
        return buf[0] != 0;
}

static void governor_finding(cJSON *out, const struct findings_cell *cell, const char *claim, const char *have,
                             const char *want) {
        cJSON *f = findings_append(out, "governor", FINDING_MEDIUM, 1, claim,
                                   "set the governor of the run's CPUs (cpupower frequency-set -g performance) and ask for it "
                                   "with host.governor and on_mismatch fail");
        findings_add_cell(f, cell->name);
        findings_add_evidence_text(f, "cpu.governor", cell, have, want);
}

void findings_rule_governor(const struct findings_input *in, cJSON *out) {
        const char *asked = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->definition, "host"), "governor"));
        char base[GOVERNORS_TEXT];
        bool have_base = governors_of(&in->cells[in->baseline], base, sizeof base);
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                char have[GOVERNORS_TEXT], claim[600];
                if (!governors_of(cell, have, sizeof have))
                        continue;
                if (asked && strcmp(have, asked) != 0) {
                        snprintf(claim, sizeof claim, "cell %s's CPUs ran the %s governor, not %s as the definition asked",
                                 cell->name, have, asked);
                        governor_finding(out, cell, claim, have, asked);
                } else if (ci != in->baseline && have_base && strcmp(have, base) != 0) {
                        snprintf(claim, sizeof claim, "cell %s's CPUs ran the %s governor, %s's the %s governor",
                                 cell->name, have, in->cells[in->baseline].name, base);
                        governor_finding(out, cell, claim, have, base);
                }
        }
}
