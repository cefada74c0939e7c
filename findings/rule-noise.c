/* rule-noise.c: measurements too variable to decide. Per cell, throughput and p99 from
 * scheduled with a CoV above 5% across iterations; and per cell against the baseline, every
 * metric the difference rule compared but did not decide (its interval, at the difference
 * rule's level: findings-compare.h, includes 1) whose interval reaches beyond +-3%. Both with
 * the iterations per cell that would decide a 3% difference at that level with 80% power
 * (basic/sample-size.h: t quantiles, on the log scale), as a range: the variance behind it comes
 * from a few iterations, and its own 95% interval (chi-square) carries into the count, which a
 * single "about N" would hide. Info: noise says how far to trust the other findings, not why
 * cells differ. */
#include "findings/rules.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "basic/macro.h"
#include "basic/sample-size.h"
#include "basic/stats.h"
#include "findings/findings-compare.h"
#include "findings/findings-sequential.h"

#define COV_MAX 0.05
#define RESOLVE 1.03
#define POWER 0.8
#define VARIANCE_CONFIDENCE 0.95

static const char *const paths[] = { "throughput_rps", "ops_per_s", "latency_us.scheduled.p99" };

/* Iterations per cell for a 3% difference at level from a variance of the logarithms with df
 * degrees of freedom; false when it cannot be told. */
static bool iterations_for(double var, double df, double level, struct sample_size_range *ret) {
        return sample_size_range(var, df, log(RESOLVE), 1 - level, POWER, VARIANCE_CONFIDENCE, ret) >= 0;
}

static void range_max(struct sample_size_range *acc, const struct sample_size_range *r) {
        acc->low = MAX(acc->low, r->low);
        acc->estimate = MAX(acc->estimate, r->estimate);
        acc->high = MAX(acc->high, r->high);
}

/* "between 30 and 140 iterations per cell"; "at least 30 ..." when the high end reaches the cap */
static void range_text(char *buf, size_t size, const struct sample_size_range *r) {
        if (r->low == r->high)
                snprintf(buf, size, "%" PRIu32 " iterations per cell", r->low);
        else if (r->high >= SAMPLE_SIZE_MAX)
                snprintf(buf, size, "at least %" PRIu32 " iterations per cell (no upper bound from so few)", r->low);
        else
                snprintf(buf, size, "between %" PRIu32 " and %" PRIu32 " iterations per cell", r->low, r->high);
}

static void add_range_evidence(cJSON *f, const struct findings_cell *cell, const struct sample_size_range *r) {
        findings_add_evidence(f, "iterations_needed", cell, r->estimate, NAN);
        findings_add_evidence(f, "iterations_needed.low", cell, r->low, NAN);
        findings_add_evidence(f, "iterations_needed.high", cell, r->high, NAN);
}

/* One finding per cell naming the metrics the difference rule could not decide whose interval is
 * too wide to decide 3%. */
static void too_wide(const struct findings_input *in, size_t ci, cJSON *out) {
        const struct findings_cell *cell = &in->cells[ci], *base = &in->cells[in->baseline];
        struct findings_compared c[FINDINGS_COMPARE_METRICS_MAX];
        size_t k = findings_compare_cell(cell, base, c);
        findings_stop_apply(in, ci, c, k);
        char list[512] = "", level[96];
        findings_compare_level_text(level, sizeof level, k);
        size_t len = 0, nx = 0, nb = 0;
        bool approximate = false;
        struct sample_size_range need = { 0 };
        for (size_t i = 0; i < k; i++) {
                const struct stats_ratio *r = &c[i].r;
                struct sample_size_range one;
                /* the stop rule's own: stop_undecided() speaks for them */
                if (c[i].sequential || !r->have_ci || r->excludes_one || (r->ci_low >= 1 / RESOLVE && r->ci_high <= RESOLVE) ||
                    !iterations_for(c[i].log_var, c[i].log_var_df, findings_compare_level(k), &one))
                        continue;
                range_max(&need, &one);
                approximate = approximate || r->approximate;
                nx = MAX(nx, c[i].nx);
                nb = MAX(nb, c[i].nbase);
                if (len < sizeof list)
                        len += (size_t) snprintf(list + len, sizeof list - len, "%s%s (%.3f-%.3f)", len ? ", " : "",
                                                 c[i].metric->path, r->ci_low, r->ci_high);
        }
        if (len == 0)
                return;
        char claim[1024], iterations[128];
        range_text(iterations, sizeof iterations, &need);
        snprintf(claim, sizeof claim,
                 "the intervals of cell %s's ratios to %s (%s) are too wide to decide a 3%% difference: %s; %s would decide it "
                 "with 80%% power (the range is the 95%% interval of the variance seen in %zu + %zu iterations)%s",
                 cell->name, base->name, level, list, iterations, nx, nb,
                 approximate ? "; the intervals are " FINDINGS_APPROXIMATE_TEXT : "");
        cJSON *f = findings_append(out, "noise", FINDING_INFO, need.estimate, claim, "more iterations per cell");
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        add_range_evidence(f, cell, &need);
}

