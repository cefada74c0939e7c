/* test-stats.c: percentiles, descriptive statistics, t quantiles and ratio intervals against
 * answers checked by hand. Where a figure came from python3, the comment says how; the scripts
 * used only the standard library (statistics, math), except where scipy (Debian's
 * python3-scipy 1.10.1, installed only to compute them once) is named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-count.h"
#include "basic/json-util.h"
#include "basic/sample-size.h"
#include "basic/stats.h"

#define assert_close(a, b, tol)                                                          \
        do {                                                                             \
                double a_ = (a), b_ = (b);                                               \
                if (!(fabs(a_ - b_) <= (tol)))                                           \
                        fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, \
                                 (double) (tol));                                        \
        } while (0)

static void test_nearest_rank(void **state) {
        /* rank = ceil(p/100 * n): computed by hand */
        assert_int_equal(stats_nearest_rank(0, 50), 0);
        assert_int_equal(stats_nearest_rank(1, 99.99), 1);
        assert_int_equal(stats_nearest_rank(10, 50), 5);
        assert_int_equal(stats_nearest_rank(11, 50), 6);      /* 5.5 -> 6 */
        assert_int_equal(stats_nearest_rank(4, 25), 1);
        assert_int_equal(stats_nearest_rank(4, 26), 2);       /* 1.04 -> 2 */
        assert_int_equal(stats_nearest_rank(10, 0), 1);
        assert_int_equal(stats_nearest_rank(10, -3), 1);
        assert_int_equal(stats_nearest_rank(10, 100), 10);
        assert_int_equal(stats_nearest_rank(10, 250), 10);
        assert_int_equal(stats_nearest_rank(10, NAN), 1);
        /* 0.999 * 1000 is 999.0000000000001 in doubles: a naive ceil() says 1000 */
        assert_int_equal(stats_nearest_rank(1000, 99.9), 999);
        assert_int_equal(stats_nearest_rank(10000, 99.99), 9999);
        assert_int_equal(stats_nearest_rank(100000, 99.999), 99999);
        assert_int_equal(stats_nearest_rank(1000, 99.91), 1000); /* 999.1 -> 1000 */
        /* the seed case's 1.44 M requests: p99.99 = ceil(1439856) */
        assert_int_equal(stats_nearest_rank(1440000, 99.99), 1439856);
        assert_int_equal(stats_nearest_rank(1440001, 99.99), 1439857); /* 1439856.9999 -> 1439857 */
}

static void test_percentile_sorted(void **state) {
        const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
        assert_true(stats_percentile_sorted(v, 10, 50) == 5);
        assert_true(stats_percentile_sorted(v, 10, 90) == 9);
        assert_true(stats_percentile_sorted(v, 10, 91) == 10);
        assert_true(stats_percentile_sorted(v, 10, 0) == 1);
        assert_true(isnan(stats_percentile_sorted(v, 0, 50)));
        const int64_t w[] = { -5, 0, 7, 1000000000000 };
        assert_true(stats_percentile_sorted_i64(w, 4, 75) == 7);
        assert_true(stats_percentile_sorted_i64(w, 4, 99) == 1000000000000);
        assert_true(stats_percentile_sorted_i64(w, 0, 99) == INT64_MIN);
}

static void test_t_quantile(void **state) {
        /* Published two-sided 95% values (t tables), to the digits below; the 17-digit figures
         * were confirmed in python3 by integrating the t density numerically (Simpson, 2e5
         * steps) and checking the upper tail is 0.025 to 1e-11. df = 1 is exact:
         * tan(0.475 * pi) = 12.706204736174707. */
        assert_close(stats_t_quantile(0.975, 1), 12.706204736174707, 1e-9);
        assert_close(stats_t_quantile(0.975, 2), 4.302652729749464, 1e-9);
        assert_close(stats_t_quantile(0.975, 4), 2.7764451051977987, 1e-9);
        assert_close(stats_t_quantile(0.975, 9), 2.2621571628540993, 1e-9);
        assert_close(stats_t_quantile(0.975, 29), 2.045229642132703, 1e-9);
        /* python3: statistics.NormalDist().inv_cdf(0.975) */
        assert_close(stats_t_quantile(0.975, INFINITY), 1.9599639845400536, 1e-9);
        assert_close(stats_normal_quantile(0.975), 1.9599639845400536, 1e-9);
        assert_close(stats_normal_quantile(0.025), -1.9599639845400536, 1e-9);
        /* tan(0.495 * pi): the 99% two-sided value for df = 1 */
        assert_close(stats_t_quantile(0.995, 1), 63.656741162871583, 1e-7);
        /* symmetry, centre, and a non-integer df between its neighbours */
        assert_close(stats_t_quantile(0.025, 9), -2.2621571628540993, 1e-9);
        assert_true(stats_t_quantile(0.5, 3) == 0);
        double t = stats_t_quantile(0.975, 12.934029818359383);
        assert_true(t < stats_t_quantile(0.975, 12) && t > stats_t_quantile(0.975, 13));
        /* the switch to the large-df expansion is continuous */
        assert_close(stats_t_quantile(0.975, 999999), stats_t_quantile(0.975, 1000001), 1e-9);
        assert_true(stats_t_quantile(0.975, 1e6) > 1.9599639845400536);
        /* invalid arguments */
        assert_true(isnan(stats_t_quantile(0, 5)));
        assert_true(isnan(stats_t_quantile(1, 5)));
        assert_true(isnan(stats_t_quantile(0.975, 0)));
        assert_true(isnan(stats_t_quantile(NAN, 5)));
        assert_true(isnan(stats_t_quantile(0.975, NAN)));
}

