/* rule-noise.c: measurements too variable to decide. Per cell, throughput and p99 from
 * scheduled with a CoV above 5% across iterations; and per cell against the baseline, an
 * interval of the ratio that includes 1 yet reaches beyond +-3% (too wide to decide a 3%
 * difference). Both with the iterations per cell that would resolve a 3% difference (two-sided
 * 5%, power 80%, on the log scale: n = 2 (1.96 + 0.84)^2 s^2 / ln(1.03)^2, s^2 the cell's, or
 * the pair's mean, variance of ln x). Info: noise says how far to trust the other findings, not
 * why cells differ. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#include "basic/macro.h"
#include "basic/stats.h"

#define COV_MAX 0.05
#define RESOLVE 1.03

static const char *const paths[] = { "throughput_rps", "ops_per_s", "latency_us.scheduled.p99" };

static double log_variance(const double *x, size_t n) {
        double m = 0, ss = 0;
        for (size_t i = 0; i < n; i++)
                m += log(x[i]);
        m /= (double) n;
        for (size_t i = 0; i < n; i++)
                ss += (log(x[i]) - m) * (log(x[i]) - m);
        return ss / (double) (n - 1);
}

/* Iterations per cell for a 3% difference, from a variance of the logarithms. */
static double iterations_for(double var) {
        double z = 1.959964 + 0.841621;
        return fmax(2, ceil(2 * z * z * var / (log(RESOLVE) * log(RESOLVE))));
}

static double iterations_needed(const double *x, size_t n) {
        return iterations_for(log_variance(x, n));
}

/* One finding per cell naming the metrics whose ratio to the baseline cannot decide 3%. */
static void too_wide(const struct findings_input *in, size_t ci, cJSON *out) {
        const struct findings_cell *cell = &in->cells[ci], *base = &in->cells[in->baseline];
        char list[512] = "";
        size_t len = 0;
        double need = 0;
        for (size_t m = 0; m < ELEMENTSOF(paths); m++) {
                double x[FINDINGS_RUNS_MAX], b[FINDINGS_RUNS_MAX];
                size_t nx = findings_values(cell, paths[m], x, FINDINGS_RUNS_MAX);
                size_t nb = findings_values(base, paths[m], b, FINDINGS_RUNS_MAX);
                struct stats_ratio r;
                if (nx < 2 || nb < 2 || stats_ratio_log(x, nx, b, nb, 0.95, &r) < 0 || !r.have_ci || r.excludes_one ||
                    (r.ci_low >= 1 / RESOLVE && r.ci_high <= RESOLVE))
                        continue;
                need = fmax(need, iterations_for((log_variance(x, nx) + log_variance(b, nb)) / 2));
                if (len < sizeof list)
                        len += (size_t) snprintf(list + len, sizeof list - len, "%s%s (%.3f-%.3f)", len ? ", " : "", paths[m],
                                                 r.ci_low, r.ci_high);
        }
        if (len == 0)
                return;
        char claim[800];
        snprintf(claim, sizeof claim,
                 "the 95%% intervals of cell %s's ratios to %s are too wide to decide a 3%% difference: %s; about %.0f iterations per cell would decide it",
                 cell->name, base->name, list, need);
        cJSON *f = findings_append(out, "noise", FINDING_INFO, need, claim, "more iterations per cell");
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        findings_add_evidence(f, "iterations_needed", cell, need, NAN);
}

void findings_rule_noise(const struct findings_input *in, cJSON *out) {
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                if (ci != in->baseline)
                        too_wide(in, ci, out);
                for (size_t m = 0; m < ELEMENTSOF(paths); m++) {
                        double x[FINDINGS_RUNS_MAX];
                        size_t n = findings_values(cell, paths[m], x, FINDINGS_RUNS_MAX);
                        struct stats_summary s;
                        if (n < 2 || stats_describe(x, n, &s) < 0 || !s.have_cov || s.cov <= COV_MAX || s.min <= 0)
                                continue;
                        double need = iterations_needed(x, n);
                        char claim[512];
                        snprintf(claim, sizeof claim,
                                 "cell %s's %s varies with a CoV of %.1f%% across its %zu iterations: about %.0f iterations per cell would resolve a 3%% difference",
                                 cell->name, paths[m], s.cov * 100, n, need);
                        cJSON *f = findings_append(out, "noise", FINDING_INFO, s.cov, claim,
                                                   "more iterations, longer measure phases, or a quieter machine (see interference)");
                        findings_add_cell(f, cell->name);
                        char metric[96];
                        snprintf(metric, sizeof metric, "%s.cov", paths[m]);
                        findings_add_evidence(f, metric, cell, s.cov, NAN);
                }
        }
}
