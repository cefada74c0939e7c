/* test-steady-state.c: basic/steady-state against an independent implementation written here
 * from the definitions: the segmentation by exhaustive optimal partitioning (Jackson et al.'s
 * dynamic programme, every start tried, which PELT only prunes), with the same cost and penalty;
 * and the classes of series of known shape (flat, one and two warmup steps, a slowdown, a change
 * in the last quarter, an outlier), for a latency (lower is faster) and a rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/steady-state.h"
#include "tests/lib/synthetic-series.h"

#define N_MAX 600

/* ---- the textbook segmentation ------------------------------------------------------------- */

/* n log s2 of x[a..b): the normal likelihood with the segment's own mean and variance, two
 * passes over the values, the variance floored as the method states. */
static double textbook_cost(const double *x, size_t a, size_t b) {
        double len = (double) (b - a), mean = 0, var = 0;
        for (size_t i = a; i < b; i++)
                mean += x[i];
        mean /= len;
        for (size_t i = a; i < b; i++)
                var += (x[i] - mean) * (x[i] - mean);
        var /= len;
        return len * log(var > 1e-12 ? var : 1e-12);
}

/* Optimal partitioning: F(t) = min over every admissible last start s of F(s) + C(s, t) + beta,
 * segments of at least 2 values; the changepoints by following the starts back. */
static size_t textbook_segmentation(const double *x, size_t n, double beta, size_t *cpts) {
        static double best[N_MAX + 1];
        static size_t last[N_MAX + 1];
        best[0] = -beta;
        for (size_t t = 1; t <= n; t++) {
                best[t] = INFINITY;
                last[t] = 0;
                for (size_t s = 0; s + 2 <= t; s++) {
                        if (s == 1 || !isfinite(best[s]))
                                continue;
                        double c = best[s] + textbook_cost(x, s, t) + beta;
                        if (c < best[t]) {
                                best[t] = c;
                                last[t] = s;
                        }
                }
        }
        size_t count = 0, tmp[N_MAX];
        for (size_t t = n; last[t] > 0; t = last[t])
                tmp[count++] = last[t];
        for (size_t k = 0; k < count; k++)
                cpts[k] = tmp[count - 1 - k];
        return count;
}

/* A series of n values: level times (1 + noise) with the shifts applied. */
static void make(double *x, size_t n, double level, double cov, const struct synthetic_shift *s, size_t n_s, uint64_t seed) {
        synthetic_series(x, n, level, cov, s, n_s, seed);
}

struct shape {
        const char *name;
        size_t n;
        double level;
        struct synthetic_shift shifts[3];
        size_t n_shifts;
        enum steady_state_class latency_class; /* the class when the values are latencies */
        size_t steady_start;                   /* where the steady state starts (latency) */
};

/* Latencies: a higher value is slower. */
static const struct shape shapes[] = {
        { "flat", 300, 10, { { 0, 1 } }, 0, STEADY_STATE_FLAT, 0 },
        { "one warmup step", 300, 15, { { 40, 10.0 / 15 } }, 1, STEADY_STATE_WARMUP, 40 },
        { "two warmup steps", 400, 20, { { 30, 0.75 }, { 90, 10.0 / 15 } }, 2, STEADY_STATE_WARMUP, 90 },
        { "slowdown", 300, 10, { { 150, 1.3 } }, 1, STEADY_STATE_SLOWDOWN, 150 },
        { "a change in the last quarter", 300, 15, { { 40, 10.0 / 15 }, { 260, 1.4 } }, 2, STEADY_STATE_NONE, 0 },
};

static void test_segmentation_agrees_with_textbook(void **state) {
        (void) state;
        static double x[N_MAX];
        unsigned compared = 0;
        for (size_t k = 0; k < ELEMENTSOF(shapes); k++)
                for (uint64_t seed = 1; seed <= 4; seed++) {
                        const struct shape *s = &shapes[k];
                        make(x, s->n, s->level, 0.03, s->shifts, s->n_shifts, seed);
                        /* As the method does: divided by the mean first. */
                        double mean = 0;
                        for (size_t i = 0; i < s->n; i++)
                                mean += x[i];
                        mean /= (double) s->n;
                        for (size_t i = 0; i < s->n; i++)
                                x[i] /= mean;
                        double beta = 15 * log((double) s->n);
                        size_t want[N_MAX], want_n = textbook_segmentation(x, s->n, beta, want);
                        _cleanup_free_ size_t *got = NULL;
                        size_t got_n = 0;
                        assert_int_equal(steady_state_pelt(x, s->n, beta, &got, &got_n), 0);
                        assert_int_equal(got_n, want_n);
                        for (size_t i = 0; i < got_n; i++)
                                assert_int_equal(got[i], want[i]);
                        /* A shift of a third is found where it is, within a value. */
                        for (size_t j = 0; j < s->n_shifts; j++) {
                                bool near = false;
                                for (size_t i = 0; i < got_n; i++)
                                        near = near || (got[i] + 1 >= s->shifts[j].at && got[i] <= s->shifts[j].at + 1);
                                assert_true(near);
                        }
                        compared++;
                }
        print_message("PELT and optimal partitioning agree on %u series\n", compared);
}

