/* change-points.c: E-Divisive means with a permutation test over one series (see
 * change-points.h for the method). A segment's every (tau, kappa) is scanned in O(len^2) time and
 * O(len) memory: kappa by kappa, from one prefix sum of distances each, instead of a distance
 * matrix (8 MB for 1000 values, which would not stay in cache, where the rows' sums stay in L1), in
 * one pass per row, four values at a time. */
#include "basic/change-points.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/random.h"
#include "basic/stats.h"

struct search;
typedef double scan_row_fn(const struct search *s, size_t k, size_t min, const double *cur, double *nxt,
                           double *ret_num);

/* Working memory of one search, sized for the whole series. */
struct search {
        const double *x;
        size_t n;
        const struct change_points_params *p;
        size_t *order;          /* the arrangement scanned: original indices */
        double *y;              /* one segment's values in that arrangement, and a slot for row len */
        double *within_x;       /* within_x[t]: the sum over the pairs of y[0..t) */
        double *within_x_term;  /* 2 * within_x[t] / (t - 1): X's term of Q's numerator but for n */
        double *between[2];     /* between[.][t]: the sum of |a - b| over a in y[0..t), b in y[t..k],
                                 * for row k-1 and row k */
        double *two_over_rev;   /* two_over_rev[i] = 2 / (n - i): backwards, so that a row's
                                 * 2 / (|Y| - 1) is contiguous in t */
        size_t *bounds;         /* segment starts, ascending, then n */
        size_t n_bounds;
        uint64_t rng;
        scan_row_fn *scan_row;  /* scan_row_plain or the version for this CPU */
};

/* Four doubles at a time: AVX2 where the CPU has it (one version of the row scan compiled for
 * it, chosen at run time), two SSE2 or NEON operations or plain code elsewhere. Each lane does
 * the scalar code's operations in the scalar code's order, so on x86-64 (no fused multiply-add
 * in either version) the sums, Q and every comparison are the same bits as one value at a time;
 * row_argmax() finds a row's t from the scalar numerators alone, so it needs no more than that. */
typedef double vec4 __attribute__((vector_size(32)));
typedef int64_t vec4_bits __attribute__((vector_size(32)));

/* Values of these types pass only between always-inlined helpers: by pointer as arguments (GCC
 * notes a vector argument as an ABI change even when the call is inlined) and as return values,
 * whose warning (their ABI without AVX) concerns calls that are never made. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define VEC_INLINE static inline __attribute__((always_inline))

VEC_INLINE vec4 load4(const double *p) {
        vec4 v;
        memcpy(&v, p, sizeof v);
        return v;
}

VEC_INLINE vec4 splat4(double a) {
        return (vec4){ a, a, a, a };
}

/* *acc = the larger of *acc and *v, lane by lane, written so that compilers make it one max
 * instruction. */
VEC_INLINE void raise4(vec4 *acc, const vec4 *v) {
        for (int i = 0; i < 4; i++)
                (*acc)[i] = (*v)[i] > (*acc)[i] ? (*v)[i] : (*acc)[i];
}

/* 0, v[0], 0, v[2]: one unpack instruction, where building it lane by lane took four. */
VEC_INLINE vec4 low_lanes_up(const vec4 *v) {
        const vec4 zero = { 0, 0, 0, 0 };
#ifdef __clang__
        return __builtin_shufflevector(zero, *v, 0, 4, 2, 6);
#else
        return __builtin_shuffle(zero, *v, (vec4_bits){ 0, 4, 2, 6 });
#endif
}

static inline double two_over(const struct search *s, size_t j) {
        return s->two_over_rev[s->n - j];
}

/* The numerator of Q for X = y[0..t) and Y = y[t..k), from row k-1's between sums b (total is
 * the whole of y[0..k)'s within sum). */
static inline double split_numerator(const struct search *s, const double *b, size_t k, double total, size_t t) {
        double m = (double) t, n = (double) (k - t);
        double wy = total - s->within_x[t] - b[t];
        return 2 * b[t] - n * s->within_x_term[t] - m * wy * two_over(s, k - 1 - t);
}

