/* test-change-points.c: E-Divisive means (basic/change-points) on synthetic series with 2% CoV
 * noise: shifts of 5% and 10% at known positions found within one experiment with their size,
 * no change point on flat series in at least 95 of 100 seeds, the same answer for the same seed,
 * and the refusals (parameters, non-finite values) and degenerate series (short, constant). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/change-points.h"
#include "basic/macro.h"
#include "tests/lib/synthetic-series.h"

#define SEEDS 100

static size_t find(const double *x, size_t n, const struct change_points_params *p, struct change_point **ret) {
        size_t n_cp = 0;
        assert_int_equal(change_points_find(x, n, p, ret, &n_cp), 0);
        return n_cp;
}

/* In how many of SEEDS series every shift is found within one experiment and nothing else. */
static unsigned found_within_one(size_t n, const struct synthetic_shift *shifts, size_t n_shifts) {
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        double x[100];
        unsigned ok = 0;
        assert_true(n <= ELEMENTSOF(x));
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                synthetic_series(x, n, 1000, 0.02, shifts, n_shifts, seed);
                _cleanup_free_ struct change_point *cp = NULL;
                size_t n_cp = find(x, n, &p, &cp);
                bool good = n_cp == n_shifts;
                for (size_t k = 0; good && k < n_cp; k++)
                        good = cp[k].index + 1 >= shifts[k].at && cp[k].index <= shifts[k].at + 1;
                ok += good;
        }
        return ok;
}

static void test_single_shifts(void **state) {
        (void) state;
        const struct synthetic_shift up5 = { 25, 1.05 }, up10 = { 25, 1.10 }, down5 = { 12, 0.95 };
        /* Misses are mostly a spurious second change (about 1 in 100, the significance) or the
         * 5% change placed two away; tests/bench/change-points.sh prints the rates. */
        assert_true(found_within_one(50, &up5, 1) >= 90);
        assert_true(found_within_one(50, &up10, 1) >= 95);
        assert_true(found_within_one(30, &down5, 1) >= 85);
}

static void test_two_shifts(void **state) {
        (void) state;
        const struct synthetic_shift shifts[] = { { 20, 1.10 }, { 40, 1.05 } };
        assert_true(found_within_one(60, shifts, 2) >= 85);
}

static void test_flat(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        const size_t lengths[] = { 20, 50, 100 };
        for (size_t l = 0; l < ELEMENTSOF(lengths); l++) {
                unsigned quiet = 0;
                double x[100];
                for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                        synthetic_series(x, lengths[l], 1000, 0.02, NULL, 0, seed);
                        _cleanup_free_ struct change_point *cp = NULL;
                        quiet += find(x, lengths[l], &p, &cp) == 0;
                }
                print_message("flat series of %zu: no change point in %u of %d seeds\n", lengths[l], quiet, SEEDS);
                assert_true(quiet >= 95);
        }
}

/* The shift's size and interval: +10% reported near 0.10, the interval around it, excluding 0. */
static void test_shift_size(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        const struct synthetic_shift up10 = { 20, 1.10 };
        double x[40];
        synthetic_series(x, 40, 1000, 0.02, &up10, 1, 3);
        _cleanup_free_ struct change_point *cp = NULL;
        assert_int_equal(find(x, 40, &p, &cp), 1);
        assert_int_equal(cp[0].index, 20);
        assert_int_equal(cp[0].before_start, 0);
        assert_int_equal(cp[0].after_end, 40);
        assert_true(cp[0].have_shift && cp[0].have_ci);
        assert_string_equal(cp[0].method, "log-welch");
        assert_true(cp[0].shift > 0.08 && cp[0].shift < 0.12);
        assert_true(cp[0].shift_low > 0 && cp[0].shift_low < cp[0].shift && cp[0].shift < cp[0].shift_high);
        assert_true(cp[0].p_value <= p.significance);
        assert_true(cp[0].statistic > 0);
}

static void test_reproducible(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.significance = 0.05;
        const struct synthetic_shift up5 = { 10, 1.03 };
        double x[24];
        synthetic_series(x, 24, 1000, 0.02, &up5, 1, 9);
        _cleanup_free_ struct change_point *a = NULL, *b = NULL;
        size_t na = find(x, 24, &p, &a), nb = find(x, 24, &p, &b);
        assert_int_equal(na, nb);
        for (size_t k = 0; k < na; k++) {
                assert_int_equal(a[k].index, b[k].index);
                assert_true(a[k].p_value == b[k].p_value);
        }
}

