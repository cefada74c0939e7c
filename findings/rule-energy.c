/* rule-energy.c: joules per request (from RAPL, where the host exposes it: run metrics
 * energy.joules_per_request) that differ from the baseline's with a 95% interval on the log
 * scale excluding 1 and by at least 5%. Medium. Silent where energy is null. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#include "basic/stats.h"

#define PATH "energy.joules_per_request"

void findings_rule_energy(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        double b[FINDINGS_RUNS_MAX], x[FINDINGS_RUNS_MAX];
        size_t nb = findings_values(base, PATH, b, FINDINGS_RUNS_MAX);
        for (size_t ci = 0; ci < in->n_cells && nb > 0; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                size_t nx = findings_values(cell, PATH, x, FINDINGS_RUNS_MAX);
                struct stats_ratio r;
                struct stats_summary sx, sb;
                if (ci == in->baseline || nx == 0 || stats_ratio_log(x, nx, b, nb, 0.95, &r) < 0 || !r.have_ci ||
                    !r.excludes_one || fabs(r.ratio - 1) < 0.05 || stats_describe(x, nx, &sx) < 0 ||
                    stats_describe(b, nb, &sb) < 0)
                        continue;
                char claim[400];
                snprintf(claim, sizeof claim, "cell %s uses %.0f%% %s energy per request than %s (%.3g vs %.3g J, 95%% CI of the ratio %.2f-%.2f)",
                         cell->name, fabs(r.ratio - 1) * 100, r.ratio > 1 ? "more" : "less", base->name, sx.mean, sb.mean,
                         r.ci_low, r.ci_high);
                cJSON *f = findings_append(out, "energy", FINDING_MEDIUM, log(r.ratio), claim, NULL);
                findings_add_cell(f, cell->name);
                findings_add_cell(f, base->name);
                findings_add_evidence(f, PATH, cell, sx.mean, sb.mean);
        }
}
