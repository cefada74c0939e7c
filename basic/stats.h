/* stats.h: the statistics behind run metrics and experiment reports: exact nearest-rank
 * percentiles, descriptive statistics with a Student-t confidence interval for the mean, and the
 * ratio of two cells' means with a 95% interval (Fieller's theorem).
 *
 * Definitions (what the API promises, so they are fixed here):
 * - Percentile p of n sorted values: the value at 1-based rank ceil(p/100 * n), clamped to
 *   [1, n]; p = 0 gives the minimum, p = 100 the maximum. p is resolved to 1e-4 percent and the
 *   rank is computed in integers, so p99.9 of 1000 values is rank 999, not 1000 by rounding.
 * - Median: the middle value, or the mean of the two middle values for even n.
 * - stddev: sample standard deviation (divisor n - 1). CoV: stddev / mean as a fraction.
 * - 95% CI of the mean: mean +- t(0.975, n - 1) * stddev / sqrt(n).
 * Whatever needs n >= 2 (stddev, CoV, CI) is reported missing for n < 2, never made up. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 1-based nearest rank of percentile p (clamped to [0, 100]) among n values; 0 when n == 0. */
size_t stats_nearest_rank(size_t n, double p);
/* Percentile p of an ascending array; NAN (or INT64_MIN for the integer form) when n == 0. */
double stats_percentile_sorted(const double *sorted, size_t n, double p);
int64_t stats_percentile_sorted_i64(const int64_t *sorted, size_t n, double p);
/* The k-th smallest (0-based, k < n) of n values, reordering them. */
int64_t stats_select_i64(int64_t *v, size_t n, size_t k);

/* Quantile function of Student's t with df degrees of freedom (df > 0, INFINITY for the normal
 * distribution) at probability p in (0, 1); NAN for arguments outside those ranges. */
double stats_t_quantile(double p, double df);
double stats_normal_quantile(double p);

struct stats_summary {
        size_t n;
        double mean, median, min, max;
        bool have_stddev;       /* n >= 2 */
        double stddev;
        bool have_cov;          /* n >= 2 and mean != 0 */
        double cov;
        bool have_ci;           /* n >= 2 */
        double ci_low, ci_high; /* 95% CI of the mean */
};

/* Descriptive statistics of x[0..n). -EINVAL for n == 0 or a non-finite value, -ENOMEM;
 * *ret untouched on failure. */
int stats_describe(const double *x, size_t n, struct stats_summary *ret);

struct stats_ratio {
        bool have_ratio;        /* both means known and the baseline's mean is not 0 */
        double ratio;           /* mean(x) / mean(baseline) */
        bool have_ci;           /* n >= 2 on both sides and the interval is bounded */
        double ci_low, ci_high; /* 95% interval of the ratio */
        bool excludes_one;      /* have_ci and 1 lies outside [ci_low, ci_high] */
};

/* Fieller's interval for the ratio of two independent means under normality, with t at
 * Welch-Satterthwaite degrees of freedom for the variance of mean(x) - ratio * mean(baseline).
 * Chosen over a percentile bootstrap, which is too narrow for the small iteration counts typical
 * of experiments (n below about 10). have_ci is false when the baseline's
 * mean is not significantly different from 0 (the interval is then unbounded). */
int stats_ratio_fieller(const double *x, size_t nx, const double *baseline, size_t nbase,
                        struct stats_ratio *ret);

/* {"n":..,"mean":..,"median":..,"stddev":..|null,"cov":..|null,"min":..,"max":..,
 *  "ci95":{"low":..,"high":..}|null} */
cJSON *stats_summary_json(const struct stats_summary *s);
/* {"ratio":..|null,"ci95":{"low":..,"high":..}|null,"excludes_one":true|false|null} */
cJSON *stats_ratio_json(const struct stats_ratio *r);