static void test_describe(void **state) {
        /* python3: statistics.mean/median/stdev of the sample; all values positive, so the CI is
         * the log-t one: exp(mean(ln x) -+ t(0.975, 4) * stdev(ln x) / sqrt(5)) with
         * t(0.975, 4) = 2.7764451051977987. */
        const double x[] = { 2.5, 3.1, 2.9, 3.6, 2.7 };
        struct stats_summary s;
        assert_int_equal(stats_describe(x, 5, &s), 0);
        assert_int_equal(s.n, 5);
        assert_close(s.mean, 2.96, 1e-12);
        assert_close(s.median, 2.9, 1e-12);
        assert_true(s.have_stddev && s.have_cov && s.have_ci);
        assert_close(s.stddev, 0.4219004621945798, 1e-12);
        assert_close(s.cov, 0.1425339399306013, 1e-12);
        assert_close(s.min, 2.5, 0);
        assert_close(s.max, 3.6, 0);
        assert_close(s.ci_low, 2.470549338584599, 1e-9);
        assert_close(s.ci_high, 3.491024162035167, 1e-9);
        assert_string_equal(s.ci_method, "log-t");

        /* even n: median is the mean of the middle two; python3 statistics.stdev = 12.909944487358056 */
        const double y[] = { 40, 10, 30, 20 };
        assert_int_equal(stats_describe(y, 4, &s), 0);
        assert_close(s.median, 25, 0);
        assert_close(s.stddev, 12.909944487358056, 1e-12);
        assert_true(y[0] == 40); /* input not reordered */

        /* ties and duplicates */
        const double z[] = { 5, 5, 5, 1, 5, 5 };
        assert_int_equal(stats_describe(z, 6, &s), 0);
        assert_close(s.median, 5, 0);

        /* mean 0: CoV is undefined, the rest is there */
        const double c[] = { -1, 1 };
        assert_int_equal(stats_describe(c, 2, &s), 0);
        assert_false(s.have_cov);
        assert_true(s.have_ci);
        assert_close(s.ci_low, -12.706204736174707, 1e-9);
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* The median comes from an in-place selection, not a sort: compare it with sorting on many
 * small arrays full of duplicates (the cases where partitioning goes wrong). */
static void test_median_matches_sorting(void **state) {
        uint64_t seed = 42;
        for (int round = 0; round < 3000; round++) {
                double x[64], sorted[64];
                size_t n = 1 + (size_t) (round % 64);
                for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        x[i] = (double) ((seed >> 33) % (round % 3 == 0 ? 3 : 1000));
                }
                memcpy(sorted, x, n * sizeof(double));
                qsort(sorted, n, sizeof(double), cmp_double);
                double want = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
                struct stats_summary s;
                assert_int_equal(stats_describe(x, n, &s), 0);
                assert_true(s.median == want);
                assert_true(s.min == sorted[0] && s.max == sorted[n - 1]);
        }
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

/* The buckets' percentiles: selection gives what sorting gives, for every rank, with many ties
 * (3 distinct values), sorted and reversed input, and n from 1 up. */
static void test_select_matches_sorting(void **state) {
        uint64_t seed = 7;
        for (int round = 0; round < 600; round++) {
                int64_t x[200], work[200], sorted[200];
                size_t n = 1 + (size_t) (round % 200);
                for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        x[i] = round % 5 == 0 ? (int64_t) i : round % 5 == 1 ? -(int64_t) i
                               : (int64_t) ((seed >> 33) % (round % 5 == 2 ? 3 : 100000));
                }
                memcpy(sorted, x, n * sizeof *x);
                qsort(sorted, n, sizeof *sorted, cmp_i64);
                for (size_t k = 0; k < n; k++) {
                        memcpy(work, x, n * sizeof *x);
                        assert_true(stats_select_i64(work, n, k) == sorted[k]);
                }
        }
}

