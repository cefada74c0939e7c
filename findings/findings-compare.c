/* findings-compare.c: a cell against the baseline at the decision's level (see
 * findings-compare.h). */
#include "findings/findings-compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

const struct findings_compare_metric findings_compare_metrics[] = {
        { "throughput_rps", "throughput", true },
        { "ops_per_s", "operations per second", true },
        { "latency_us.scheduled.p50", "p50 latency from scheduled", false },
        { "latency_us.scheduled.p99", "p99 latency from scheduled", false },
        { "latency_us.scheduled.p999", "p99.9 latency from scheduled", false },
};
const size_t findings_compare_metrics_count = ELEMENTSOF(findings_compare_metrics);
_Static_assert(ELEMENTSOF(findings_compare_metrics) == FINDINGS_COMPARE_METRICS_MAX, "the capacity callers give");

double findings_compare_level(size_t k) {
        return 1 - FINDINGS_ALPHA / (double) MAX(k, (size_t) 1);
}

void findings_level_text(char *buf, size_t size, size_t k, const char *intervals, const char *what) {
        char pct[32];
        snprintf(pct, sizeof pct, "%.2f", findings_compare_level(k) * 100);
        /* 98.75, 98.33, 99 and 95, not 99.00 */
        char *end = pct + strlen(pct);
        while (end[-1] == '0')
                *--end = '\0';
        if (end[-1] == '.')
                end[-1] = '\0';
        if (k > 1)
                snprintf(buf, size, "%s%% %s, Bonferroni over %zu %s", pct, intervals, k, what);
        else
                snprintf(buf, size, "%s%% %s", pct, intervals);
}

void findings_compare_level_text(char *buf, size_t size, size_t k) {
        findings_level_text(buf, size, k, "interval", "metrics");
}

static double geometric_mean(const double *x, size_t n) {
        struct stats_summary s;
        return stats_describe(x, n, &s) >= 0 && s.have_geometric_mean ? s.geometric_mean : NAN;
}

/* The sum of squares of ln x around its mean (0 for a single value). */
static double log_sum_squares(const double *x, size_t n) {
        return n >= 2 ? stats_log_variance(x, n) * (double) (n - 1) : 0;
}

size_t findings_compare_cell(const struct findings_cell *cell, const struct findings_cell *base,
                             struct findings_compared *out) {
        double x[FINDINGS_RUNS_MAX], b[FINDINGS_RUNS_MAX];
        struct stats_ratio probe;
        size_t k = 0;
        /* first which metrics can be compared at all: their number sets the level */
        bool usable[ELEMENTSOF(findings_compare_metrics)] = { false };
        for (size_t m = 0; m < ELEMENTSOF(findings_compare_metrics); m++) {
                size_t nx = findings_values(cell, findings_compare_metrics[m].path, x, FINDINGS_RUNS_MAX);
                size_t nb = findings_values(base, findings_compare_metrics[m].path, b, FINDINGS_RUNS_MAX);
                usable[m] = nx > 0 && nb > 0 && stats_ratio_log(x, nx, b, nb, 0.95, &probe) >= 0;
                k += usable[m];
        }
        size_t n = 0;
        for (size_t m = 0; m < ELEMENTSOF(findings_compare_metrics); m++) {
                if (!usable[m])
                        continue;
                struct findings_compared c = { .metric = &findings_compare_metrics[m] };
                c.nx = findings_values(cell, c.metric->path, x, FINDINGS_RUNS_MAX);
                c.nbase = findings_values(base, c.metric->path, b, FINDINGS_RUNS_MAX);
                if (stats_ratio_log(x, c.nx, b, c.nbase, findings_compare_level(k), &c.r) < 0)
                        continue;
                c.value = geometric_mean(x, c.nx);
                c.baseline_value = geometric_mean(b, c.nbase);
                c.log_var_df = (double) (c.nx + c.nbase) - 2;
                c.log_var = c.log_var_df > 0 ? (log_sum_squares(x, c.nx) + log_sum_squares(b, c.nbase)) / c.log_var_df : NAN;
                out[n++] = c;
        }
        return n;
}
