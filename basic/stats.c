/* stats.c: percentiles, descriptive statistics, Student t quantiles and ratio intervals for
 * run metrics and experiment reports. Definitions are in stats.h. */
#include "basic/stats.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"

/* ---- percentiles ---- */

/* p in units of 1e-6 of the population; with it the rank is exact integer arithmetic. */
#define RANK_SCALE UINT64_C(1000000)

size_t stats_nearest_rank(size_t n, double p) {
        if (n == 0)
                return 0;
        if (!(p > 0)) /* also NaN */
                return 1;
        if (p >= 100)
                return n;
        uint64_t micro = (uint64_t) llround(p * 1e4);
        /* ceil(micro * n / SCALE) without overflow, splitting n = q * SCALE + rem */
        uint64_t q = n / RANK_SCALE, rem = n % RANK_SCALE;
        uint64_t rank = micro * q + (micro * rem + RANK_SCALE - 1) / RANK_SCALE;
        return (size_t) MAX(rank, UINT64_C(1));
}

double stats_percentile_sorted(const double *sorted, size_t n, double p) {
        return n == 0 ? NAN : sorted[stats_nearest_rank(n, p) - 1];
}

int64_t stats_percentile_sorted_i64(const int64_t *sorted, size_t n, double p) {
        return n == 0 ? INT64_MIN : sorted[stats_nearest_rank(n, p) - 1];
}

/* In-place selection (quickselect, Hoare partition): afterwards v[k] holds the k-th smallest
 * (0-based), smaller-or-equal values before it and larger-or-equal after; O(n) on average, and no
 * allocation, unlike qsort(). One body for the double and the int64 arrays. */
#define DEFINE_SELECT(name, type)                                                                       \
        static void name(type *v, size_t n, size_t k) {                                                 \
                size_t lo = 0, hi = n - 1;                                                              \
                while (lo < hi) {                                                                       \
                        /* median of three as pivot keeps sorted and reversed inputs linear */          \
                        type a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];                           \
                        type pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)); \
                        size_t i = lo, j = hi;                                                          \
                        while (i <= j) {                                                                \
                                while (v[i] < pivot)                                                    \
                                        i++;                                                            \
                                while (v[j] > pivot)                                                    \
                                        j--;                                                            \
                                if (i <= j) {                                                           \
                                        type t = v[i];                                                  \
                                        v[i] = v[j];                                                    \
                                        v[j] = t;                                                       \
                                        i++;                                                            \
                                        if (j == 0)                                                     \
                                                break;                                                  \
                                        j--;                                                            \
                                }                                                                       \
                        }                                                                               \
                        /* now v[lo..j] <= pivot <= v[i..hi], and j < i */                              \
                        if (k <= j)                                                                     \
                                hi = j;                                                                 \
                        else if (k >= i)                                                                \
                                lo = i;                                                                 \
                        else                                                                            \
                                return;                                                                 \
                }                                                                                       \
        }

DEFINE_SELECT(select_kth, double)
DEFINE_SELECT(select_kth_i64, int64_t)

static double max_of(const double *v, size_t n) {
        double m = v[0];
        for (size_t i = 1; i < n; i++)
                m = MAX(m, v[i]);
        return m;
}

/* ---- Student t and normal quantiles ---- */

#define TINY 1e-300

/* One step of the modified Lentz method for a continued fraction b0 + a1/(b1 + a2/(b2 + ...)):
 * updates its c and d (start: c = b0, or 1/TINY for b0 = 0; d = 0) and returns the factor the
 * value so far is multiplied by. */
static double lentz_step(double a, double b, double *c, double *d) {
        *d = b + a * *d;
        if (fabs(*d) < TINY)
                *d = TINY;
        *c = b + a / *c;
        if (fabs(*c) < TINY)
                *c = TINY;
        *d = 1 / *d;
        return *c * *d;
}

/* Continued fraction of the regularized incomplete beta function (DLMF 8.17.22), evaluated
 * with the modified Lentz method: returns 1 + d1/(1 + d2/(1 + ...)). Converges quickly for
 * x < (a + 1) / (a + b + 2). */
static double ibeta_fraction(double a, double b, double x) {
        double f = 1, c = 1, d = 0;
        for (int m = 1; m <= 100000; m++) {
                int k = m / 2;
                double dm = (m % 2)
                        ? -(a + k) * (a + b + k) * x / ((a + 2 * k) * (a + 2 * k + 1))
                        : k * (b - k) * x / ((a + 2 * k - 1) * (a + 2 * k));
                double delta = lentz_step(dm, 1, &c, &d);
                f *= delta;
                if (fabs(delta - 1) < 1e-15)
                        break;
        }
        return f;
}