/* Series near the penalty's threshold (shifts of 2-6%, noise of 3-8%, a change of variance
 * alone), where the optimum is not obvious and a wrong cost or pruning shows. */
static void test_hard_segmentations_agree(void **state) {
        (void) state;
        static double x[N_MAX];
        unsigned with_changes = 0, series = 0;
        for (uint64_t seed = 1; seed <= 40; seed++) {
                size_t n = 80 + 10 * (seed % 5);
                double cov = 0.03 + 0.01 * (double) (seed % 6);
                const struct synthetic_shift small[] = { { n / 3, 1.02 + 0.01 * (double) (seed % 5) }, { 2 * n / 3, 0.97 } };
                make(x, n, 50, cov, small, seed % 3, seed);
                if (seed % 4 == 0) /* the noise quadruples from the middle on, the mean stays */
                        for (size_t i = n / 2; i < n; i++)
                                x[i] = 50 + 4 * (x[i] - 50);
                /* The method's penalty, and smaller ones: PELT is exact for any, and with many
                 * segments its pruning and the cost's details decide more of them. */
                const double penalties[] = { 15 * log((double) n), 2 * log((double) n), 3 };
                for (size_t b = 0; b < ELEMENTSOF(penalties); b++) {
                        size_t want[N_MAX], want_n = textbook_segmentation(x, n, penalties[b], want);
                        _cleanup_free_ size_t *got = NULL;
                        size_t got_n = 0;
                        assert_int_equal(steady_state_pelt(x, n, penalties[b], &got, &got_n), 0);
                        assert_int_equal(got_n, want_n);
                        for (size_t i = 0; i < got_n; i++)
                                assert_int_equal(got[i], want[i]);
                        if (b == 0)
                                with_changes += got_n > 0;
                }
                series++;
        }
        print_message("agreed on %u hard series, %u with changepoints\n", series, with_changes);
        assert_true(with_changes >= 5 && with_changes + 5 <= series);
}

/* Beyond PELT's length, binary segmentation: on series with steps that stand apart it finds
 * what PELT finds (within a value), and a long series is classified as its shape. */
static void test_binary_segmentation(void **state) {
        (void) state;
        static double x[1500];
        const struct synthetic_shift steps[] = { { 100, 0.7 }, { 400, 0.85 }, { 1100, 1.25 } };
        for (uint64_t seed = 1; seed <= 5; seed++) {
                make(x, 1500, 10, 0.03, steps, 3, seed);
                double beta = 15 * log(1500.0);
                _cleanup_free_ size_t *exact = NULL, *binary = NULL;
                size_t n_exact = 0, n_binary = 0;
                assert_int_equal(steady_state_pelt(x, 1500, beta, &exact, &n_exact), 0);
                assert_int_equal(steady_state_binseg(x, 1500, beta, &binary, &n_binary), 0);
                assert_int_equal(n_exact, 3);
                assert_int_equal(n_binary, n_exact);
                for (size_t i = 0; i < n_exact; i++)
                        assert_true(binary[i] + 1 >= exact[i] && binary[i] <= exact[i] + 1);
        }
        static double y[30000];
        const struct synthetic_shift warm[] = { { 300, 0.6 } };
        make(y, 30000, 10, 0.03, warm, 1, 9);
        struct steady_state r;
        assert_int_equal(steady_state_classify(y, 30000, false, 0, &r), 0);
        assert_int_equal(r.class, STEADY_STATE_WARMUP);
        assert_true(r.steady_start + 1 >= 300 && r.steady_start <= 301);
        steady_state_done(&r);
}

