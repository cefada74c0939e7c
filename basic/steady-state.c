/* steady-state.c: Barrett et al.'s classification of one run's series (see steady-state.h for
 * the method): outliers by a sliding window, PELT with the normal mean-and-variance cost, then
 * the segments compared with the last. */
#include "basic/steady-state.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"

#define VARIANCE_FLOOR 1e-12

const char *steady_state_class_name(enum steady_state_class c) {
        static const char *const names[_STEADY_STATE_CLASS_MAX] = {
                [STEADY_STATE_FLAT] = "flat",
                [STEADY_STATE_WARMUP] = "warmup",
                [STEADY_STATE_SLOWDOWN] = "slowdown",
                [STEADY_STATE_NONE] = "no steady state",
        };
        return c < _STEADY_STATE_CLASS_MAX ? names[c] : "unknown";
}

void steady_state_done(struct steady_state *s) {
        free(s->segments);
        s->segments = NULL;
        s->n_segments = 0;
}

/* ---- PELT ------------------------------------------------------------------------------------ */

struct prefix {
        double *sum, *sum_sq;   /* over x[0..i) */
};

static void prefix_done(struct prefix *p) {
        free(p->sum);
        free(p->sum_sq);
}

static int prefix_make(const double *x, size_t n, struct prefix *ret) {
        struct prefix p = { .sum = malloc((n + 1) * sizeof(double)), .sum_sq = malloc((n + 1) * sizeof(double)) };
        if (!p.sum || !p.sum_sq) {
                prefix_done(&p);
                return -ENOMEM;
        }
        p.sum[0] = p.sum_sq[0] = 0;
        for (size_t i = 0; i < n; i++) {
                p.sum[i + 1] = p.sum[i] + x[i];
                p.sum_sq[i + 1] = p.sum_sq[i] + x[i] * x[i];
        }
        *ret = p;
        return 0;
}

/* The normal likelihood's cost of x[a..b) with its own mean and variance, constants dropped. */
static double segment_cost(const struct prefix *p, size_t a, size_t b) {
        double len = (double) (b - a), s = p->sum[b] - p->sum[a];
        double var = (p->sum_sq[b] - p->sum_sq[a] - s * s / len) / len;
        return len * log(var > VARIANCE_FLOOR ? var : VARIANCE_FLOOR);
}

struct pelt {
        double *best;           /* best[t]: the optimal cost of x[0..t), penalties included */
        size_t *last;           /* last[t]: where the last segment of that optimum starts */
        size_t *candidates;     /* the starts PELT has not pruned, ascending */
        size_t n_candidates;
};

static void pelt_done(struct pelt *p) {
        free(p->best);
        free(p->last);
        free(p->candidates);
}

/* One step of PELT: best[t] over the candidates, then the candidates dropped that can never be
 * the last start of an optimum again. Killick et al.'s condition (K = 0 for a likelihood cost)
 * at an earlier end u, F(s) + C(s, u) > F(u), rules s out for every end from u + min on, where
 * a segment can begin at u: so it is tested at u = t + 1 - min, ready for the next step. */
static void pelt_step(struct pelt *p, const struct prefix *pre, size_t t, double penalty) {
        const size_t min = STEADY_STATE_MIN_SEGMENT;
        double best = INFINITY;
        size_t at = 0;
        for (size_t k = 0; k < p->n_candidates; k++) {
                size_t s = p->candidates[k];
                double c = p->best[s] + segment_cost(pre, s, t) + penalty;
                if (c < best) {
                        best = c;
                        at = s;
                }
        }
        p->best[t] = best;
        p->last[t] = at;
        size_t u = t + 1 - min, kept = 0;
        for (size_t k = 0; k < p->n_candidates; k++) {
                size_t s = p->candidates[k];
                if (u < s + min || !isfinite(p->best[u]) || p->best[s] + segment_cost(pre, s, u) <= p->best[u])
                        p->candidates[kept++] = s;
        }
        p->n_candidates = kept;
}

/* The segmentations' common refusal: a series with a value that is not finite, or no penalty. */
static bool segmentation_input_valid(const double *x, size_t n, double penalty) {
        if ((n > 0 && !x) || !isfinite(penalty))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isfinite(x[i]))
                        return false;
        return true;
}

int steady_state_pelt(const double *x, size_t n, double penalty, size_t **ret, size_t *ret_n) {
        const size_t min = STEADY_STATE_MIN_SEGMENT;
        if (!segmentation_input_valid(x, n, penalty))
                return -EINVAL;
        _cleanup_(prefix_done) struct prefix pre = { 0 };
        _cleanup_(pelt_done) struct pelt p = {
                .best = malloc((n + 1) * sizeof(double)),
                .last = calloc(n + 1, sizeof(size_t)),
                .candidates = malloc((n + 1) * sizeof(size_t)),
        };
        if (prefix_make(x, n, &pre) < 0 || !p.best || !p.last || !p.candidates)
                return -ENOMEM;
        p.best[0] = -penalty;
        for (size_t t = 1; t <= n; t++)
                p.best[t] = INFINITY;
        /* A start s is a candidate from t = s + min on, once a segment from it is long enough. */
        for (size_t t = min; t <= n; t++) {
                size_t s = t - min;
                if (s == 0 || s >= min)
                        p.candidates[p.n_candidates++] = s;
                pelt_step(&p, &pre, t, penalty);
        }
        size_t count = 0;
        for (size_t t = n; n >= min && p.last[t] > 0; t = p.last[t])
                count++;
        size_t *cpts = malloc((count ? count : 1) * sizeof(size_t));
        if (!cpts)
                return -ENOMEM;
        size_t k = count;
        for (size_t t = n; n >= min && p.last[t] > 0; t = p.last[t])
                cpts[--k] = p.last[t];
        *ret = cpts;
        *ret_n = count;
        return 0;
}

