/* test-sequential.c: basic/sequential, Lai's confidence sequence for the ratio of geometric
 * means. The boundary's closed form against the mixture it comes from, integrated numerically
 * here from its definition; the error rate by simulation: 10 000 A/A experiments looked at after
 * every round up to 30 (log-normal noise of CoV 1-20%, and heavy-tailed noise) ever decide
 * "different" at most alpha of the time (plus simulation error), where fixed-sample intervals
 * looked at the same way do so several times as often; an A/B 5% apart is decided, with its
 * median rounds printed; the decisions and the pairing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/sequential.h"
#include "basic/stats.h"
#include "tests/lib/synthetic-series.h"

#define ALPHA 0.05
#define EXPERIMENTS 10000
#define ROUNDS 30

/* ---- the mixture, integrated numerically --------------------------------------------------- */

/* log of prod_i N(y_i; mean, sigma^2) */
static double log_likelihood(const double *y, size_t n, double mean, double sigma) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
                s += (y[i] - mean) * (y[i] - mean);
        return -(double) n * log(sigma) - s / (2 * sigma * sigma) - 0.5 * (double) n * log(2 * M_PI);
}

/* The mixture likelihood ratio of y's mean being 0: the alternative's mean is delta * sigma
 * with delta ~ N(0, 1/c), the scale integrated against d sigma / sigma under both, on a grid in
 * log sigma and delta (the trapezoid rule; the integrands vanish well inside the grid). */
static double mixture_ratio(const double *y, size_t n, double c) {
        double sum_sq = 0;
        for (size_t i = 0; i < n; i++)
                sum_sq += y[i] * y[i];
        double centre = 0.5 * log(sum_sq / (double) n), num = 0, den = 0;
        const int grid = 500;
        double u_lo = centre - 8, u_hi = centre + 8, du = (u_hi - u_lo) / grid;
        double d_lo = -12 / sqrt(c), d_hi = 12 / sqrt(c), dd = (d_hi - d_lo) / grid;
        /* log-sum scaled by the null's peak to stay in range */
        double peak = log_likelihood(y, n, 0, sqrt(sum_sq / (double) n));
        for (int a = 0; a <= grid; a++) {
                double u = u_lo + a * du, sigma = exp(u), wa = (a == 0 || a == grid) ? 0.5 : 1;
                den += wa * du * exp(log_likelihood(y, n, 0, sigma) - peak);
                for (int b = 0; b <= grid; b++) {
                        double delta = d_lo + b * dd, wb = (b == 0 || b == grid) ? 0.5 : 1;
                        double prior = sqrt(c / (2 * M_PI)) * exp(-c * delta * delta / 2);
                        num += wa * wb * du * dd * prior * exp(log_likelihood(y, n, delta * sigma, sigma) - peak);
                }
        }
        return num / den;
}

/* At the interval's ends the mixture is exactly 1 / alpha: the closed form is the paper's. */
static void test_boundary_is_the_mixture(void **state) {
        (void) state;
        const double d[] = { 0.11, 0.08, 0.15, 0.05, 0.12, 0.09, 0.13 };
        for (size_t n = 3; n <= ELEMENTSOF(d); n += 2) {
                struct sequential_sums s = { 0 };
                for (size_t i = 0; i < n; i++)
                        sequential_add(&s, d[i]);
                struct sequential_interval iv;
                sequential_interval_of(&s, ALPHA, &iv);
                assert_true(iv.bounded);
                const double ends[] = { log(iv.low), log(iv.high) };
                for (size_t e = 0; e < 2; e++) {
                        double y[ELEMENTSOF(d)];
                        for (size_t i = 0; i < n; i++)
                                y[i] = d[i] - ends[e];
                        double m = mixture_ratio(y, n, SEQUENTIAL_MIXTURE_PRECISION);
                        print_message("n %zu, end %zu: mixture %.4f (1/alpha %.1f)\n", n, e, m, 1 / ALPHA);
                        assert_true(fabs(m * ALPHA - 1) < 0.01);
                }
        }
}

/* ---- error rates by simulation ------------------------------------------------------------- */

/* One A/A experiment's log ratios, round by round: noise of the given CoV on both sides, and
 * with heavy tails a run in 20 three times slower and Student-t(3) noise. */
