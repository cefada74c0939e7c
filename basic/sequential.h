/* sequential.h: intervals that hold at every round at once, so that an experiment may look after
 * each round and stop when it knows (issue 37): a confidence sequence for the ratio of a cell's
 * geometric mean to the baseline's.
 *
 * The construction, fixed here because the API states it:
 * - Each round runs one iteration of every cell; a comparison's observations are the rounds'
 *   log ratios d_i = log(cell_i) - log(baseline_i) (rounds where either run has no value are
 *   left out), so its target is log(GM(cell) / GM(baseline)), the report's ratio.
 * - The confidence sequence is Lai's for a Gaussian mean with unknown variance (T. L. Lai, "On
 *   Confidence Sequences", Annals of Statistics 1976; as stated by Wang and Ramdas, "Anytime-
 *   valid t-tests and confidence sequences for Gaussian means with unknown variance", 2023):
 *   a mixture over the standardised mean (normal, precision c) and the scale (its invariant
 *   prior) of the likelihood ratio, which is a nonnegative martingale under the mean tested, so
 *   by Ville's inequality it ever reaches 1/alpha with probability at most alpha. After n
 *   rounds with mean m and sum of squared deviations S, the mean mu is in
 *     m +/- sqrt(K S / (n (n - K))),  K = (n + c) (1 - alpha^(2/n) (c / (n + c))^(1/n)),
 *   the whole line while K >= n. c = 0.1 here: finite from 3 rounds at alpha 0.05 (in time to
 *   decide a 2x difference with 5% noise at 3 rounds); a smaller c is narrower for small effects
 *   late, wider early. The interval is exp() of that, for the ratio.
 * - It is exact for log-normal times (normal log ratios) and, as a t statistic, not far off for
 *   other noise; tests/basic/test-sequential.c measures the error rate under heavy tails too.
 * - Decision: "different" when the ratio's interval excludes 1, "equivalent" when it lies
 *   inside [1/(1+d), 1+d], else "undecided". k comparisons share the level (alpha / k each). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define SEQUENTIAL_MIXTURE_PRECISION 0.1

enum sequential_decision {
        SEQUENTIAL_UNDECIDED,
        SEQUENTIAL_DIFFERENT,
        SEQUENTIAL_EQUIVALENT,
};

struct sequential_interval {
        size_t n;               /* the rounds it is over */
        bool bounded;           /* false: the whole line (too few rounds yet) */
        double ratio;           /* exp(mean of the log ratios) */
        double low, high;       /* the ratio's interval; 0 and +inf when unbounded */
};

/* The running sums of one comparison's log ratios, updated round by round. */
struct sequential_sums {
        size_t n;
        double mean, m2;        /* Welford's: the mean and the sum of squared deviations */
};

void sequential_add(struct sequential_sums *s, double log_ratio);
/* The interval at level 1 - alpha after the rounds so far. */
void sequential_interval_of(const struct sequential_sums *s, double alpha, struct sequential_interval *ret);
/* The decision an interval supports at equivalence margin d (0.03 for 3%). */
enum sequential_decision sequential_decide(const struct sequential_interval *i, double margin);
const char *sequential_decision_name(enum sequential_decision d);
/* The interval of the log ratios of cell and baseline values paired by round: cell[i] and
 * baseline[i] of round i, a value <= 0 or not finite on either side leaving the round out. */
void sequential_paired(const double *cell, const double *baseline, size_t rounds, double alpha,
                       struct sequential_interval *ret);

/* An experiment's stop rule as the statistics take it: every cell but the baseline against it,
 * for every metric, at level shared by those comparisons (Bonferroni: alpha / k each). */
struct sequential_plan {
        size_t baseline, n_cells;
        const char *const *metrics;
        size_t n_metrics;
        unsigned min_rounds, max_rounds;
        double level;                   /* 0.95 */
        double margin;                  /* the equivalence margin, 0.03 for 3% */
};
size_t sequential_plan_comparisons(const struct sequential_plan *p);
double sequential_plan_alpha(const struct sequential_plan *p);

/* One comparison followed round by round: decided at the first round from min_rounds on whose
 * interval decides, and kept (the running intersection of a confidence sequence is one too, so
 * a decision never flips back); the interval is that intersection after the last round. */
struct sequential_outcome {
        enum sequential_decision decision;
        unsigned round;                 /* 1-based round of the decision; 0 while undecided */
        struct sequential_interval interval;
};
void sequential_follow(const double *cell, const double *baseline, size_t rounds, unsigned min_rounds, double alpha,
                       double margin, struct sequential_outcome *ret);