/* Regularized incomplete beta I_x(a, b); y = 1 - x is passed separately because callers can
 * compute it without cancellation. */
static double ibeta(double a, double b, double x, double y) {
        if (x <= 0)
                return 0;
        if (y <= 0)
                return 1;
        double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y);
        if (x < (a + 1) / (a + b + 2))
                return exp(lfront) / (a * ibeta_fraction(a, b, x));
        return 1 - exp(lfront) / (b * ibeta_fraction(b, a, y));
}

/* P(T > t) for t >= 0: I_{df/(df+t^2)}(df/2, 1/2) / 2. */
static double t_upper_tail(double t, double df) {
        double t2 = t * t;
        return 0.5 * ibeta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

static double normal_upper_tail(double z, double unused) {
        return 0.5 * erfc(z / M_SQRT2);
}

/* The x >= 0 with tail(x) = q for a decreasing tail function with tail(0) > q: bracket by
 * doubling, then bisect to the resolution of doubles. Not fast, but exact enough and robust for
 * any df; quantiles are computed a few times per report. */
static double solve_upper_tail(double (*tail)(double, double), double param, double q) {
        double lo = 0, hi = 1;
        while (tail(hi, param) > q) {
                lo = hi;
                hi *= 2;
                if (hi > 1e300)
                        return INFINITY;
        }
        for (int i = 0; i < 2000 && hi - lo > 4 * DBL_EPSILON * hi; i++) {
                double mid = lo + (hi - lo) / 2;
                if (tail(mid, param) > q)
                        lo = mid;
                else
                        hi = mid;
        }
        return lo + (hi - lo) / 2;
}

double stats_normal_quantile(double p) {
        if (!(p > 0 && p < 1))
                return NAN;
        if (p < 0.5)
                return -solve_upper_tail(normal_upper_tail, 0, p);
        return solve_upper_tail(normal_upper_tail, 0, 1 - p);
}

static double t_quantile_solve(double p, double df) {
        if (!(p > 0 && p < 1) || !(df > 0))
                return NAN;
        if (p < 0.5)
                return -t_quantile_solve(1 - p, df);
        if (p == 0.5)
                return 0;
        if (df > 1e6) {
                /* Cornish-Fisher expansion in 1/df around the normal quantile: its next term is
                 * below 1e-17 here, and the continued fraction would need thousands of steps. */
                double z = stats_normal_quantile(p), z3 = z * z * z, z5 = z3 * z * z;
                return isinf(df) ? z : z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
        }
        return solve_upper_tail(t_upper_tail, df, 1 - p);
}

double stats_t_quantile(double p, double df) {
        /* The bisection costs some 60 incomplete beta functions, and callers ask the same
         * question over and over (a series' 1000 experiments of 3 runs each: df 2, p 0.975), so
         * each thread keeps its last answer. */
        static _Thread_local double last_p = NAN, last_df = NAN, last_q = NAN;
        if (p == last_p && df == last_df)
                return last_q;
        double q = t_quantile_solve(p, df);
        last_p = p;
        last_df = df;
        last_q = q;
        return q;
}

/* ---- chi-square quantiles ---- */

/* Regularized upper incomplete gamma Q(a, x) for a > 0, x >= 0: 1 less the series of P(a, x)
 * below a + 1, else its continued fraction (DLMF 8.7.1 and 8.9.2, modified Lentz). */
static double gamma_upper(double a, double x) {
        if (x <= 0)
                return 1;
        double lfront = a * log(x) - x - lgamma(a);
        if (x < a + 1) {
                double term = 1 / a, sum = term;
                for (int k = 1; k < 100000 && fabs(term) > fabs(sum) * 1e-16; k++) {
                        term *= x / (a + k);
                        sum += term;
                }
                return 1 - exp(lfront) * sum;
        }
        /* 0 + a1/(b1 + a2/(b2 + ...)): a1 = 1, a(i+1) = -i (i - a), b(i+1) = x + 2i + 1 - a; b0 = 0
         * starts Lentz at TINY */
        double b = x + 1 - a, c = TINY, d = 0, f = TINY;
        for (int i = 0; i < 100000; i++) {
                double an = i == 0 ? 1 : -i * (i - a);
                double delta = lentz_step(an, b + 2 * i, &c, &d);
                f *= delta;
                if (fabs(delta - 1) < 1e-15)
                        break;
        }
        return exp(lfront) * f;
}

/* P(X > x) for X chi-square with df degrees of freedom. */
static double chi2_upper_tail(double x, double df) {
        return gamma_upper(df / 2, x / 2);
}

double stats_chi2_quantile(double p, double df) {
        if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
                return NAN;
        return solve_upper_tail(chi2_upper_tail, df, 1 - p);
}

/* ---- descriptive statistics ---- */

static bool all_finite(const double *x, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!isfinite(x[i]))
                        return false;
        return true;
}