static void test_classes_of_latencies(void **state) {
        (void) state;
        static double x[N_MAX];
        for (size_t k = 0; k < ELEMENTSOF(shapes); k++)
                for (uint64_t seed = 1; seed <= 10; seed++) {
                        const struct shape *s = &shapes[k];
                        make(x, s->n, s->level, 0.03, s->shifts, s->n_shifts, seed);
                        struct steady_state r;
                        assert_int_equal(steady_state_classify(x, s->n, false, 0, &r), 0);
                        if (r.class != s->latency_class)
                                print_message("%s, seed %d: %s\n", s->name, (int) seed, steady_state_class_name(r.class));
                        assert_int_equal(r.class, s->latency_class);
                        assert_int_equal(r.have_steady, s->latency_class != STEADY_STATE_NONE);
                        if (r.have_steady) {
                                assert_true(r.steady_start + 1 >= s->steady_start && r.steady_start <= s->steady_start + 1);
                                double level = s->level;
                                for (size_t j = 0; j < s->n_shifts; j++)
                                        level *= s->shifts[j].factor;
                                assert_true(fabs(r.steady_mean / level - 1) < 0.02);
                        }
                        assert_int_equal(r.segments[0].start, 0);
                        assert_int_equal(r.segments[r.n_segments - 1].end, s->n);
                        for (size_t i = 1; i < r.n_segments; i++)
                                assert_int_equal(r.segments[i].start, r.segments[i - 1].end);
                        steady_state_done(&r);
                }
}

/* The same shapes as rates (1 / latency): a higher value is faster, and the classes hold. */
static void test_classes_of_rates(void **state) {
        (void) state;
        static double x[N_MAX];
        for (size_t k = 0; k < ELEMENTSOF(shapes); k++) {
                const struct shape *s = &shapes[k];
                make(x, s->n, s->level, 0.03, s->shifts, s->n_shifts, 7);
                for (size_t i = 0; i < s->n; i++)
                        x[i] = 1000 / x[i];
                struct steady_state r;
                assert_int_equal(steady_state_classify(x, s->n, true, 0, &r), 0);
                assert_int_equal(r.class, s->latency_class);
                steady_state_done(&r);
                /* Read the wrong way round, a warmup is a slowdown. */
                if (s->latency_class == STEADY_STATE_WARMUP) {
                        assert_int_equal(steady_state_classify(x, s->n, false, 0, &r), 0);
                        assert_int_equal(r.class, STEADY_STATE_SLOWDOWN);
                        steady_state_done(&r);
                }
        }
}

/* A GC pause's interval ten times the rest, mid-series: an outlier, not a segment. */
static void test_outlier(void **state) {
        (void) state;
        static double x[300];
        make(x, 300, 10, 0.02, NULL, 0, 3);
        x[180] = 100;
        struct steady_state r;
        assert_int_equal(steady_state_classify(x, 300, false, 0, &r), 0);
        assert_int_equal(r.class, STEADY_STATE_FLAT);
        assert_true(r.n_outliers >= 1);
        assert_int_equal(r.n_segments, 1);
        assert_true(fabs(r.steady_mean - 10) < 0.2);
        steady_state_done(&r);
        /* Where the window is cut short by the start, a high value is warmup, not an outlier. */
        bool flags[300];
        x[180] = 10;
        x[2] = 100;
        assert_int_equal(steady_state_outliers(x, 300, 30, flags), 0);
        assert_false(flags[2]);
        x[2] = 10;
        x[200] = 100;
        assert_int_equal(steady_state_outliers(x, 300, 30, flags), 0);
        assert_true(flags[200]);
}

static void test_refusals(void **state) {
        (void) state;
        double x[4] = { 1, 2, NAN, 4 }, neg[3] = { 1, -1, 2 };
        struct steady_state r = { .n_segments = 77 };
        assert_int_equal(steady_state_classify(x, 4, false, 0, &r), -EINVAL);
        assert_int_equal(steady_state_classify(neg, 3, false, 0, &r), -EINVAL);
        assert_int_equal(steady_state_classify(x, 0, false, 0, &r), -EINVAL);
        assert_int_equal(r.n_segments, 77);
        double one[1] = { 5 };
        assert_int_equal(steady_state_classify(one, 1, false, 0, &r), 0);
        assert_int_equal(r.class, STEADY_STATE_FLAT);
        steady_state_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_segmentation_agrees_with_textbook),
                cmocka_unit_test(test_hard_segmentations_agree),
                cmocka_unit_test(test_binary_segmentation),
                cmocka_unit_test(test_classes_of_latencies),
                cmocka_unit_test(test_classes_of_rates),
                cmocka_unit_test(test_outlier),
                cmocka_unit_test(test_refusals),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