/* ---- binary segmentation, for long series --------------------------------------------------- */

static int compare_size(const void *a, const void *b) {
        size_t x = *(const size_t *) a, y = *(const size_t *) b;
        return x < y ? -1 : x > y;
}

/* Binary segmentation (Scott and Knott 1974; the changepoint package's BinSeg) with the same
 * cost and penalty: a segment is split where the cost falls most, when it falls by more than
 * the penalty, and each half is searched again. O(n log n); PELT's optimum is exact but costs
 * O(n^2) on a series with few changes, which a day of 1 s intervals would be. */
static int binary_segmentation(const struct prefix *pre, size_t n, double penalty, size_t **ret, size_t *ret_n) {
        const size_t min = STEADY_STATE_MIN_SEGMENT;
        _cleanup_free_ size_t *stack = malloc(2 * (n + 1) * sizeof(size_t)), *cpts = malloc((n + 1) * sizeof(size_t));
        if (!stack || !cpts)
                return -ENOMEM;
        size_t depth = 0, count = 0;
        stack[depth++] = 0;
        stack[depth++] = n;
        while (depth > 0) {
                size_t b = stack[--depth], a = stack[--depth];
                if (b - a < 2 * min)
                        continue;
                double whole = segment_cost(pre, a, b), gain = -INFINITY;
                size_t at = 0;
                for (size_t t = a + min; t + min <= b; t++) {
                        double g = whole - segment_cost(pre, a, t) - segment_cost(pre, t, b);
                        if (g > gain) {
                                gain = g;
                                at = t;
                        }
                }
                if (!(gain > penalty))
                        continue;
                cpts[count++] = at;
                stack[depth++] = a;
                stack[depth++] = at;
                stack[depth++] = at;
                stack[depth++] = b;
        }
        qsort(cpts, count, sizeof *cpts, compare_size);
        *ret = TAKE_PTR(cpts);
        *ret_n = count;
        return 0;
}

int steady_state_binseg(const double *x, size_t n, double penalty, size_t **ret, size_t *ret_n) {
        if (!segmentation_input_valid(x, n, penalty))
                return -EINVAL;
        _cleanup_(prefix_done) struct prefix pre = { 0 };
        if (prefix_make(x, n, &pre) < 0)
                return -ENOMEM;
        return binary_segmentation(&pre, n, penalty, ret, ret_n);
}

int steady_state_segment(const double *x, size_t n, double penalty, size_t **ret, size_t *ret_n) {
        return n <= STEADY_STATE_PELT_MAX ? steady_state_pelt(x, n, penalty, ret, ret_n)
                                          : steady_state_binseg(x, n, penalty, ret, ret_n);
}

/* ---- outliers -------------------------------------------------------------------------------- */

/* The pc-th percentile of sorted[0..len), interpolated between ranks. */
static double percentile_sorted(const double *sorted, size_t len, double pc) {
        double at = (double) (len - 1) * pc / 100;
        size_t lo = (size_t) floor(at), hi = (size_t) ceil(at);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - (double) lo);
}

static size_t lower_bound(const double *sorted, size_t len, double v) {
        size_t lo = 0, hi = len;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sorted[mid] < v)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static void window_insert(double *sorted, size_t *len, double v) {
        size_t at = lower_bound(sorted, *len, v);
        memmove(sorted + at + 1, sorted + at, (*len - at) * sizeof *sorted);
        sorted[at] = v;
        (*len)++;
}

static void window_remove(double *sorted, size_t *len, double v) {
        size_t at = lower_bound(sorted, *len, v);
        memmove(sorted + at, sorted + at + 1, (*len - at - 1) * sizeof *sorted);
        (*len)--;
}

int steady_state_outliers(const double *x, size_t n, size_t window, bool *outlier) {
        size_t half = window / 2, len = 0, lo = 0, hi = 0;
        _cleanup_free_ double *sorted = malloc((window + 2) * sizeof(double));
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                size_t want_lo = i > half ? i - half : 0, want_hi = MIN(n, i + half);
                for (; hi < want_hi; hi++)
                        window_insert(sorted, &len, x[hi]);
                for (; lo < want_lo; lo++)
                        window_remove(sorted, &len, x[lo]);
                outlier[i] = false;
                /* A window the series' start cuts short is warmup, never an outlier. */
                if ((want_lo == 0 && want_hi < window) || len == 0)
                        continue;
                double median = percentile_sorted(sorted, len, 50);
                double band = 3 * (percentile_sorted(sorted, len, 90) - percentile_sorted(sorted, len, 10));
                outlier[i] = x[i] > median + band || x[i] < median - band;
        }
        return 0;
}