/* Two-pass mean: the second pass corrects the rounding error of the first. */
static double mean_of(const double *x, size_t n) {
        double s = 0, c = 0;
        for (size_t i = 0; i < n; i++)
                s += x[i];
        double m = s / (double) n;
        for (size_t i = 0; i < n; i++)
                c += x[i] - m;
        return m + c / (double) n;
}

/* Sample variance (divisor n - 1) around a known mean; n >= 2. */
static double variance_of(const double *x, size_t n, double mean) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
                ss += (x[i] - mean) * (x[i] - mean);
        return ss / (double) (n - 1);
}

static double median_of(double *scratch, size_t n) {
        size_t k = n / 2;
        select_kth(scratch, n, k);
        if (n % 2)
                return scratch[k];
        /* the other middle value is the largest of the lower half */
        return (max_of(scratch, k) + scratch[k]) / 2;
}

static bool all_positive(const double *x, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!(x[i] > 0))
                        return false;
        return true;
}

static const char *ci_method_of(const double *x, size_t n) {
        if (all_positive(x, n))
                return "log-t";
        for (size_t i = 0; i < n; i++)
                if (x[i] < 0)
                        return "t";
        return "t-clamped";
}

/* Mean and sample variance (0 for n < 2) of ln(x / x[0]); every x > 0. Relative to the first
 * value, so that the geometric mean x[0] * exp(mean) of equal values is that value exactly. */
static void log_moments(const double *x, size_t n, double *ret_mean, double *ret_var) {
        double m = 0, ss = 0;
        for (size_t i = 0; i < n; i++)
                m += log(x[i] / x[0]);
        m /= (double) n;
        for (size_t i = 0; i < n; i++)
                ss += (log(x[i] / x[0]) - m) * (log(x[i] / x[0]) - m);
        *ret_mean = m;
        *ret_var = n >= 2 ? ss / (double) (n - 1) : 0;
}

double stats_log_variance(const double *x, size_t n) {
        if (n < 2 || !all_positive(x, n))
                return NAN;
        double m, v;
        log_moments(x, n, &m, &v);
        return v;
}

/* The 95% interval by the method the values call for (stats.h); n >= 2, stddev known. */
static void summary_ci(const double *x, size_t n, struct stats_summary *s) {
        double t = stats_t_quantile(0.975, (double) (n - 1));
        s->ci_method = ci_method_of(x, n);
        if (strcmp(s->ci_method, "log-t") == 0) {
                double ml, vl;
                log_moments(x, n, &ml, &vl);
                double half = t * sqrt(vl / (double) n);
                s->ci_low = s->geometric_mean * exp(-half);
                s->ci_high = s->geometric_mean * exp(half);
                return;
        }
        double half = t * s->stddev / sqrt((double) n);
        s->ci_low = s->mean - half;
        s->ci_high = s->mean + half;
        if (strcmp(s->ci_method, "t-clamped") == 0)
                s->ci_low = MAX(s->ci_low, 0.0);
}

int stats_describe(const double *x, size_t n, struct stats_summary *ret) {
        if (n == 0 || !all_finite(x, n))
                return -EINVAL;
        _cleanup_free_ double *scratch = malloc(n * sizeof(double));
        if (!scratch)
                return -ENOMEM;
        memcpy(scratch, x, n * sizeof(double));

        struct stats_summary s = { .n = n, .mean = mean_of(x, n), .min = x[0], .max = x[0] };
        for (size_t i = 1; i < n; i++) {
                s.min = MIN(s.min, x[i]);
                s.max = MAX(s.max, x[i]);
        }
        s.median = median_of(scratch, n);
        if (all_positive(x, n)) {
                double ml, vl;
                log_moments(x, n, &ml, &vl);
                s.have_geometric_mean = true;
                s.geometric_mean = x[0] * exp(ml);
        }
        if (n >= 2) {
                s.have_stddev = true;
                s.stddev = sqrt(variance_of(x, n, s.mean));
                if (s.mean != 0) {
                        s.have_cov = true;
                        s.cov = s.stddev / s.mean;
                }
                s.have_ci = true;
                summary_ci(x, n, &s);
        }
        s.ci_method = s.ci_method ? s.ci_method : ci_method_of(x, n);
        *ret = s;
        return 0;
}