/* The report's p99 of Tomcat over 2 iterations once read -32.7 ms to 42.6 ms: a positive
 * metric's interval never has a negative bound, and counts with a zero are clamped at 0. */
static void test_describe_positive_intervals(void **state) {
        const double p99[] = { 1.99, 7.91 };
        struct stats_summary s;
        assert_int_equal(stats_describe(p99, 2, &s), 0);
        assert_string_equal(s.ci_method, "log-t");
        assert_true(s.ci_low > 0 && s.ci_low < 1.99 && s.ci_high > 7.91);
        const double counts[] = { 0, 0, 5 };
        assert_int_equal(stats_describe(counts, 3, &s), 0);
        assert_string_equal(s.ci_method, "t-clamped");
        assert_true(s.ci_low == 0 && s.ci_high > 5.0 / 3);
        const double signed_[] = { -3, 1, 2 };
        assert_int_equal(stats_describe(signed_, 3, &s), 0);
        assert_string_equal(s.ci_method, "t");
        assert_true(s.ci_low < 0);
        cJSON *j = stats_summary_json(&s);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "method")), "t");
        cJSON_Delete(j);
        /* a sweep of random positive samples: no negative bound */
        uint64_t seed = 42;
        for (int k = 0; k < 1000; k++) {
                double v[5];
                size_t n = 2 + (size_t) (k % 4);
                for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        v[i] = 1e-3 + (double) (seed >> 11) / 9007199254740992.0 * 100;
                }
                assert_int_equal(stats_describe(v, n, &s), 0);
                assert_true(s.ci_low > 0 && s.ci_low <= s.ci_high);
        }
}

/* The ratio of geometric means with the Welch interval of the log difference. python3:
 * ln-samples' means and variances give ratio 0.8040158755947815, se 0.009492431543299847 and
 * Welch df 7.904200282571979. */
static void test_ratio_log(void **state) {
        static const double a[] = { 80, 82, 79, 81, 80 }, b[] = { 100, 102, 98, 101, 99 };
        struct stats_ratio r;
        assert_int_equal(stats_ratio_log(a, 5, b, 5, 0.95, &r), 0);
        assert_close(r.ratio, 0.8040158755947815, 1e-12);
        double t = stats_t_quantile(0.975, 7.904200282571979);
        assert_close(r.ci_low, 0.8040158755947815 * exp(-t * 0.009492431543299847), 1e-9);
        assert_close(r.ci_high, 0.8040158755947815 * exp(t * 0.009492431543299847), 1e-9);
        assert_true(r.excludes_one);
        const char *method;
        assert_int_equal(stats_ratio_best(a, 5, b, 5, &r, &method), 0);
        assert_string_equal(method, "log-welch");
        static const double z[] = { 0, 1, 2 };
        assert_int_equal(stats_ratio_log(z, 3, b, 5, 0.95, &r), -EDOM);
        assert_int_equal(stats_ratio_best(z, 3, b, 5, &r, &method), 0);
        assert_string_equal(method, "fieller");
        /* equal values: their ratio exactly, as the report's arithmetic expects */
        static const double c150[] = { 150, 150, 150 }, c100[] = { 100, 100, 100 };
        assert_int_equal(stats_ratio_log(c150, 3, c100, 3, 0.95, &r), 0);
        assert_true(r.ratio == 1.5 && r.ci_low == 1.5 && r.ci_high == 1.5 && r.excludes_one);
        struct stats_summary cs;
        assert_int_equal(stats_describe(c150, 3, &cs), 0);
        assert_true(cs.ci_low == 150 && cs.ci_high == 150);
        /* a wider confidence gives a wider interval */
        struct stats_ratio wide;
        assert_int_equal(stats_ratio_log(a, 5, b, 5, 0.95, &r), 0);
        assert_int_equal(stats_ratio_log(a, 5, b, 5, 0.9875, &wide), 0);
        assert_true(wide.ci_low < r.ci_low && wide.ci_high > r.ci_high);
}

