/* change-points.c: E-Divisive means with a permutation test over one series (see
 * change-points.h for the method). The distances to one side of a split are sums of |v - x| over
 * that side, which two Fenwick trees (count and sum of the values by rank) give in O(log n), so a
 * segment's every split is scanned in one pass instead of the O(n^2) distance matrix per split. */
#include "basic/change-points.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/random.h"
#include "basic/stats.h"

struct ranked {
        double v;
        size_t i;
};

/* Working memory of one search, sized for the whole series: segments are disjoint, so one slot
 * per value serves all of them. */
struct search {
        const double *x;
        size_t n;
        const struct change_points_params *p;
        size_t *rank;           /* a value's rank within its segment */
        double *dist_all;       /* a value's sum of distances to its whole segment */
        double *seg_total;      /* per segment start: the sum over its pairs */
        size_t *order;          /* the arrangement scanned: original indices */
        double *fen_cnt, *fen_sum; /* 1-based Fenwick trees over ranks */
        struct ranked *sorted;
        size_t *bounds;         /* segment starts, ascending, then n */
        size_t n_bounds;
        uint64_t rng;
};

static void fen_reset(struct search *s, size_t len) {
        memset(s->fen_cnt, 0, (len + 1) * sizeof *s->fen_cnt);
        memset(s->fen_sum, 0, (len + 1) * sizeof *s->fen_sum);
}

static void fen_add(struct search *s, size_t len, size_t rank, double v) {
        for (size_t k = rank + 1; k <= len; k += k & -k) {
                s->fen_cnt[k] += 1;
                s->fen_sum[k] += v;
        }
}

/* Count and sum of the inserted values of rank below `rank`. */
static void fen_below(const struct search *s, size_t rank, double *ret_cnt, double *ret_sum) {
        double c = 0, sum = 0;
        for (size_t k = rank; k > 0; k -= k & -k) {
                c += s->fen_cnt[k];
                sum += s->fen_sum[k];
        }
        *ret_cnt = c;
        *ret_sum = sum;
}

static int compare_ranked(const void *a, const void *b) {
        const struct ranked *x = a, *y = b;
        if (x->v != y->v)
                return x->v < y->v ? -1 : 1;
        return x->i < y->i ? -1 : x->i > y->i;
}

/* Ranks and distance sums of segment [b, e), which do not depend on the order it is scanned in. */
static void prepare_segment(struct search *s, size_t b, size_t e) {
        size_t len = e - b;
        for (size_t k = 0; k < len; k++)
                s->sorted[k] = (struct ranked){ .v = s->x[b + k], .i = b + k };
        qsort(s->sorted, len, sizeof *s->sorted, compare_ranked);
        double total = 0, below = 0, pairs = 0;
        for (size_t k = 0; k < len; k++)
                total += s->sorted[k].v;
        for (size_t k = 0; k < len; k++) {
                double v = s->sorted[k].v, above = total - below - v;
                size_t i = s->sorted[k].i;
                s->rank[i] = k;
                s->dist_all[i] = v * (double) k - below + above - v * (double) (len - 1 - k);
                pairs += s->dist_all[i];
                below += v;
        }
        s->seg_total[b] = pairs / 2;
}

/* The best split of segment [b, e) in the arrangement s->order: its Q (-INFINITY when the segment
 * is too short) and the first index of its right side. */
static double best_split(struct search *s, size_t b, size_t e, size_t *ret_at) {
        size_t len = e - b, min = s->p->min_segment;
        double best = -INFINITY;
        if (len < 2 * min)
                return best;
        fen_reset(s, len);
        double within_x = 0, within_y = s->seg_total[b], between = 0, cnt_x = 0, sum_x = 0;
        for (size_t k = 0; k + min < len; k++) {
                size_t i = s->order[b + k];
                double v = s->x[i], cl, sl;
                fen_below(s, s->rank[i], &cl, &sl);
                double to_x = v * cl - sl + (sum_x - sl) - v * (cnt_x - cl);
                double to_y = s->dist_all[i] - to_x;
                within_x += to_x;
                within_y -= to_y;
                between += to_y - to_x;
                fen_add(s, len, s->rank[i], v);
                cnt_x += 1;
                sum_x += v;

                double m = (double) (k + 1), n = (double) (len - k - 1);
                if (k + 1 < min)
                        continue;
                double energy = 2 * between / (m * n) - within_x / (m * (m - 1) / 2) - within_y / (n * (n - 1) / 2);
                double q = m * n / (double) len * energy;
                if (q > best) {
                        best = q;
                        *ret_at = b + k + 1;
                }
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
        free(s->rank);
        free(s->dist_all);
        free(s->seg_total);
        free(s->order);
        free(s->fen_cnt);
        free(s->fen_sum);
        free(s->sorted);
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
                .rank = calloc(slots, sizeof(size_t)), .dist_all = calloc(slots, sizeof(double)),
                .seg_total = calloc(slots, sizeof(double)), .order = calloc(slots, sizeof(size_t)),
                .fen_cnt = calloc(slots + 1, sizeof(double)), .fen_sum = calloc(slots + 1, sizeof(double)),
                .sorted = calloc(slots, sizeof(struct ranked)), .bounds = calloc(slots + 1, sizeof(size_t)),
        };
        /* Per index: the statistic and p-value it was accepted with. */
        _cleanup_free_ double *stat = calloc(slots, sizeof(double)), *pval = calloc(slots, sizeof(double));
        if (!s.rank || !s.dist_all || !s.seg_total || !s.order || !s.fen_cnt || !s.fen_sum || !s.sorted || !s.bounds ||
            !stat || !pval)
                return -ENOMEM;
        s.bounds[0] = 0;
        s.bounds[1] = n;
        s.n_bounds = 2;
        for (;;) {
                for (size_t k = 0; k + 1 < s.n_bounds; k++)
                        prepare_segment(&s, s.bounds[k], s.bounds[k + 1]);
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