static double noise(uint64_t *rng, double cov, bool heavy) {
        if (!heavy)
                return log(1 + cov * synthetic_normal(rng));
        double z = synthetic_normal(rng), chi = 0;
        for (int k = 0; k < 3; k++) {
                double g = synthetic_normal(rng);
                chi += g * g;
        }
        double t = z / sqrt(chi / 3);
        double slow = synthetic_uniform(rng) < 0.05 ? log(3) : 0;
        return cov * t + slow;
}

struct rates {
        unsigned different, fixed_different, decided;
        unsigned rounds[EXPERIMENTS];
};

/* true_log: the log of the true ratio; every experiment looks after every round from 2 on. */
static void simulate(double cov, bool heavy, double true_log, double margin, struct rates *r) {
        uint64_t rng = (uint64_t) (cov * 1e6) + heavy * 7 + 11;
        double t_quantile[ROUNDS + 1];
        for (unsigned n = 2; n <= ROUNDS; n++)
                t_quantile[n] = stats_t_quantile(1 - ALPHA / 2, (double) (n - 1));
        *r = (struct rates){ 0 };
        for (unsigned e = 0; e < EXPERIMENTS; e++) {
                struct sequential_sums s = { 0 };
                bool different = false, fixed_different = false;
                unsigned decided_at = 0;
                for (unsigned round = 1; round <= ROUNDS; round++) {
                        sequential_add(&s, true_log + noise(&rng, cov, heavy) - noise(&rng, cov, heavy));
                        if (round < 2)
                                continue;
                        struct sequential_interval iv;
                        sequential_interval_of(&s, ALPHA, &iv);
                        enum sequential_decision d = sequential_decide(&iv, margin);
                        different = different || d == SEQUENTIAL_DIFFERENT;
                        if (!decided_at && d != SEQUENTIAL_UNDECIDED)
                                decided_at = round;
                        /* the fixed-sample t interval, peeked at the same way */
                        double sd = sqrt(s.m2 / (double) (s.n - 1));
                        double half = t_quantile[s.n] * sd / sqrt((double) s.n);
                        fixed_different = fixed_different || fabs(s.mean) > half;
                }
                r->different += different;
                r->fixed_different += fixed_different;
                r->rounds[r->decided] = decided_at;
                r->decided += decided_at > 0;
        }
}

static int compare_unsigned(const void *a, const void *b) {
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
        return x < y ? -1 : x > y;
}

static void test_aa_error_rate(void **state) {
        (void) state;
        static struct rates r;
        /* alpha plus three standard errors of a share over EXPERIMENTS */
        double bound = ALPHA + 3 * sqrt(ALPHA * (1 - ALPHA) / EXPERIMENTS);
        const double covs[] = { 0.01, 0.05, 0.20 };
        for (size_t k = 0; k < ELEMENTSOF(covs); k++)
                for (int heavy = 0; heavy <= 1; heavy++) {
                        simulate(covs[k], heavy, 0, 0.03, &r);
                        double share = (double) r.different / EXPERIMENTS;
                        print_message("A/A, CoV %.0f%%%s: ever 'different' in %.2f%% (fixed-sample intervals peeked at: %.1f%%)\n",
                                      covs[k] * 100, heavy ? ", heavy tails" : "", share * 100,
                                      100.0 * r.fixed_different / EXPERIMENTS);
                        assert_true(share <= bound);
                        /* what the sequence is for: peeking at fixed intervals is not allowed */
                        assert_true(r.fixed_different > 2 * r.different);
                }
}

static void test_ab_decides(void **state) {
        (void) state;
        static struct rates r;
        simulate(0.02, false, log(1.05), 0.01, &r);
        qsort(r.rounds, r.decided, sizeof r.rounds[0], compare_unsigned);
        print_message("A/B 5%% apart, CoV 2%%: decided in %u of %d within %d rounds, median round %u\n", r.decided,
                      EXPERIMENTS, ROUNDS, r.decided ? r.rounds[r.decided / 2] : 0);
        assert_true(r.different >= EXPERIMENTS * 95 / 100);
        simulate(0.05, false, log(2), 0.03, &r);
        qsort(r.rounds, r.decided, sizeof r.rounds[0], compare_unsigned);
        print_message("2x apart, CoV 5%%: median round %u\n", r.rounds[r.decided / 2]);
        assert_int_equal(r.rounds[r.decided / 2], 3);
}