/* ---- ratio of means ---- */

static void ratio_set_ci(struct stats_ratio *r, double lo, double hi) {
        r->have_ci = true;
        r->ci_low = lo;
        r->ci_high = hi;
        r->excludes_one = lo > 1 || hi < 1;
}

/* Welch's interval holds its level at equal sizes, but covers less when a side has few values
 * and the sizes differ (about 0.90 for a 95% label at 2 vs 10, by simulation). */
static void ratio_mark_approximate(struct stats_ratio *r, size_t nx, size_t nbase) {
        r->approximate = r->have_ci && (nx < STATS_EXACT_MIN_N || nbase < STATS_EXACT_MIN_N) && nx != nbase;
}

/* The two sides of a ratio and their means, as the interval methods see them. */
struct ratio_sides {
        const double *x, *base;
        size_t nx, nbase;
        double mx, mb;
};

static void fieller_ci(const struct ratio_sides *s, struct stats_ratio *r);

/* The checks, the point estimate, and an interval when one is worth computing at all (a ratio,
 * and n >= 2 on both sides). */
static int ratio_estimate(const double *x, size_t nx, const double *base, size_t nbase,
                          struct stats_ratio *ret) {
        if (nx == 0 || nbase == 0 || !all_finite(x, nx) || !all_finite(base, nbase))
                return -EINVAL;
        struct ratio_sides s = {
                .x = x, .base = base, .nx = nx, .nbase = nbase, .mx = mean_of(x, nx), .mb = mean_of(base, nbase),
        };
        struct stats_ratio r = { 0 };
        if (s.mb != 0) {
                r.have_ratio = true;
                r.ratio = s.mx / s.mb;
        }
        if (r.have_ratio && nx >= 2 && nbase >= 2)
                fieller_ci(&s, &r);
        ratio_mark_approximate(&r, nx, nbase);
        *ret = r;
        return 0;
}

static void fieller_ci(const struct ratio_sides *s, struct stats_ratio *r) {
        double mx = s->mx, mb = s->mb;
        size_t nx = s->nx, nbase = s->nbase;
        /* variances of the two means */
        double vx = variance_of(s->x, nx, mx) / (double) nx;
        double vb = variance_of(s->base, nbase, mb) / (double) nbase;
        /* Welch-Satterthwaite df for Var(mean(x) - ratio * mean(baseline)) */
        double wx = vx, wb = r->ratio * r->ratio * vb;
        double den = wx * wx / (double) (nx - 1) + wb * wb / (double) (nbase - 1);
        double df = den > 0 ? (wx + wb) * (wx + wb) / den : (double) (nx + nbase - 2);
        double t = stats_t_quantile(0.975, df), t2 = t * t;
        /* roots of (mx - q mb)^2 = t^2 (vx + q^2 vb) */
        double a = mb * mb - t2 * vb;
        double disc = t2 * (vx * mb * mb + vb * mx * mx - t2 * vx * vb);
        if (a > 0 && disc >= 0) {
                double sq = sqrt(disc);
                ratio_set_ci(r, (mx * mb - sq) / a, (mx * mb + sq) / a);
        }
}

int stats_ratio_fieller(const double *x, size_t nx, const double *baseline, size_t nbase,
                        struct stats_ratio *ret) {
        return ratio_estimate(x, nx, baseline, nbase, ret);
}

