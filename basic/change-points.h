/* change-points.h: where a series of measurements (one value per experiment, in time order)
 * shifts: E-Divisive means (Matteson and James, "A Nonparametric Approach for Multiple Change
 * Point Analysis of Multivariate Data", JASA 2014), with their permutation test.
 *
 * The method, fixed here because the API states it:
 * - Divergence: the energy statistic with exponent 1 between the two sides X = x[s..t) and
 *   Y = x[t..k] of a candidate split of a segment [s, e), for every candidate end k of Y up to the
 *   segment's end (the paper's kappa: both sides bounded, so that a shift that comes back, a
 *   stretch of 10 high values between two of 10 low ones, is found at both ends):
 *   Q = m*n/(m+n) * (2/(m*n) sum|X-Y| - sum_{i<j}|Xi-Xj| / C(m,2) - sum_{i<j}|Yi-Yj| / C(n,2)).
 *   The split's estimate is t of the largest Q over (t, k); the segment is divided at t.
 * - Divisive: every segment's best split (both sides at least min_segment values); the largest
 *   Q over all segments is the candidate; it is kept when its permutation p-value is at most
 *   significance, and the search goes on with the segment split in two; it stops at the first
 *   candidate that is not significant.
 * - Permutation test: the values are shuffled within each current segment, the largest best-split
 *   Q over all segments is recomputed, `permutations` times; p = (1 + #{Q_perm >= Q}) /
 *   (permutations + 1). The shuffles come from splitmix64 seeded with `seed`: the same series and
 *   parameters give the same answer.
 * - The shift of a change point: the ratio after/before of the two adjacent final segments' means
 *   minus 1, with the report's 95% interval (basic/stats.h stats_ratio_best: geometric means and
 *   the Welch t interval of the logarithms, "log-welch", where every value is above 0; Fieller's
 *   interval of the arithmetic means otherwise).
 * Cost: a best split of a segment of n values is O(n^2) (every (t, k) once, from a prefix sum of
 * distances per k); a series of T values with c change points costs O(c * permutations * T^2). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHANGE_POINTS_SIGNIFICANCE_DEFAULT 0.01
#define CHANGE_POINTS_MIN_SEGMENT_DEFAULT 4
#define CHANGE_POINTS_PERMUTATIONS_DEFAULT 199
#define CHANGE_POINTS_SEED_DEFAULT 1
/* Bounds of the parameters (change_points_params_valid()). */
#define CHANGE_POINTS_MIN_SEGMENT_MIN 2
#define CHANGE_POINTS_SIGNIFICANCE_MAX 0.5
#define CHANGE_POINTS_PERMUTATIONS_MAX 9999

struct change_points_params {
        double significance;    /* (0, 0.5]: the largest p-value that is a change */
        size_t min_segment;     /* >= 2: the fewest values on either side of a change */
        unsigned permutations;  /* [1, 9999] */
        uint64_t seed;
};

#define CHANGE_POINTS_PARAMS_DEFAULT                                                               \
        ((struct change_points_params){ .significance = CHANGE_POINTS_SIGNIFICANCE_DEFAULT,       \
                                        .min_segment = CHANGE_POINTS_MIN_SEGMENT_DEFAULT,         \
                                        .permutations = CHANGE_POINTS_PERMUTATIONS_DEFAULT,       \
                                        .seed = CHANGE_POINTS_SEED_DEFAULT })

struct change_point {
        size_t index;           /* the first value of the new segment: the change is between index-1 and index */
        size_t before_start;    /* the adjacent segments: [before_start, index) and [index, after_end) */
        size_t after_end;
        double statistic;       /* Q when it was found */
        double p_value;
        bool have_shift;        /* the before segment's mean is usable as a baseline */
        double shift;           /* mean(after) / mean(before) - 1 */
        bool have_ci;
        double shift_low, shift_high; /* its 95% interval */
        const char *method;     /* "log-welch" or "fieller" */
};

bool change_points_params_valid(const struct change_points_params *p);

/* The change points of x[0..n) in index order. -EINVAL for bad parameters or a non-finite value,
 * -ENOMEM; *ret (free()) and *ret_n untouched on failure. A series too short to split has none. */
int change_points_find(const double *x, size_t n, const struct change_points_params *p, struct change_point **ret,
                       size_t *ret_n);