static void test_decisions(void **state) {
        (void) state;
        struct sequential_interval iv = { .bounded = true, .low = 1.02, .high = 1.2 };
        assert_int_equal(sequential_decide(&iv, 0.03), SEQUENTIAL_DIFFERENT);
        iv = (struct sequential_interval){ .bounded = true, .low = 0.98, .high = 1.01 };
        assert_int_equal(sequential_decide(&iv, 0.03), SEQUENTIAL_EQUIVALENT);
        iv = (struct sequential_interval){ .bounded = true, .low = 0.95, .high = 1.01 };
        assert_int_equal(sequential_decide(&iv, 0.03), SEQUENTIAL_UNDECIDED);
        iv = (struct sequential_interval){ .bounded = false, .low = 0, .high = INFINITY };
        assert_int_equal(sequential_decide(&iv, 0.03), SEQUENTIAL_UNDECIDED);
        /* pairs by round; a round without a value on either side is left out */
        const double cell[] = { 200, 210, NAN, 190, 205 }, base[] = { 100, 104, 99, 0, 101 };
        sequential_paired(cell, base, 5, ALPHA, &iv);
        assert_int_equal(iv.n, 3);
        assert_true(fabs(iv.ratio - exp((log(2.0) + log(210.0 / 104) + log(205.0 / 101)) / 3)) < 1e-12);
        assert_int_equal(sequential_decide(&iv, 0.03), SEQUENTIAL_DIFFERENT);
        /* two rounds are too few for any interval */
        sequential_paired(cell, base, 2, ALPHA, &iv);
        assert_false(iv.bounded);
}

/* A comparison followed round by round (what the scheduler and the report read): a cell at half
 * the baseline with 2% noise is bounded from round 3 at alpha 0.05 and decided there, not before
 * iterations.min when that is later, and kept; its interval is the running intersection, never
 * wider than the last round's own. */
static void test_follow(void **state) {
        double base[10], cell[10];
        for (size_t r = 0; r < 10; r++) {
                base[r] = 1000 * (r % 2 ? 1.02 : 0.98);
                cell[r] = 500 * (r % 3 ? 1.01 : 0.99);
        }
        struct sequential_outcome o;
        sequential_follow(cell, base, 2, 2, 0.05, 0.03, &o);
        assert_int_equal(o.decision, SEQUENTIAL_UNDECIDED); /* unbounded at 2 rounds */
        assert_int_equal(o.round, 0);
        sequential_follow(cell, base, 10, 2, 0.05, 0.03, &o);
        assert_int_equal(o.decision, SEQUENTIAL_DIFFERENT);
        assert_int_equal(o.round, 3);
        sequential_follow(cell, base, 10, 6, 0.05, 0.03, &o);
        assert_int_equal(o.decision, SEQUENTIAL_DIFFERENT);
        assert_int_equal(o.round, 6);
        struct sequential_interval last;
        sequential_paired(cell, base, 10, 0.05, &last);
        assert_true(o.interval.bounded && o.interval.high < 1);
        assert_true(o.interval.low >= last.low && o.interval.high <= last.high);
        assert_int_equal(o.interval.n, 10);
        assert_true(fabs(o.interval.ratio - last.ratio) < 1e-12);

        /* rounds without a value on a side are left out */
        double gap[10];
        memcpy(gap, cell, sizeof gap);
        gap[1] = NAN;
        gap[4] = 0;
        sequential_follow(gap, base, 10, 2, 0.05, 0.03, &o);
        assert_int_equal(o.interval.n, 8);
        assert_int_equal(o.round, 4); /* its third pair is round 4's */
}

/* The plan's level is shared: k comparisons at alpha / k each. */
static void test_plan(void **state) {
        static const char *const metrics[] = { "ops_per_s", "latency_us.scheduled.p99" };
        struct sequential_plan p = { .baseline = 0, .n_cells = 3, .metrics = metrics, .n_metrics = 2, .level = 0.95 };
        assert_int_equal(sequential_plan_comparisons(&p), 4);
        assert_true(fabs(sequential_plan_alpha(&p) - 0.0125) < 1e-15);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_boundary_is_the_mixture),
                cmocka_unit_test(test_aa_error_rate),
                cmocka_unit_test(test_ab_decides),
                cmocka_unit_test(test_decisions),
                cmocka_unit_test(test_follow),
                cmocka_unit_test(test_plan),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
