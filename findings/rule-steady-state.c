/* rule-steady-state.c: runs whose measure window was not all steady (metrics.steady_state,
 * basic/steady-state.h's classes of Barrett et al.): in a cell, how many runs never settled
 * ("no steady state": the whole window outside one), got slower ("slowdown"), or warmed up
 * after the measure window began (its share before the steady state's start); the finding says
 * each with its runs and figures. Severity from the largest share of a measure window outside
 * the steady state: high from 20%, medium from 5%, else info. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MEDIUM_SHARE 0.05
#define HIGH_SHARE 0.20

struct cell_steadiness {
        size_t with, none, slowdown, warmup, late;      /* runs: classified, of each class, warmed up in the window */
        double warm_min_s, warm_max_s, late_max_s, worst_share, none_after_s;
        const char *ids[FINDINGS_RUNS_MAX];
        size_t n_ids;
};

/* The measure window in seconds: the definition's load.measure_s. */
static double measure_s(const struct findings_input *in) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->definition, "load"), "measure_s");
        return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN;
}

static void count_run(struct cell_steadiness *c, const struct findings_run *run, double window) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(run->metrics, "steady_state");
        const char *class = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "class"));
        double start, measure, end;
        if (!class)
                return;
        c->with++;
        bool have_start = findings_metric(run, "steady_state.start_s", &start);
        bool have_measure = findings_metric(run, "steady_state.measure_start_s", &measure);
        double share = 0;
        if (strcmp(class, "no steady state") == 0) {
                c->none++;
                share = 1;
                const cJSON *segs = cJSON_GetObjectItemCaseSensitive(s, "segments");
                end = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(segs, cJSON_GetArraySize(segs) - 1), "end_s"));
                if (isfinite(end))
                        c->none_after_s = fmax(c->none_after_s, end);
        } else if (strcmp(class, "slowdown") == 0) {
                c->slowdown++;
        } else if (strcmp(class, "warmup") == 0 && have_start) {
                c->warmup++;
                c->warm_min_s = c->warmup == 1 ? start : fmin(c->warm_min_s, start);
                c->warm_max_s = c->warmup == 1 ? start : fmax(c->warm_max_s, start);
        }
        if (have_start && have_measure && start > measure && strcmp(class, "no steady state") != 0) {
                c->late++;
                c->late_max_s = fmax(c->late_max_s, start - measure);
                share = isfinite(window) ? fmin(1, (start - measure) / window) : 0;
        }
        if (share > 0 && c->n_ids < FINDINGS_RUNS_MAX)
                c->ids[c->n_ids++] = run->id;
        c->worst_share = fmax(c->worst_share, share);
}

/* "in cell B 3 of 10 runs never reached a steady state (...); 7 of 10 warmed up, ..." */
static void describe(char *buf, size_t size, const char *cell, const struct cell_steadiness *c) {
        size_t n = (size_t) snprintf(buf, size, "in cell %s", cell);
        const char *sep = "";
        if (c->none && n < size) {
                n += (size_t) snprintf(buf + n, size - n, " %zu of %zu runs never reached a steady state (segments still changing in the series' last quarter, up to %.0f s)",
                                       c->none, c->with, c->none_after_s);
                sep = ";";
        }
        if (c->slowdown && n < size) {
                n += (size_t) snprintf(buf + n, size - n, "%s %zu of %zu runs slowed down (their last segment slower than an earlier one)", sep,
                                       c->slowdown, c->with);
                sep = ";";
        }
        if (c->warmup && n < size) {
                n += (size_t) snprintf(buf + n, size - n, "%s %zu of %zu warmed up, reaching a steady state %.0f-%.0f s after the start", sep,
                                       c->warmup, c->with, c->warm_min_s, c->warm_max_s);
                sep = ";";
        }
        if (c->late && n < size)
                snprintf(buf + n, size - n, "%s the measure window began before the steady state in %zu run%s (by up to %.0f s)", sep, c->late,
                         c->late == 1 ? "" : "s", c->late_max_s);
}

void findings_rule_steady_state(const struct findings_input *in, cJSON *out) {
        double window = measure_s(in);
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                struct cell_steadiness c = { 0 };
                for (size_t i = 0; i < cell->n_runs; i++)
                        count_run(&c, &cell->runs[i], window);
                if (c.none == 0 && c.slowdown == 0 && c.late == 0)
                        continue;
                char claim[900];
                describe(claim, sizeof claim, cell->name, &c);
                enum findings_severity sev = c.worst_share >= HIGH_SHARE ? FINDING_HIGH
                                           : c.worst_share >= MEDIUM_SHARE || c.slowdown ? FINDING_MEDIUM : FINDING_INFO;
                cJSON *f = findings_append(out, "steady_state", sev, c.worst_share, claim,
                                           c.none || c.slowdown ? "measure longer, and look for what changes during the run (GC growth, caches, other work)"
                                                                : "lengthen load.warmup_s past the steady state's start");
                findings_add_cell(f, cell->name);
                findings_add_evidence_runs(f, "steady_state.window_outside_share", cell->name, c.worst_share, NAN, c.ids, c.n_ids);
        }
}