/* ---- classification -------------------------------------------------------------------------- */

/* Mean and variance (maximum likelihood, as PELT's) of the values of x[a..b) not flagged. */
static void moments(const double *x, const bool *outlier, size_t a, size_t b, double *ret_mean, double *ret_var) {
        double sum = 0, sq = 0, count = 0;
        for (size_t i = a; i < b; i++)
                if (!outlier[i]) {
                        sum += x[i];
                        count++;
                }
        double mean = count > 0 ? sum / count : NAN;
        for (size_t i = a; i < b; i++)
                if (!outlier[i])
                        sq += (x[i] - mean) * (x[i] - mean);
        *ret_mean = mean;
        *ret_var = count > 0 ? sq / count : NAN;
}

/* The segments of x between the changepoints of its kept values, back in x's indices. */
static int segments_make(const double *x, size_t n, const bool *outlier, const size_t *kept, const size_t *cpts,
                         size_t n_cpts, struct steady_state_segment **ret) {
        struct steady_state_segment *seg = calloc(n_cpts + 1, sizeof *seg);
        if (!seg)
                return -ENOMEM;
        for (size_t k = 0; k <= n_cpts; k++) {
                seg[k].start = k == 0 ? 0 : kept[cpts[k - 1]];
                seg[k].end = k == n_cpts ? n : kept[cpts[k]];
                moments(x, outlier, seg[k].start, seg[k].end, &seg[k].mean, &seg[k].variance);
        }
        *ret = seg;
        return 0;
}

/* Going back from the last segment, as steady-state.h says. */
static void classify(struct steady_state *s, size_t n, bool higher_is_faster, double delta) {
        const struct steady_state_segment *last = &s->segments[s->n_segments - 1];
        double unit = last->mean, last_var = last->variance / (unit * unit);
        double lower = MIN(1 - last_var, 1 - delta), upper = MAX(1 + last_var, 1 + delta);
        size_t steady_first = s->n_segments - 1, tail_start = n - n / 4;
        bool in_run = true;
        s->class = STEADY_STATE_FLAT;
        for (size_t k = s->n_segments - 1; k-- > 0;) {
                const struct steady_state_segment *g = &s->segments[k];
                double mean = g->mean / unit, var = g->variance / (unit * unit);
                if (mean + var >= lower && mean - var <= upper) {
                        if (in_run)
                                steady_first = k;
                        continue;
                }
                in_run = false;
                if (g->end > tail_start) {
                        s->class = STEADY_STATE_NONE;
                        break;
                }
                bool faster = higher_is_faster ? mean + var > upper : mean - var < lower;
                if (faster) {
                        s->class = STEADY_STATE_SLOWDOWN;
                        break;
                }
                s->class = STEADY_STATE_WARMUP;
        }
        s->have_steady = s->class != STEADY_STATE_NONE;
        s->steady_start = s->have_steady ? s->segments[steady_first].start : 0;
}

int steady_state_classify(const double *x, size_t n, bool higher_is_faster, double delta, struct steady_state *ret) {
        if (n == 0 || !x)
                return -EINVAL;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
                if (!isfinite(x[i]) || x[i] <= 0)
                        return -EINVAL;
                sum += x[i];
        }
        if (!(delta > 0))
                delta = STEADY_STATE_DELTA_DEFAULT;
        size_t window = n >= 10 * STEADY_STATE_OUTLIER_WINDOW ? STEADY_STATE_OUTLIER_WINDOW : MAX((size_t) 10, n / 10);
        _cleanup_free_ bool *outlier = malloc(n * sizeof(bool));
        _cleanup_free_ size_t *kept = malloc(n * sizeof(size_t)), *cpts = NULL;
        _cleanup_free_ double *y = malloc(n * sizeof(double));
        if (!outlier || !kept || !y || steady_state_outliers(x, n, window, outlier) < 0)
                return -ENOMEM;
        /* Divided by the mean: PELT's cost then sees the same numbers whatever the units. */
        double mean = sum / (double) n;
        size_t n_kept = 0, n_cpts = 0;
        for (size_t i = 0; i < n; i++)
                if (!outlier[i]) {
                        kept[n_kept] = i;
                        y[n_kept++] = x[i] / mean;
                }
        int r = steady_state_segment(y, n_kept, STEADY_STATE_PENALTY_FACTOR * log((double) n_kept), &cpts, &n_cpts);
        if (r < 0)
                return r;
        struct steady_state s = { .n_outliers = n - n_kept, .n_segments = n_cpts + 1 };
        if ((r = segments_make(x, n, outlier, kept, cpts, n_cpts, &s.segments)) < 0)
                return r;
        classify(&s, n, higher_is_faster, delta);
        if (s.have_steady)
                moments(x, outlier, s.steady_start, n, &s.steady_mean, &s.steady_variance);
        *ret = s;
        return 0;
}