/* python3: the hypergeometric tail sum(comb(k, x) comb(n - k, na - x)) / comb(n, na) in exact
 * integers. */
static void test_fisher(void **state) {
        /* 5 of 8 against 1 of 8: not significant */
        assert_close(stats_fisher_greater(5, 8, 1, 8), 0.05944055944055944, 1e-12);
        assert_close(stats_fisher_greater(9, 9, 1, 9), 0.00020567667626491157, 1e-12);
        assert_close(stats_fisher_greater(1, 8, 5, 8), 1, 0);
        assert_close(stats_fisher_greater(3, 2, 0, 5), 1, 0);
}

static void test_describe_small_and_bad(void **state) {
        struct stats_summary s;
        const double one[] = { 42 };
        assert_int_equal(stats_describe(one, 1, &s), 0);
        assert_close(s.mean, 42, 0);
        assert_close(s.median, 42, 0);
        assert_false(s.have_stddev);
        assert_false(s.have_cov);
        assert_false(s.have_ci); /* no interval from one iteration, not a made-up one */

        cJSON *j = stats_summary_json(&s);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "stddev")));
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ci95")));
        assert_true(cJSON_GetObjectItem(j, "mean")->valuedouble == 42);
        cJSON_Delete(j);

        struct stats_summary untouched = { .n = 77 };
        const double bad[] = { 1, NAN, 3 };
        assert_int_equal(stats_describe(bad, 3, &untouched), -EINVAL);
        const double inf[] = { 1, INFINITY };
        assert_int_equal(stats_describe(inf, 2, &untouched), -EINVAL);
        assert_int_equal(stats_describe(one, 0, &untouched), -EINVAL);
        assert_int_equal(untouched.n, 77);
}

/* Two cells that perform the same: the interval must include 1. */
static const double same_x[] = { 101, 98, 103, 99, 100, 102, 97, 101 };
static const double same_base[] = { 100, 104, 97, 101, 99, 103, 96, 100 };
/* A cell 20% slower than its baseline: the interval must exclude 1. */
static const double slow_x[] = { 80, 82, 79, 81, 80 };
static const double slow_base[] = { 100, 102, 98, 101, 99 };

static void test_ratio_fieller(void **state) {
        /* python3: the roots of (mx - q mb)^2 = t^2 (vx + q^2 vb) with vx, vb = statistics.variance / n,
         * Welch-Satterthwaite df (12.934 and 7.907), and t at that df found by bisecting the
         * numerically integrated t tail. */
        struct stats_ratio r;
        assert_int_equal(stats_ratio_fieller(same_x, 8, same_base, 8, &r), 0);
        assert_close(r.ratio, 1.00125, 1e-12);
        assert_close(r.ci_low, 0.9756787711829276, 1e-7);
        assert_close(r.ci_high, 1.027690354282445, 1e-7);
        assert_false(r.excludes_one);

        assert_int_equal(stats_ratio_fieller(slow_x, 5, slow_base, 5, &r), 0);
        assert_close(r.ci_low, 0.7865644651850547, 1e-7);
        assert_close(r.ci_high, 0.8218649421550588, 1e-7);
        assert_true(r.excludes_one);

        /* a baseline without spread: the interval is the t interval of x's mean, scaled by
         * 1/mean(base) (here test_describe's sample: [2.436..., 3.483...] / 2) */
        const double x[] = { 2.5, 3.1, 2.9, 3.6, 2.7 }, flat[] = { 2, 2, 2 };
        assert_int_equal(stats_ratio_fieller(x, 5, flat, 3, &r), 0);
        assert_close(r.ci_low, 2.436141385267461 / 2, 1e-9);
        assert_close(r.ci_high, 3.4838586147325388 / 2, 1e-9);

        /* a baseline whose mean is indistinguishable from 0: no bounded interval */
        const double around0[] = { -1, 1.6, -0.5 };
        assert_int_equal(stats_ratio_fieller(x, 5, around0, 3, &r), 0);
        assert_true(r.have_ratio);
        assert_false(r.have_ci);
        assert_false(r.excludes_one);
}