int stats_ratio_log(const double *x, size_t nx, const double *baseline, size_t nbase, double confidence,
                    struct stats_ratio *ret) {
        if (nx == 0 || nbase == 0 || !all_finite(x, nx) || !all_finite(baseline, nbase) ||
            !(confidence > 0 && confidence < 1))
                return -EINVAL;
        if (!all_positive(x, nx) || !all_positive(baseline, nbase))
                return -EDOM;
        double mx, mb, vx, vb;
        log_moments(x, nx, &mx, &vx);
        log_moments(baseline, nbase, &mb, &vb);
        /* GM(x) / GM(baseline), anchored at the first values (see log_moments) */
        double q = x[0] / baseline[0] * exp(mx - mb);
        struct stats_ratio r = { .have_ratio = true, .ratio = q, .of_geometric_means = true };
        if (nx >= 2 && nbase >= 2) {
                double wx = vx / (double) nx, wb = vb / (double) nbase;
                double den = wx * wx / (double) (nx - 1) + wb * wb / (double) (nbase - 1);
                double df = den > 0 ? (wx + wb) * (wx + wb) / den : (double) (nx + nbase - 2);
                double half = stats_t_quantile(0.5 + confidence / 2, df) * sqrt(wx + wb);
                ratio_set_ci(&r, q * exp(-half), q * exp(half));
        }
        ratio_mark_approximate(&r, nx, nbase);
        *ret = r;
        return 0;
}

int stats_ratio_best(const double *x, size_t nx, const double *baseline, size_t nbase, struct stats_ratio *ret,
                     const char **ret_method) {
        int r = stats_ratio_log(x, nx, baseline, nbase, 0.95, ret);
        if (r != -EDOM) {
                if (r >= 0)
                        *ret_method = "log-welch";
                return r;
        }
        r = stats_ratio_fieller(x, nx, baseline, nbase, ret);
        if (r >= 0)
                *ret_method = "fieller";
        return r;
}

/* ---- proportions ---- */

static double log_choose(uint64_t n, uint64_t k) {
        return lgamma((double) n + 1) - lgamma((double) k + 1) - lgamma((double) (n - k) + 1);
}

double stats_fisher_greater(uint64_t a, uint64_t na, uint64_t b, uint64_t nb) {
        if (a > na || b > nb || na == 0 || nb == 0 || (double) a / (double) na <= (double) b / (double) nb)
                return 1;
        uint64_t k = a + b, n = na + nb, hi = MIN(k, na);
        double p = 0, denom = log_choose(n, na);
        for (uint64_t x = a; x <= hi; x++)
                if (k - x <= nb)
                        p += exp(log_choose(k, x) + log_choose(n - k, na - x) - denom);
        return MIN(p, 1.0);
}

/* ---- JSON ---- */

static void add_interval(cJSON *obj, bool have, double lo, double hi) {
        if (!have) {
                cJSON_AddNullToObject(obj, "ci95");
                return;
        }
        cJSON *ci = cJSON_AddObjectToObject(obj, "ci95");
        cJSON_AddNumberToObject(ci, "low", lo);
        cJSON_AddNumberToObject(ci, "high", hi);
}

cJSON *stats_summary_json(const struct stats_summary *s) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", (double) s->n);
        cJSON_AddNumberToObject(o, "mean", s->mean);
        cJSON_AddNumberToObject(o, "median", s->median);
        json_add_number_or_null(o, "geometric_mean", s->have_geometric_mean, s->geometric_mean);
        json_add_number_or_null(o, "stddev", s->have_stddev, s->stddev);
        json_add_number_or_null(o, "cov", s->have_cov, s->cov);
        cJSON_AddNumberToObject(o, "min", s->min);
        cJSON_AddNumberToObject(o, "max", s->max);
        add_interval(o, s->have_ci, s->ci_low, s->ci_high);
        const char *method = s->ci_method ? s->ci_method : "t";
        cJSON_AddStringToObject(o, "method", method);
        cJSON_AddStringToObject(o, "interval_of", strcmp(method, "log-t") == 0 ? "geometric_mean" : "mean");
        return o;
}

cJSON *stats_ratio_json(const struct stats_ratio *ratio) {
        cJSON *o = cJSON_CreateObject();
        json_add_number_or_null(o, "ratio", ratio->have_ratio, ratio->ratio);
        cJSON_AddStringToObject(o, "ratio_of", ratio->of_geometric_means ? "geometric_mean" : "mean");
        add_interval(o, ratio->have_ci, ratio->ci_low, ratio->ci_high);
        if (ratio->have_ci) {
                cJSON_AddBoolToObject(o, "excludes_one", ratio->excludes_one);
                cJSON_AddBoolToObject(o, "approximate", ratio->approximate);
        } else {
                cJSON_AddNullToObject(o, "excludes_one");
                cJSON_AddNullToObject(o, "approximate");
        }
        return o;
}

int64_t stats_select_i64(int64_t *v, size_t n, size_t k) {
        select_kth_i64(v, n, k);
        return v[k];
}