/* The cell's own variability of one metric, at the level its comparison with the baseline
 * decides at. */
static void too_variable(const struct findings_input *in, size_t ci, const char *path, cJSON *out) {
        const struct findings_cell *cell = &in->cells[ci];
        double x[FINDINGS_RUNS_MAX];
        size_t n = findings_values(cell, path, x, FINDINGS_RUNS_MAX);
        struct stats_summary s;
        if (n < 2 || stats_describe(x, n, &s) < 0 || !s.have_cov || s.cov <= COV_MAX || s.min <= 0)
                return;
        struct findings_compared c[FINDINGS_COMPARE_METRICS_MAX];
        size_t k = findings_compare_cell(cell, &in->cells[in->baseline], c);
        struct sample_size_range need;
        if (!iterations_for(stats_log_variance(x, n), (double) n - 1, findings_compare_level(k), &need))
                return;
        char claim[640], iterations[128];
        range_text(iterations, sizeof iterations, &need);
        snprintf(claim, sizeof claim,
                 "cell %s's %s varies with a CoV of %.1f%% across its %zu iterations: %s would resolve a 3%% difference "
                 "with 80%% power at the difference rule's %.2f%% level (the range is the 95%% interval of the variance)",
                 cell->name, path, s.cov * 100, n, iterations, findings_compare_level(k) * 100);
        cJSON *f = findings_append(out, "noise", FINDING_INFO, s.cov, claim,
                                   "more iterations, longer measure phases, or a quieter machine (see interference)");
        findings_add_cell(f, cell->name);
        char metric[96];
        snprintf(metric, sizeof metric, "%s.cov", path);
        findings_add_evidence(f, metric, cell, s.cov, NAN);
}

/* The comparisons a stop rule left undecided: a re-run is not what they need, iterations.max
 * was reached (or the experiment ended, or runs, before it). */
static void stop_undecided(const struct findings_input *in, size_t ci, cJSON *out) {
        const struct findings_cell *cell = &in->cells[ci], *base = &in->cells[in->baseline];
        struct findings_compared c[FINDINGS_COMPARE_METRICS_MAX];
        size_t k = findings_compare_cell(cell, base, c), len = 0;
        findings_stop_apply(in, ci, c, k);
        struct findings_stop s;
        char list[768] = "";
        for (size_t i = 0; i < k; i++) {
                if (!c[i].sequential || c[i].stop.decision != SEQUENTIAL_UNDECIDED || len >= sizeof list)
                        continue;
                len += c[i].r.have_ci ? (size_t) snprintf(list + len, sizeof list - len, "%s%s (interval %.3f-%.3f)", len ? ", " : "",
                                                          c[i].metric->path, c[i].r.ci_low, c[i].r.ci_high)
                                      : (size_t) snprintf(list + len, sizeof list - len, "%s%s (no bound yet)", len ? ", " : "",
                                                          c[i].metric->path);
        }
        if (len == 0 || !findings_stop_of(in, &s))
                return;
        bool at_max = s.rounds >= s.plan.max_rounds;
        char claim[1200];
        snprintf(claim, sizeof claim,
                 "the stop rule left cell %s's comparison with %s undecided after %u of at most %u rounds (%g%% confidence "
                 "sequences, shared by %zu comparisons; equivalent within %g%%): %s%s",
                 cell->name, base->name, s.rounds, s.plan.max_rounds, s.plan.level * 100, sequential_plan_comparisons(&s.plan),
                 s.plan.margin * 100, list, at_max ? "; iterations.max was reached" : "");
        cJSON *f = findings_append(out, "noise", FINDING_INFO, 0, claim,
                                   at_max ? "a larger iterations.max, a wider stop.difference_pct, or a quieter machine"
                                          : "let the experiment run to iterations.max");
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        for (size_t i = 0; i < k; i++)
                if (c[i].sequential && c[i].stop.decision == SEQUENTIAL_UNDECIDED)
                        findings_add_evidence(f, c[i].metric->path, cell, c[i].value, c[i].baseline_value);
}

void findings_rule_noise(const struct findings_input *in, cJSON *out) {
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                if (ci != in->baseline) {
                        too_wide(in, ci, out);
                        stop_undecided(in, ci, out);
                }
                for (size_t m = 0; m < ELEMENTSOF(paths); m++)
                        too_variable(in, ci, paths[m], out);
        }
}
