/* test-spin-tuner.c: the warmup's spin tuning on lags given by hand: a window's p99 (the upper
 * edge of its 10 us bucket), a raise by the excess over half the goal, the budget as the cap, no
 * lowering, windows of at least SPIN_TUNER_WINDOW_MIN, and nothing when inactive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>

#include "basic/time-util.h"
#include "injector/spin-tuner.h"

#define US NSEC_PER_USEC

static void add_window(struct spin_tuner *t, unsigned n, unsigned n_slow, int64_t lag, int64_t slow_lag) {
        for (unsigned i = 0; i < n; i++)
                spin_tuner_add(t, i < n_slow ? slow_lag : lag);
}

static void test_raise_by_excess(void **state) {
        struct spin_tuner t;
        spin_tuner_init(&t, true, 20 * US, 250 * US, 200 * US, 1000);
        /* 1% of 1000 at 375 us: p99 is the 990th, in the bucket [370, 380) us: 380 us, so the
         * spin grows by 380 - 100 us. */
        add_window(&t, 1000, 11, 30 * US, 375 * US);
        assert_int_equal(t.windows, 1);
        assert_int_equal(t.last_p99_ns, 380 * US);
        assert_int_equal(t.raises, 1);
        assert_int_equal(t.spin_ns, 250 * US);   /* 20 + 280 us, capped by the budget */
}

static void test_within_goal_keeps_spin(void **state) {
        struct spin_tuner t;
        spin_tuner_init(&t, true, 50 * US, 250 * US, 200 * US, 500);
        add_window(&t, 500, 4, 10 * US, 5000 * US);   /* 4 of 500 slow: p99 is the 495th, fast */
        assert_int_equal(t.last_p99_ns, 20 * US);
        assert_int_equal(t.raises, 0);
        assert_int_equal(t.spin_ns, 50 * US);
        /* Then a bad window raises it (p99 in the last bucket, 2.56 ms): to the budget. */
        add_window(&t, 500, 10, 10 * US, 5000 * US);
        assert_int_equal(t.last_p99_ns, 2560 * US);
        assert_int_equal(t.spin_ns, 250 * US);
        /* A quiet window after it never lowers it. */
        add_window(&t, 500, 0, 0, 0);
        assert_int_equal(t.windows, 3);
        assert_int_equal(t.raises, 1);
        assert_int_equal(t.spin_ns, 250 * US);
}

static void test_small_raise(void **state) {
        struct spin_tuner t;
        spin_tuner_init(&t, true, 20 * US, 250 * US, 200 * US, 200);
        add_window(&t, 200, 3, 0, 205 * US);   /* p99 the 198th: bucket [200, 210) -> 210 us */
        assert_int_equal(t.spin_ns, 20 * US + 210 * US - 100 * US);
}

static void test_window_minimum_and_inactive(void **state) {
        struct spin_tuner t;
        spin_tuner_init(&t, true, 20 * US, 250 * US, 200 * US, 10);
        assert_int_equal(t.window, SPIN_TUNER_WINDOW_MIN);
        add_window(&t, SPIN_TUNER_WINDOW_MIN - 1, 0, 0, 0);
        assert_int_equal(t.windows, 0);
        assert_int_equal(t.last_p99_ns, -1);
        spin_tuner_add(&t, -5);   /* a clock step backwards counts as on time */
        assert_int_equal(t.windows, 1);
        assert_int_equal(t.last_p99_ns, 10 * US);

        spin_tuner_init(&t, false, 20 * US, 250 * US, 200 * US, 200);
        add_window(&t, 1000, 1000, 0, 5000 * US);
        assert_int_equal(t.windows, 0);
        assert_int_equal(t.spin_ns, 20 * US);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_raise_by_excess),
                cmocka_unit_test(test_within_goal_keeps_spin),
                cmocka_unit_test(test_small_raise),
                cmocka_unit_test(test_window_minimum_and_inactive),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
