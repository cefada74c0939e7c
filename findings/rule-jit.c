/* rule-jit.c: JIT compilation still going on in the measure window (compile time in it above 2%
 * of the window, from the JVM's counters): the warmup was too short and the cell measured the
 * JIT as well as the service. Medium when the cell compiled more than twice the baseline's
 * share (the JIT then is part of why they differ); info when every cell compiled alike (their
 * comparison holds, their absolute figures include warmup). Where the same runs' steady-state
 * series say the measure window began before the run was steady (or it never was), the claim
 * names that finding too: the two are one cause seen twice, the JIT's work and the slower
 * figures it left in the window. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SHARE_MAX 0.02

/* The measure window in seconds: the definition's, or as many 1 s samples as the run has. */
static double window_s(const struct findings_input *in, const struct findings_run *run) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->definition, "load"), "measure_s");
        if (cJSON_IsNumber(v) && v->valuedouble > 0)
                return v->valuedouble;
        return (double) cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run->samples, "t_ms"));
}

/* The runs compiling above the threshold into ids, and the largest share and its seconds. */
static size_t compiling(const struct findings_input *in, const struct findings_cell *cell, const char **ids,
                        double *ret_worst, double *ret_worst_s) {
        size_t n = 0;
        *ret_worst = *ret_worst_s = 0;
        for (size_t i = 0; i < cell->n_runs; i++) {
                double s, w = window_s(in, &cell->runs[i]);
                if (w <= 0 || !findings_metric(&cell->runs[i], "jit.compile_time_measure_s", &s) || s / w <= SHARE_MAX)
                        continue;
                ids[n++] = cell->runs[i].id;
                if (s / w > *ret_worst) {
                        *ret_worst = s / w;
                        *ret_worst_s = s;
                }
        }
        return n;
}

/* Of the runs ids[0..n), those whose measure window began before their steady state (or that
 * had none), as the steady_state rule reads them; *ret_late_s the most it began early. */
static size_t not_yet_steady(const struct findings_cell *cell, const char *const *ids, size_t n, double *ret_late_s) {
        size_t k = 0;
        *ret_late_s = 0;
        for (size_t i = 0; i < cell->n_runs; i++) {
                const struct findings_run *run = &cell->runs[i];
                bool listed = false;
                for (size_t j = 0; j < n && !listed; j++)
                        listed = ids[j] == run->id;
                const char *class = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(run->metrics, "steady_state"), "class"));
                double start, measure;
                if (!listed || !class)
                        continue;
                if (strcmp(class, "no steady state") == 0)
                        k++;
                else if (findings_metric(run, "steady_state.start_s", &start) &&
                         findings_metric(run, "steady_state.measure_start_s", &measure) && start > measure) {
                        k++;
                        *ret_late_s = fmax(*ret_late_s, start - measure);
                }
        }
        return k;
}

void findings_rule_jit(const struct findings_input *in, cJSON *out) {
        const char *ids[FINDINGS_RUNS_MAX];
        double base_worst, unused;
        compiling(in, &in->cells[in->baseline], ids, &base_worst, &unused);
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                double worst, worst_s;
                size_t n = compiling(in, cell, ids, &worst, &worst_s);
                if (n == 0)
                        continue;
                bool more = ci != in->baseline && worst > 2 * base_worst;
                char claim[640];
                int len = snprintf(claim, sizeof claim,
                                   "the JIT was still compiling in cell %s's measure window in %zu of %zu runs (up to %.2f s, %.1f%% of the window): the warmup was too short",
                                   cell->name, n, cell->n_runs, worst_s, worst * 100);
                double late_s;
                size_t late = not_yet_steady(cell, ids, n, &late_s);
                if (late > 0 && len > 0 && (size_t) len < sizeof claim)
                        snprintf(claim + len, sizeof claim - (size_t) len,
                                 "; in %zu of those runs the measure window also began before the run was steady (by up to %.1f s, "
                                 "or it never was: the steady_state finding), which the JIT's work can explain",
                                 late, late_s);
                cJSON *f = findings_append(out, "jit", more ? FINDING_MEDIUM : FINDING_INFO, worst, claim,
                                           "lengthen load.warmup_s until compile time in the measure window is near 0");
                findings_add_cell(f, cell->name);
                findings_add_evidence_runs(f, "jit.compile_time_share", cell->name, worst,
                                           ci == in->baseline ? NAN : base_worst, ids, n);
        }
}