/* A change is never closer than min_segment to an end or to another change. */
static void test_min_segment(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.min_segment = 6;
        const struct synthetic_shift early = { 3, 1.20 };
        double x[40];
        synthetic_series(x, 40, 1000, 0.02, &early, 1, 5);
        _cleanup_free_ struct change_point *cp = NULL;
        size_t n = find(x, 40, &p, &cp);
        for (size_t k = 0; k < n; k++) {
                assert_true(cp[k].index - cp[k].before_start >= 6);
                assert_true(cp[k].after_end - cp[k].index >= 6);
        }
}

static void test_degenerate(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        double constant[30], shortx[7] = { 1, 1, 1, 9, 9, 9, 9 };
        for (size_t i = 0; i < 30; i++)
                constant[i] = 5;
        _cleanup_free_ struct change_point *a = NULL, *b = NULL, *c = NULL;
        assert_int_equal(find(constant, 30, &p, &a), 0);
        assert_int_equal(find(shortx, 7, &p, &b), 0); /* shorter than 2 * min_segment */
        assert_int_equal(find(NULL, 0, &p, &c), 0);
}

static void test_refusals(void **state) {
        (void) state;
        double x[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
        struct change_point *cp = (struct change_point *) 0x1;
        size_t n = 77;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.significance = 0;
        assert_int_equal(change_points_find(x, 10, &p, &cp, &n), -EINVAL);
        p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.significance = 0.6;
        assert_int_equal(change_points_find(x, 10, &p, &cp, &n), -EINVAL);
        p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.min_segment = 1;
        assert_int_equal(change_points_find(x, 10, &p, &cp, &n), -EINVAL);
        p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.permutations = 0;
        assert_int_equal(change_points_find(x, 10, &p, &cp, &n), -EINVAL);
        p = CHANGE_POINTS_PARAMS_DEFAULT;
        x[4] = NAN;
        assert_int_equal(change_points_find(x, 10, &p, &cp, &n), -EINVAL);
        assert_ptr_equal(cp, (struct change_point *) 0x1);
        assert_int_equal(n, 77);
}

/* A shift that comes back: 10 x 100, 10 x 120, 10 x 100, noise-free, has a change at both ends;
 * with the right side running to the segment's end it had none (p 0.051). */
static void test_temporary_shift_noise_free(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        double x[30];
        for (size_t i = 0; i < 30; i++)
                x[i] = i >= 10 && i < 20 ? 120 : 100;
        _cleanup_free_ struct change_point *cp = NULL;
        assert_int_equal(find(x, 30, &p, &cp), 2);
        assert_int_equal(cp[0].index, 10);
        assert_int_equal(cp[1].index, 20);
        assert_true(cp[0].shift > 0.199 && cp[0].shift < 0.201);
        assert_true(cp[1].shift < -0.16 && cp[1].shift > -0.17);
}

/* +10% over experiments 15-24 of 40 with 2% noise, the audit's case: both ends found. */
static void test_temporary_shift_noisy(void **state) {
        (void) state;
        const struct synthetic_shift shifts[] = { { 15, 1.10 }, { 25, 1 / 1.10 } };
        unsigned ok = found_within_one(40, shifts, 2);
        print_message("+10%% over 15-24 of 40: both ends within one in %u of %d seeds\n", ok, SEEDS);
        assert_true(ok >= 90);
}

/* ---- the textbook E-Divisive, written from the paper's definitions -------------------------- */

/* Q of X = x[s..t) and Y = x[t..e) straight from the definition: every distance summed anew. */
static double textbook_q(const double *x, size_t s, size_t t, size_t e) {
        double m = (double) (t - s), n = (double) (e - t), between = 0, within_x = 0, within_y = 0;
        for (size_t i = s; i < t; i++)
                for (size_t j = t; j < e; j++)
                        between += fabs(x[i] - x[j]);
        for (size_t i = s; i < t; i++)
                for (size_t j = i + 1; j < t; j++)
                        within_x += fabs(x[i] - x[j]);
        for (size_t i = t; i < e; i++)
                for (size_t j = i + 1; j < e; j++)
                        within_y += fabs(x[i] - x[j]);
        double energy = 2 * between / (m * n) - within_x / (m * (m - 1) / 2) - within_y / (n * (n - 1) / 2);
        return m * n / (m + n) * energy;
}

/* The paper's estimate over a whole series: the (tau, kappa) of the largest Q. */
static double textbook_best(const double *x, size_t len, size_t min, size_t *ret_tau) {
        double best = -INFINITY;
        for (size_t kappa = 2 * min; kappa <= len; kappa++)
                for (size_t tau = min; tau + min <= kappa; tau++) {
                        double q = textbook_q(x, 0, tau, kappa);
                        if (q > best) {
                                best = q;
                                *ret_tau = tau;
                        }
                }
        return best;
}

/* On series of several shapes (a step, a shift that comes back, a slope, a spike, noise alone at
 * 10% CoV) the first change the search accepts is the textbook's estimate over the whole series:
 * the same index and the same Q. */
static void test_agrees_with_textbook(void **state) {
        (void) state;
        struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
        p.significance = 0.5; /* so that even noise gives a first change to compare */
        const struct synthetic_shift step[] = { { 13, 1.2 } }, back[] = { { 9, 1.3 }, { 17, 1 / 1.3 } },
                                     late[] = { { 31, 0.8 } };
        const struct { const struct synthetic_shift *shifts; size_t n_shifts; double cov; } shapes[] = {
                { step, 1, 0.05 }, { back, 2, 0.05 }, { late, 1, 0.05 }, { NULL, 0, 0.10 },
        };
        unsigned compared = 0;
        for (size_t sh = 0; sh < ELEMENTSOF(shapes); sh++)
                for (uint64_t seed = 1; seed <= 10; seed++) {
                        size_t len = 24 + 3 * seed;
                        double x[60];
                        synthetic_series(x, len, 100, shapes[sh].cov, shapes[sh].shifts, shapes[sh].n_shifts, seed);
                        size_t tau = 0;
                        double q = textbook_best(x, len, p.min_segment, &tau);
                        _cleanup_free_ struct change_point *cp = NULL;
                        size_t n_cp = find(x, len, &p, &cp);
                        if (n_cp == 0)
                                continue; /* p above 0.5: nothing accepted to compare */
                        /* The first change accepted is the best split of all of [0, len). */
                        size_t k = 0;
                        while (k < n_cp && cp[k].index != tau)
                                k++;
                        assert_true(k < n_cp);
                        assert_true(fabs(cp[k].statistic - q) <= 1e-9 * fabs(q));
                        compared++;
                }
        print_message("agreed with the textbook E-Divisive on %u series\n", compared);
        assert_true(compared >= 30);
}

/* A step of 50% at every place a change can be, in series of every length from 8 to 40 with
 * min_segment 2 to 5 (so that the best split and both ends of a row fall at every place of the
 * search's blocks of four values): the first change accepted is the textbook's estimate, the
 * same index and Q to 1e-9; nearly all are accepted (not the shortest with a change at an end). */
static void test_agrees_with_textbook_everywhere(void **state) {
        (void) state;
        unsigned compared = 0;
        for (size_t len = 8; len <= 40; len++) {
                struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
                p.significance = 0.5;
                p.permutations = 19;
                p.min_segment = 2 + len % 4;
                for (size_t at = p.min_segment; at + p.min_segment <= len; at++) {
                        const struct synthetic_shift step = { at, 1.5 };
                        double x[40];
                        synthetic_series(x, len, 100, 0.02, &step, 1, len * 100 + at);
                        size_t tau = 0;
                        double q = textbook_best(x, len, p.min_segment, &tau);
                        _cleanup_free_ struct change_point *cp = NULL;
                        size_t n_cp = find(x, len, &p, &cp), k = 0;
                        if (n_cp == 0)
                                continue;
                        while (k < n_cp && cp[k].index != tau)
                                k++;
                        assert_true(k < n_cp);
                        assert_true(fabs(cp[k].statistic - q) <= 1e-9 * fabs(q));
                        compared++;
                }
        }
        print_message("agreed with the textbook E-Divisive on %u steps\n", compared);
        assert_true(compared >= 550);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_single_shifts), cmocka_unit_test(test_two_shifts),
                cmocka_unit_test(test_flat),          cmocka_unit_test(test_shift_size),
                cmocka_unit_test(test_reproducible),  cmocka_unit_test(test_min_segment),
                cmocka_unit_test(test_degenerate),    cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_temporary_shift_noise_free),
                cmocka_unit_test(test_temporary_shift_noisy),
                cmocka_unit_test(test_agrees_with_textbook),
                cmocka_unit_test(test_agrees_with_textbook_everywhere),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