/* Row k in one pass over t: from cur, row k-1's between sums (Y = y[t..k)), the largest
 * numerator over t in [min, k - min] (-INFINITY for none) in *ret_num; and y[k] added to Y for
 * every t: nxt[t] = cur[t] + the distances of y[k] to y[0..t), a prefix sum, for t in 1..k.
 * Returns the last of those, y[k]'s distances to all of y[0..k). The prefix sum goes four at a
 * time so that its chain of dependent additions is one per four values; the numerators, which
 * do not depend on it, fill the time that chain waits. */
VEC_INLINE double scan_row(const struct search *s, size_t k, size_t min, const double *cur, double *nxt,
                           double *ret_num) {
        /* Locals, not s's fields: the stores into nxt could alias those, which would reload them
         * every block. */
        const double *y = s->y, *wx = s->within_x, *wx_term = s->within_x_term, *rev = s->two_over_rev + s->n + 1 - k;
        double total = wx[k], best = -INFINITY;
        const vec4_bits magnitude = { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX };
        vec4 v = splat4(y[k]), run = splat4(0), kd = splat4((double) k), tot = splat4(total);
        vec4 num = splat4(-INFINITY), m = { 1, 2, 3, 4 };
        size_t j = 0;
        for (; j + 4 <= k; j += 4, m += 4.0) {
                size_t t = j + 1;
                vec4 b = load4(cur + t);
                if (t >= min && t + 3 + min <= k) {
                        /* split_numerator() for t..t+3 */
                        vec4 n = kd - m, wy = tot - load4(wx + t) - b;
                        vec4 q = 2.0 * b - n * load4(wx_term + t) - m * wy * load4(rev + t);
                        raise4(&num, &q);
                } else
                        for (size_t u = MAX(t, min); u <= t + 3 && u + min <= k; u++)
                                best = MAX(best, split_numerator(s, cur, k, total, u));
                vec4 d = (vec4) ((vec4_bits) (v - load4(y + j)) & magnitude); /* a0, a1, a2, a3 */
                vec4 pairs = d + low_lanes_up(&d);                             /* a0, a01, a2, a23 */
                vec4 prefix = pairs + (vec4){ 0, 0, pairs[1], pairs[1] };     /* a0, a01, a01 + a2, a01 + a23 */
                vec4 sum = b + (run + prefix);
                memcpy(nxt + t, &sum, sizeof sum);
                run += splat4(prefix[3]);
        }
        double last = run[0];
        for (; j < k; j++) {
                size_t t = j + 1;
                if (t >= min && t + min <= k)
                        best = MAX(best, split_numerator(s, cur, k, total, t));
                last += fabs(y[k] - y[j]);
                nxt[t] = cur[t] + last;
        }
        *ret_num = MAX(best, MAX(MAX(num[0], num[1]), MAX(num[2], num[3])));
        return last;
}

