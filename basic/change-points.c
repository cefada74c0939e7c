/* change-points.c: E-Divisive means with a permutation test over one series (see
 * change-points.h for the method). A segment's every (tau, kappa) is scanned in O(len^2) time and
 * O(len) memory: kappa by kappa, from one prefix sum of distances each, instead of a distance
 * matrix. */
#include "basic/change-points.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/random.h"
#include "basic/stats.h"

/* Working memory of one search, sized for the whole series. */
struct search {
        const double *x;
        size_t n;
        const struct change_points_params *p;
        size_t *order;          /* the arrangement scanned: original indices */
        double *y;              /* one segment's values in that arrangement */
        double *dist;           /* dist[j]: the sum of |y[k] - y[i]| over i < j, for the current k */
        double *within_x;       /* within_x[t]: the sum over the pairs of y[0..t) */
        double *within_x_term;  /* 2 * within_x[t] / (t - 1): X's term of Q's numerator but for n */
        double *between;        /* between[t]: the sum of |a - b| over a in y[0..t), b in y[t..k] */
        double *two_over;       /* two_over[j] = 2 / j */
        size_t *bounds;         /* segment starts, ascending, then n */
        size_t n_bounds;
        uint64_t rng;
};

/* dist[j] for j <= k: the distances of y[k] to y[0..j), as a prefix sum. Four at a time, so
 * that the chain of dependent additions is one per four values, not one per value. */
static void distance_prefix(const double *y, size_t k, double *dist) {
        double v = y[k], run = 0;
        size_t j = 0;
        dist[0] = 0;
        for (; j + 4 <= k; j += 4) {
                double a0 = fabs(v - y[j]), a1 = fabs(v - y[j + 1]), a2 = fabs(v - y[j + 2]), a3 = fabs(v - y[j + 3]);
                double a01 = a0 + a1;
                dist[j + 1] = run + a0;
                dist[j + 2] = run + a01;
                dist[j + 3] = run + (a01 + a2);
                run += a01 + (a2 + a3);
                dist[j + 4] = run;
        }
        for (; j < k; j++)
                dist[j + 1] = dist[j] + fabs(v - y[j]);
}

/* The numerator of Q for X = y[0..t) and Y = y[t..k) (row k-1's candidate t, read while row k
 * is folded in: between[t] still holds row k-1's sum and total is the whole of y[0..k)). */
static inline double split_numerator(const struct search *s, size_t k, double total, size_t t) {
        double m = (double) t, n = (double) (k - t);
        double wy = total - s->within_x[t] - s->between[t];
        return 2 * s->between[t] - n * s->within_x_term[t] - m * wy * s->two_over[k - 1 - t];
}

/* The largest numerator of row k-1 over t in [min, k - min]; two running maxima, so that the
 * comparisons do not wait on each other. */
static double row_max(const struct search *s, size_t k, size_t min, double total) {
        double a = -INFINITY, b = -INFINITY;
        size_t t = min;
        for (; t + 1 + min <= k; t += 2) {
                double na = split_numerator(s, k, total, t), nb = split_numerator(s, k, total, t + 1);
                a = na > a ? na : a;
                b = nb > b ? nb : b;
        }
        if (t + min <= k) {
                double na = split_numerator(s, k, total, t);
                a = na > a ? na : a;
        }
        return a > b ? a : b;
}

/* The first t of row k-1 whose numerator is num (only asked when the row holds the best yet). */
static size_t row_argmax(const struct search *s, size_t k, size_t min, double total, double num) {
        for (size_t t = min; t + min <= k; t++)
                if (split_numerator(s, k, total, t) >= num)
                        return t;
        return min;
}

/* The best split of segment [b, e) in the arrangement s->order, over every left side X = y[0..t)
 * and right side Y = y[t..k] (the paper's tau and kappa, both sides at least min_segment values):
 * its Q (-INFINITY when the segment is too short) and b + t, the first index of the new segment.
 * Row k adds y[k] to Y for every t at once: B[t], the between sum, grows by y[k]'s distance to
 * y[0..t), a prefix sum of distances; Y's within sum is what the whole of y[0..k] has beyond X's
 * and B: O(len^2) for the segment. With m = |X| and n = |Y|,
 *   Q = m n / (m + n) * (2 B / (m n) - W_X / C(m, 2) - W_Y / C(n, 2))
 *     = (2 B - 2 n W_X / (m - 1) - 2 m W_Y / (n - 1)) / (m + n),
 * and m + n is the same for every t of one row, so a row compares numerators. */
static double best_split(struct search *s, size_t b, size_t e, size_t *ret_at) {
        size_t len = e - b, min = s->p->min_segment;
        if (len < 2 * min)
                return -INFINITY;
        double *y = s->y, *dist = s->dist, *wx = s->within_x, *wx_term = s->within_x_term, *between = s->between;
        for (size_t k = 0; k < len; k++) {
                y[k] = s->x[s->order[b + k]];
                between[k] = 0;
        }
        wx[0] = wx_term[0] = 0;
        double best = -INFINITY;
        for (size_t k = 0; k <= len; k++) {
                if (k >= 2 * min) {
                        double num = row_max(s, k, min, wx[k]);
                        if (num / (double) k > best) {
                                best = num / (double) k;
                                *ret_at = b + row_argmax(s, k, min, wx[k], num);
                        }
                }
                if (k == len)
                        break;
                distance_prefix(y, k, dist);
                for (size_t t = 0; t <= k; t++)
                        between[t] += dist[t];
                wx[k + 1] = wx[k] + dist[k];
                wx_term[k + 1] = k >= 1 ? wx[k + 1] * s->two_over[k] : 0;
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
        free(s->dist);
        free(s->within_x);
        free(s->within_x_term);
        free(s->between);
        free(s->two_over);
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
                .x = x, .n = n, .p = p, .rng = p->seed,
                .order = calloc(slots, sizeof(size_t)), .y = calloc(slots, sizeof(double)),
                .dist = calloc(slots + 1, sizeof(double)), .within_x = calloc(slots + 1, sizeof(double)),
                .within_x_term = calloc(slots + 1, sizeof(double)), .between = calloc(slots, sizeof(double)),
                .two_over = calloc(slots + 1, sizeof(double)), .bounds = calloc(slots + 1, sizeof(size_t)),
        };
        /* Per index: the statistic and p-value it was accepted with. */
        _cleanup_free_ double *stat = calloc(slots, sizeof(double)), *pval = calloc(slots, sizeof(double));
        if (!s.order || !s.y || !s.dist || !s.within_x || !s.within_x_term || !s.between || !s.two_over || !s.bounds ||
            !stat || !pval)
                return -ENOMEM;
        for (size_t j = 1; j <= n; j++)
                s.two_over[j] = 2.0 / (double) j;
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