static void test_ratio_edges(void **state) {
        struct stats_ratio r;
        /* one iteration: a ratio, no interval */
        assert_int_equal(stats_ratio_fieller(slow_x, 1, slow_base, 5, &r), 0);
        assert_true(r.have_ratio);
        assert_false(r.have_ci);
        assert_int_equal(stats_ratio_fieller(slow_x, 5, slow_base, 1, &r), 0);
        assert_false(r.have_ci);
        /* baseline mean 0: no ratio at all */
        const double zeros[] = { 0, 0 };
        assert_int_equal(stats_ratio_fieller(slow_x, 5, zeros, 2, &r), 0);
        assert_false(r.have_ratio);
        assert_false(r.have_ci);
        /* a baseline mean not significantly different from 0 makes the interval unbounded */
        const double some_zero[] = { 0, 0, 0, 3 };
        assert_int_equal(stats_ratio_fieller(slow_x, 5, some_zero, 4, &r), 0);
        assert_true(r.have_ratio);
        assert_false(r.have_ci);

        cJSON *j = stats_ratio_json(&r);
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(j, "ratio")));
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ci95")));
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "excludes_one")));
        cJSON_Delete(j);

        struct stats_ratio untouched = { .ratio = 7 };
        const double bad[] = { 1, NAN };
        assert_int_equal(stats_ratio_fieller(bad, 2, slow_base, 5, &untouched), -EINVAL);
        assert_int_equal(stats_ratio_fieller(slow_x, 0, slow_base, 5, &untouched), -EINVAL);
        assert_true(untouched.ratio == 7);
}

static void test_ratio_json(void **state) {
        struct stats_ratio r;
        assert_int_equal(stats_ratio_fieller(slow_x, 5, slow_base, 5, &r), 0);
        cJSON *j = stats_ratio_json(&r);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        assert_non_null(text);
        assert_non_null(strstr(text, "\"ratio\":0.804"));
        assert_non_null(strstr(text, "\"ci95\":{\"low\":0.786"));
        assert_non_null(strstr(text, "\"excludes_one\":true"));
}

/* [1 x 9, 1000]: the mean (100.9) lies far outside the log-t interval, which belongs to the
 * geometric mean, 1000^(1/10). scipy 1.10.1: exp(mean(ln x) +- t.ppf(0.975, 9) sd(ln x) / sqrt(10))
 * = 0.4181699791706653 to 9.520223602446126. The JSON says which mean the interval is of. */
static void test_geometric_mean(void **state) {
        double x[10];
        for (int i = 0; i < 9; i++)
                x[i] = 1;
        x[9] = 1000;
        struct stats_summary s;
        assert_int_equal(stats_describe(x, 10, &s), 0);
        assert_close(s.mean, 100.9, 1e-12);
        assert_true(s.have_geometric_mean);
        assert_close(s.geometric_mean, 1.9952623149688797, 1e-12);
        assert_close(s.ci_low, 0.4181699791706653, 1e-9);
        assert_close(s.ci_high, 9.520223602446126, 1e-9);
        /* python3: statistics.variance([0.0] * 9 + [math.log(1000)]) */
        assert_close(stats_log_variance(x, 10), 4.771708299430558, 1e-12);
        assert_true(isnan(stats_log_variance(x, 1)));
        cJSON *j = stats_summary_json(&s);
        assert_close(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "geometric_mean")), 1.9952623149688797, 1e-12);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "interval_of")), "geometric_mean");
        cJSON_Delete(j);
        /* with a zero: no geometric mean, and the interval is the mean's */
        x[0] = 0;
        assert_int_equal(stats_describe(x, 10, &s), 0);
        assert_false(s.have_geometric_mean);
        j = stats_summary_json(&s);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "geometric_mean")));
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "interval_of")), "mean");
        cJSON_Delete(j);
}

/* scipy 1.10.1 stats.chi2.ppf. */
static void test_chi2_quantile(void **state) {
        assert_close(stats_chi2_quantile(0.025, 2), 0.05063561596857975, 1e-10);
        assert_close(stats_chi2_quantile(0.975, 2), 7.377758908227871, 1e-9);
        assert_close(stats_chi2_quantile(0.025, 4), 0.4844185570879299, 1e-10);
        assert_close(stats_chi2_quantile(0.975, 4), 11.143286781877796, 1e-9);
        assert_close(stats_chi2_quantile(0.025, 6), 1.2373442457912027, 1e-10);
        assert_close(stats_chi2_quantile(0.975, 10), 20.483177350807388, 1e-9);
        assert_close(stats_chi2_quantile(0.5, 1), 0.454936423119572, 1e-10);
        assert_true(isnan(stats_chi2_quantile(0, 2)) && isnan(stats_chi2_quantile(0.5, 0)));
}