static double scan_row_plain(const struct search *s, size_t k, size_t min, const double *cur, double *nxt,
                             double *ret_num) {
        return scan_row(s, k, min, cur, nxt, ret_num);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static double scan_row_avx2(const struct search *s, size_t k, size_t min,
                                                            const double *cur, double *nxt, double *ret_num) {
        return scan_row(s, k, min, cur, nxt, ret_num);
}
#endif

static scan_row_fn *scan_row_best(void) {
#if defined(__x86_64__) && defined(__GNUC__)
        if (__builtin_cpu_supports("avx2"))
                return scan_row_avx2;
#endif
        return scan_row_plain;
}

/* The first t of row k-1 with the largest numerator (only asked when the row holds the best yet). */
static size_t row_argmax(const struct search *s, const double *b, size_t k, size_t min, double total) {
        size_t at = min;
        double best = -INFINITY;
        for (size_t t = min; t + min <= k; t++) {
                double num = split_numerator(s, b, k, total, t);
                if (num > best) {
                        best = num;
                        at = t;
                }
        }
        return at;
}

/* The best split of segment [b, e) in the arrangement s->order, over every left side X = y[0..t)
 * and right side Y = y[t..k] (the paper's tau and kappa, both sides at least min_segment values):
 * its Q (-INFINITY when the segment is too short) and b + t, the first index of the new segment.
 * Row k adds y[k] to Y for every t at once: B[t], the between sum, grows by y[k]'s distance to
 * y[0..t), a prefix sum of distances; Y's within sum is what the whole of y[0..k] has beyond X's
 * and B: O(len^2) for the segment. With m = |X| and n = |Y|,
 *   Q = m n / (m + n) * (2 B / (m n) - W_X / C(m, 2) - W_Y / C(n, 2))
 *     = (2 B - 2 n W_X / (m - 1) - 2 m W_Y / (n - 1)) / (m + n),
 * and m + n is the same for every t of one row, so a row compares numerators. B is kept twice,
 * row k-1's and row k's, so that a row that holds the best yet can still be searched for its t. */
static double best_split(struct search *s, size_t b, size_t e, size_t *ret_at) {
        size_t len = e - b, min = s->p->min_segment;
        if (len < 2 * min)
                return -INFINITY;
        double *y = s->y, *wx = s->within_x, *wx_term = s->within_x_term;
        double *cur = s->between[0], *nxt = s->between[1];
        for (size_t k = 0; k < len; k++)
                y[k] = s->x[s->order[b + k]];
        y[len] = 0; /* row len scans row len-1; what it folds in is never read */
        memset(cur, 0, (len + 1) * sizeof(double));
        memset(nxt, 0, (len + 1) * sizeof(double));
        wx[0] = wx_term[0] = 0;
        double best = -INFINITY;
        for (size_t k = 0; k <= len; k++) {
                double num, sum = s->scan_row(s, k, min, cur, nxt, &num);
                if (k >= 2 * min && num / (double) k > best) {
                        best = num / (double) k;
                        *ret_at = b + row_argmax(s, cur, k, min, wx[k]);
                }
                if (k == len)
                        break;
                wx[k + 1] = wx[k] + sum;
                wx_term[k + 1] = k >= 1 ? wx[k + 1] * two_over(s, k) : 0;
                double *row = cur;
                cur = nxt;
                nxt = row;
        }
        return best;
}

/* The largest best split over all current segments. */
static double best_over_segments(struct search *s, size_t *ret_at) {
        double best = -INFINITY;
        for (size_t k = 0; k + 1 < s->n_bounds; k++) {
                size_t at = 0;
                double q = best_split(s, s->bounds[k], s->bounds[k + 1], &at);
                if (q > best) {
                        best = q;
                        *ret_at = at;
                }
        }
        return best;
}

/* Uniform in [0, bound): the top 53 bits as a fraction of bound; the bias (bound / 2^53) is far
 * below what a permutation test can notice. */
static size_t random_below(uint64_t *state, size_t bound) {
        return (size_t) ((double) (splitmix64(state) >> 11) * 0x1p-53 * (double) bound);
}

static void shuffle_segments(struct search *s) {
        for (size_t k = 0; k + 1 < s->n_bounds; k++)
                for (size_t e = s->bounds[k + 1] - 1; e > s->bounds[k]; e--) {
                        size_t j = s->bounds[k] + random_below(&s->rng, e - s->bounds[k] + 1);
                        size_t t = s->order[e];
                        s->order[e] = s->order[j];
                        s->order[j] = t;
                }
}

/* p-value of the observed q. Stops counting once the answer cannot be significant. */
static double permutation_p(struct search *s, double q) {
        double tolerance = 1e-12 * fabs(q), limit = s->p->significance * (s->p->permutations + 1.0) - 1;
        unsigned as_large = 0;
        for (size_t i = 0; i < s->n; i++)
                s->order[i] = i;
        for (unsigned k = 0; k < s->p->permutations && as_large <= limit; k++) {
                shuffle_segments(s);
                size_t at;
                if (best_over_segments(s, &at) >= q - tolerance)
                        as_large++;
        }
        return (1.0 + as_large) / (s->p->permutations + 1.0);
}

static void insert_bound(struct search *s, size_t at) {
        size_t k = s->n_bounds;
        while (k > 0 && s->bounds[k - 1] > at) {
                s->bounds[k] = s->bounds[k - 1];
                k--;
        }
        s->bounds[k] = at;
        s->n_bounds++;
}

static void describe_shift(const double *x, struct change_point *cp) {
        struct stats_ratio r;
        const char *method = NULL;
        const double *before = x + cp->before_start, *after = x + cp->index;
        size_t nb = cp->index - cp->before_start, na = cp->after_end - cp->index;
        if (stats_ratio_best(after, na, before, nb, &r, &method) < 0 || !r.have_ratio)
                return;
        cp->have_shift = true;
        cp->shift = r.ratio - 1;
        cp->method = method;
        if (r.have_ci) {
                cp->have_ci = true;
                cp->shift_low = r.ci_low - 1;
                cp->shift_high = r.ci_high - 1;
        }
}

bool change_points_params_valid(const struct change_points_params *p) {
        return p && p->significance > 0 && p->significance <= CHANGE_POINTS_SIGNIFICANCE_MAX &&
               p->min_segment >= CHANGE_POINTS_MIN_SEGMENT_MIN && p->permutations >= 1 &&
               p->permutations <= CHANGE_POINTS_PERMUTATIONS_MAX;
}

static void search_done(struct search *s) {
        free(s->order);
        free(s->y);
        free(s->within_x);
        free(s->within_x_term);
        free(s->between[0]);
        free(s->between[1]);
        free(s->two_over_rev);
        free(s->bounds);
}

/* The accepted change points (the inner bounds) with their adjacent segments and shifts. */
static int collect(const struct search *s, const double *stat, const double *pval, struct change_point **ret,
                   size_t *ret_n) {
        size_t count = s->n_bounds - 2;
        struct change_point *out = calloc(count ? count : 1, sizeof *out);
        if (!out)
                return -ENOMEM;
        for (size_t k = 0; k < count; k++) {
                size_t at = s->bounds[k + 1];
                out[k] = (struct change_point){ .index = at, .before_start = s->bounds[k], .after_end = s->bounds[k + 2],
                                                .statistic = stat[at], .p_value = pval[at] };
                describe_shift(s->x, &out[k]);
        }
        *ret = out;
        *ret_n = count;
        return 0;
}

int change_points_find(const double *x, size_t n, const struct change_points_params *p, struct change_point **ret,
                       size_t *ret_n) {
        if (!change_points_params_valid(p) || (n > 0 && !x))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!isfinite(x[i]))
                        return -EINVAL;
        size_t slots = n ? n : 1;
        _cleanup_(search_done) struct search s = {
                .x = x, .n = n, .p = p, .rng = p->seed, .scan_row = scan_row_best(),
                .order = calloc(slots, sizeof(size_t)), .y = calloc(slots + 1, sizeof(double)),
                .within_x = calloc(slots + 1, sizeof(double)), .within_x_term = calloc(slots + 1, sizeof(double)),
                .between = { calloc(slots + 1, sizeof(double)), calloc(slots + 1, sizeof(double)) },
                .two_over_rev = calloc(slots + 1, sizeof(double)),
                .bounds = calloc(slots + 1, sizeof(size_t)),
        };
        /* Per index: the statistic and p-value it was accepted with. */
        _cleanup_free_ double *stat = calloc(slots, sizeof(double)), *pval = calloc(slots, sizeof(double));
        if (!s.order || !s.y || !s.within_x || !s.within_x_term || !s.between[0] || !s.between[1] || !s.two_over_rev ||
            !s.bounds || !stat || !pval)
                return -ENOMEM;
        for (size_t j = 1; j <= n; j++)
                s.two_over_rev[n - j] = 2.0 / (double) j;
        s.bounds[0] = 0;
        s.bounds[1] = n;
        s.n_bounds = 2;
        for (;;) {
                for (size_t i = 0; i < n; i++)
                        s.order[i] = i;
                size_t at = 0;
                double q = best_over_segments(&s, &at);
                if (!isfinite(q) || q <= 0)
                        break;
                double pv = permutation_p(&s, q);
                if (pv > p->significance)
                        break;
                stat[at] = q;
                pval[at] = pv;
                insert_bound(&s, at);
        }
        return collect(&s, stat, pval, ret, ret_n);
}
