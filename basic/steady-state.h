/* steady-state.h: whether and when one run reached a steady state, from its series of intervals
 * (a latency percentile or a throughput per second, or a benchmark's ops/s per in-process
 * iteration): the method of Barrett, Bolz-Tereick, Killick, Mount and Tratt, "Virtual Machine
 * Warmup Blows Hot and Cold" (OOPSLA 2017).
 *
 * The method, fixed here because the API states it:
 * - Outliers: a value outside median +/- 3 * (p90 - p10) of the window of `window` values
 *   centred on it is an outlier and left out of the segmentation (it stays in the series);
 *   values whose window would be cut short by the series' start are never outliers (the
 *   paper's rule: warmup is not an outlier). The paper's window is 200 of 2000 iterations; here
 *   200, or a tenth of a shorter series (at least 10).
 * - Segmentation: PELT (Killick, Fearnhead and Eckley, JASA 2012) over the remaining values
 *   with the normal likelihood's cost of a change in mean and variance (a segment of n values
 *   with maximum-likelihood variance s2 costs n log s2; at least 2 values a segment), penalty
 *   15 log n per change, as the paper. The series is divided by its mean first, and a
 *   segment's variance floored at 1e-12, so that a noise-free segment has a finite cost.
 *   PELT's optimum is exact but costs O(n^2) when changes are few; a series of more than
 *   STEADY_STATE_PELT_MAX values (the paper's had 2000) is segmented by binary segmentation
 *   (Scott and Knott 1974) with the same cost and penalty instead: O(n log n), the same
 *   changes where they stand apart.
 * - Equivalence: a segment is equivalent to the last when the intervals mean +/- variance (of
 *   the series divided by the last segment's mean, so that the units cancel) overlaps the last
 *   segment's, widened to at least +/- delta (the paper's 0.001 s for iterations of about a
 *   second; here a share of the last segment's mean, 1% by default).
 * - Class, going back from the last segment: equivalent segments are passed over; the first
 *   that is not and ends within the series' last quarter (the paper's last 500 of 2000) makes
 *   the run "no steady state"; else one faster than the last makes it "slowdown"; else it is
 *   slower and the run is "warmup" unless an earlier segment is faster (slowdown) or none
 *   differs ("flat"). Faster: a higher value where higher_is_faster (ops/s, throughput), a lower
 *   one otherwise (latency).
 * - The steady state starts at the first value of the earliest segment of the run of segments
 *   equivalent to the last that ends the series; its mean and variance are over that run. A
 *   run with no steady state has none.
 * Cost: PELT is O(n) when changes are spread out, O(n^2) at worst, so at most 2000 values;
 * binary segmentation O(n log n); outliers O(n * window). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define STEADY_STATE_PENALTY_FACTOR 15.0
#define STEADY_STATE_DELTA_DEFAULT 0.01
#define STEADY_STATE_OUTLIER_WINDOW 200
#define STEADY_STATE_MIN_SEGMENT 2
#define STEADY_STATE_PELT_MAX 2000

enum steady_state_class {
        STEADY_STATE_FLAT,
        STEADY_STATE_WARMUP,
        STEADY_STATE_SLOWDOWN,
        STEADY_STATE_NONE,              /* "no steady state" */
        _STEADY_STATE_CLASS_MAX,
};

struct steady_state_segment {
        size_t start, end;              /* values [start, end) of the series */
        double mean, variance;          /* over the segment's values that are not outliers */
};

struct steady_state {
        enum steady_state_class class;
        size_t n_outliers;
        struct steady_state_segment *segments; /* in order; free with steady_state_done() */
        size_t n_segments;
        bool have_steady;
        size_t steady_start;            /* the index of the steady state's first value */
        double steady_mean, steady_variance;
};

const char *steady_state_class_name(enum steady_state_class c);
void steady_state_done(struct steady_state *s);

/* The changepoints of x[0..n) by PELT with the cost above and the given penalty per change:
 * the indices where a new segment starts, ascending, into *ret (free()). x must be finite.
 * -EINVAL, -ENOMEM; *ret untouched on failure. */
int steady_state_pelt(const double *x, size_t n, double penalty, size_t **ret, size_t *ret_n);

/* The same by binary segmentation. */
int steady_state_binseg(const double *x, size_t n, double penalty, size_t **ret, size_t *ret_n);
/* steady_state_pelt() up to STEADY_STATE_PELT_MAX values, steady_state_binseg() beyond. */
int steady_state_segment(const double *x, size_t n, double penalty, size_t **ret, size_t *ret_n);

/* The outliers of x[0..n) by the rule above, as flags into outlier[0..n). -ENOMEM. */
int steady_state_outliers(const double *x, size_t n, size_t window, bool *outlier);

/* The whole method over x[0..n) (finite, above 0): *ret filled. delta <= 0 takes the default.
 * -EINVAL for a series that is empty, not finite or not above 0; -ENOMEM; *ret untouched on
 * failure. */
int steady_state_classify(const double *x, size_t n, bool higher_is_faster, double delta, struct steady_state *ret);