/* Iterations per side for a 3% difference (delta = ln 1.03 on the log scale) with 80% power,
 * and the range over the variance's 95% interval, against the exact power of the two-sided
 * two-sample t test computed once with scipy 1.10.1 (python3-scipy): the least n with
 * nct.sf(tc, 2n-2, nc) + nct.cdf(-tc, 2n-2, nc) >= 0.8, tc = t.ppf(1 - alpha/2, 2n-2),
 * nc = delta / sqrt(2 var / n), at var and at var_df var / chi2.ppf(0.975 | 0.025, var_df). The
 * estimate iterates the t approximation, which may differ from the exact n by one. */
static void test_sample_size(void **state) {
        static const struct {
                double var, var_df, alpha;
                uint32_t low, estimate, high;
        } exact[] = {
                { 0.0001, 4, 0.05, 3, 4, 16 },
                { 0.0005, 4, 0.0125, 7, 15, 107 },
                { 0.001, 2, 0.0125, 9, 28, 1010 },
                { 0.004, 6, 0.01, 47, 109, 521 },
                { 2e-05, 10, 0.0125, 3, 3, 4 },
        };
        for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
                struct sample_size_range r;
                assert_int_equal(sample_size_range(exact[i].var, exact[i].var_df, log(1.03), exact[i].alpha, 0.8, 0.95, &r), 0);
                if (abs((int) r.low - (int) exact[i].low) > 1 || abs((int) r.estimate - (int) exact[i].estimate) > 1 ||
                    abs((int) r.high - (int) exact[i].high) > 1)
                        fail_msg("case %zu: %u %u %u, exact %u %u %u", i, r.low, r.estimate, r.high, exact[i].low,
                                 exact[i].estimate, exact[i].high);
        }
        assert_int_equal(sample_size_per_side(0, log(1.03), 0.05, 0.8), 2);
        assert_int_equal(sample_size_per_side(1e6, log(1.03), 0.05, 0.8), SAMPLE_SIZE_MAX);
        struct sample_size_range r = { 1, 2, 3 };
        assert_int_equal(sample_size_range(0.001, 0, log(1.03), 0.05, 0.8, 0.95, &r), -EINVAL);
        assert_int_equal(sample_size_range(-1, 2, log(1.03), 0.05, 0.8, 0.95, &r), -EINVAL);
        assert_true(r.low == 1 && r.estimate == 2 && r.high == 3);
}

/* Welch's interval at few iterations and unequal sides covers less than its label: marked. */
static void test_ratio_approximate(void **state) {
        static const double two[] = { 100, 104 }, four[] = { 90, 93, 91, 95 }, five[] = { 90, 93, 91, 95, 92 },
                            seven[] = { 90, 93, 91, 95, 92, 94, 90 };
        struct stats_ratio r;
        assert_int_equal(stats_ratio_log(four, 4, two, 2, 0.95, &r), 0);
        assert_true(r.approximate && r.of_geometric_means);
        assert_int_equal(stats_ratio_fieller(four, 4, two, 2, &r), 0);
        assert_true(r.approximate && !r.of_geometric_means);
        assert_int_equal(stats_ratio_log(two, 2, two, 2, 0.95, &r), 0);
        assert_false(r.approximate);
        assert_int_equal(stats_ratio_log(seven, 7, five, 5, 0.95, &r), 0);
        assert_false(r.approximate);
        assert_int_equal(stats_ratio_log(four, 4, two, 1, 0.95, &r), 0);
        assert_false(r.have_ci || r.approximate);
        assert_int_equal(stats_ratio_log(four, 4, two, 2, 0.95, &r), 0);
        cJSON *j = stats_ratio_json(&r);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "approximate")));
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "ratio_of")), "geometric_mean");
        cJSON_Delete(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_geometric_mean),
                cmocka_unit_test(test_chi2_quantile),
                cmocka_unit_test(test_sample_size),
                cmocka_unit_test(test_ratio_approximate),
                cmocka_unit_test(test_nearest_rank),
                cmocka_unit_test(test_percentile_sorted),
                cmocka_unit_test(test_t_quantile),
                cmocka_unit_test(test_describe),
                cmocka_unit_test(test_median_matches_sorting),
                cmocka_unit_test(test_select_matches_sorting),
                cmocka_unit_test(test_describe_small_and_bad),
                cmocka_unit_test(test_ratio_fieller),
                cmocka_unit_test(test_describe_positive_intervals),
                cmocka_unit_test(test_ratio_log),
                cmocka_unit_test(test_fisher),
                cmocka_unit_test(test_ratio_edges),
                cmocka_unit_test(test_ratio_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
