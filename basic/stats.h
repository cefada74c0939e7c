/* stats.h: the statistics behind run metrics and experiment reports: exact nearest-rank
 * percentiles, descriptive statistics with a Student-t confidence interval (of the geometric
 * mean for positive values, else of the mean), and the ratio of two cells' geometric means with
 * a Welch interval on the log scale, or of their means by Fieller's theorem where a value is not
 * above 0.
 *
 * Definitions (what the API promises, so they are fixed here):
 * - Percentile p of n sorted values: the value at 1-based rank ceil(p/100 * n), clamped to
 *   [1, n]; p = 0 gives the minimum, p = 100 the maximum. p is resolved to 1e-4 percent and the
 *   rank is computed in integers, so p99.9 of 1000 values is rank 999, not 1000 by rounding.
 * - Median: the middle value, or the mean of the two middle values for even n.
 * - stddev: sample standard deviation (divisor n - 1). CoV: stddev / mean as a fraction.
 * - 95% CI: for values all above 0 (latencies, throughputs), of the geometric mean: the Student
 *   t interval of the logarithms, exp(mean(ln x) +- t(0.975, n - 1) * sd(ln x) / sqrt(n)), which
 *   respects the scale and cannot go negative ("log-t"); for values >= 0 with a zero among them
 *   (counts), mean +- t * stddev / sqrt(n) with its low end clamped at 0 ("t-clamped"); for
 *   values of either sign, the plain t interval of the mean ("t").
 * - Geometric mean: exp(mean(ln x)), for values all above 0 only; the log-t interval is its.
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
/* Quantile function of the chi-square distribution with df degrees of freedom (0 < df < INFINITY)
 * at probability p in (0, 1); NAN for arguments outside those ranges. */
double stats_chi2_quantile(double p, double df);

struct stats_summary {
        size_t n;
        double mean, median, min, max;
        bool have_geometric_mean; /* every value above 0 */
        double geometric_mean;
        bool have_stddev;       /* n >= 2 */
        double stddev;
        bool have_cov;          /* n >= 2 and mean != 0 */
        double cov;
        bool have_ci;           /* n >= 2 */
        double ci_low, ci_high; /* 95% CI of the geometric mean ("log-t") or of the mean */
        const char *ci_method;  /* "log-t", "t-clamped" or "t" */
};

/* The sample variance (divisor n - 1) of ln x: NAN for n < 2 or a value not above 0. */
double stats_log_variance(const double *x, size_t n);

/* Descriptive statistics of x[0..n). -EINVAL for n == 0 or a non-finite value, -ENOMEM;
 * *ret untouched on failure. */
int stats_describe(const double *x, size_t n, struct stats_summary *ret);

/* Below this many values on a side, an interval of a ratio between sides of different sizes
 * is approximate (ratio_mark_approximate() in stats.c says why). */
#define STATS_EXACT_MIN_N 5

struct stats_ratio {
        bool have_ratio;        /* both means known and the baseline's mean is not 0 */
        double ratio;           /* GM(x) / GM(baseline) (log-welch), or mean(x) / mean(baseline) (Fieller) */
        bool of_geometric_means; /* which of the two */
        bool have_ci;           /* n >= 2 on both sides and the interval is bounded */
        double ci_low, ci_high; /* the interval at the level asked (Fieller's: 95%) */
        bool excludes_one;      /* have_ci and 1 lies outside [ci_low, ci_high] */
        bool approximate;       /* have_ci, a side has fewer than STATS_EXACT_MIN_N values and the
                                 * sides differ in size: the coverage is below the level */
};

/* Fieller's interval for the ratio of two independent means under normality, with t at
 * Welch-Satterthwaite degrees of freedom for the variance of mean(x) - ratio * mean(baseline).
 * Chosen over a percentile bootstrap, which is too narrow for the small iteration counts typical
 * of experiments (n below about 10). have_ci is false when the baseline's
 * mean is not significantly different from 0 (the interval is then unbounded). */
int stats_ratio_fieller(const double *x, size_t nx, const double *baseline, size_t nbase,
                        struct stats_ratio *ret);

/* The ratio of geometric means of two samples of positive values with the Welch t interval
 * of the difference of their mean logarithms, exponentiated ("log-welch"): on the scale that
 * latencies and throughputs live on, never negative, symmetric in which side is the baseline.
 * confidence is the two-sided level (0.95 for the report). -EINVAL for empty or non-finite
 * input; -EDOM when a value is not above 0 (use Fieller's). *ret untouched on failure. */
int stats_ratio_log(const double *x, size_t nx, const double *baseline, size_t nbase, double confidence,
                    struct stats_ratio *ret);
/* The report's ratio: stats_ratio_log at 95% where every value is above 0, else Fieller's;
 * *ret_method names which ("log-welch" or "fieller"). */
int stats_ratio_best(const double *x, size_t nx, const double *baseline, size_t nbase, struct stats_ratio *ret,
                     const char **ret_method);

/* One-sided Fisher exact test that the proportion a/na exceeds b/nb: P(X >= a) for X
 * hypergeometric (na draws from na + nb with a + b successes). 1 when a/na is not above b/nb
 * or a count is impossible (a > na, b > nb). */
double stats_fisher_greater(uint64_t a, uint64_t na, uint64_t b, uint64_t nb);

/* {"n":..,"mean":..,"median":..,"geometric_mean":..|null,"stddev":..|null,"cov":..|null,"min":..,
 *  "max":..,"ci95":{"low":..,"high":..}|null,"method":..,"interval_of":"geometric_mean"|"mean"} */
cJSON *stats_summary_json(const struct stats_summary *s);
/* {"ratio":..|null,"ratio_of":"geometric_mean"|"mean","ci95":{"low":..,"high":..}|null,
 *  "excludes_one":true|false|null,"approximate":true|false|null} */
cJSON *stats_ratio_json(const struct stats_ratio *r);
