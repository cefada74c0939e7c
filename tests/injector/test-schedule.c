/* test-schedule.c: the open loop's schedule: uniform arrivals exactly at t0 + k/R, Poisson
 * arrivals whose gaps have mean 1/R and coefficient of variation 1, the same for the same seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "basic/time-util.h"
#include "injector/schedule.h"

static void test_uniform(void **state) {
        struct schedule s;
        int64_t t0 = 1000 * NSEC_PER_SEC;
        schedule_init(&s, INJECT_ARRIVAL_UNIFORM, 6000, 1, t0);
        for (uint64_t k = 0; k < 6000 * 240; k++) {
                assert_int_equal(s.next_k, k);
                /* k / 6000 s, truncated to ns, computed from k: no drift after millions. */
                assert_int_equal(s.next_ns, t0 + (int64_t) (k * 1000000 / 6));
                schedule_advance(&s);
        }
        schedule_init(&s, INJECT_ARRIVAL_UNIFORM, 3, 1, 0);
        schedule_advance(&s);
        assert_int_equal(s.next_ns, 333333333);
}

static void gap_stats(uint64_t seed, double rate, size_t n, double *mean, double *cv) {
        struct schedule s;
        schedule_init(&s, INJECT_ARRIVAL_POISSON, rate, seed, 0);
        double sum = 0, sumsq = 0;
        int64_t prev = s.next_ns;
        for (size_t i = 0; i < n; i++) {
                schedule_advance(&s);
                double g = (double) (s.next_ns - prev);
                assert_true(g >= 0);
                prev = s.next_ns;
                sum += g;
                sumsq += g * g;
        }
        *mean = sum / (double) n;
        *cv = sqrt(sumsq / (double) n - *mean * *mean) / *mean;
}

static void test_poisson(void **state) {
        static const double rates[] = { 2000, 6000, 100000, 0.5 };
        for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
                for (uint64_t seed = 1; seed <= 3; seed++) {
                        double mean, cv;
                        gap_stats(seed, rates[i], 200000, &mean, &cv);
                        double want = 1e9 / rates[i];
                        assert_true(fabs(mean - want) / want < 0.05);
                        assert_true(fabs(cv - 1.0) < 0.05);
                }
}

static void test_seeded(void **state) {
        struct schedule a, b, c;
        schedule_init(&a, INJECT_ARRIVAL_POISSON, 1000, 42, 0);
        schedule_init(&b, INJECT_ARRIVAL_POISSON, 1000, 42, 0);
        schedule_init(&c, INJECT_ARRIVAL_POISSON, 1000, 43, 0);
        bool differs = false;
        for (int i = 0; i < 1000; i++) {
                assert_int_equal(a.next_ns, b.next_ns);
                differs |= a.next_ns != c.next_ns;
                schedule_advance(&a);
                schedule_advance(&b);
                schedule_advance(&c);
        }
        assert_true(differs);
}

static void test_uniform_pos(void **state) {
        struct rng r;
        schedule_rng_seed(&r, 7);
        for (int i = 0; i < 1000000; i++) {
                double u = schedule_rng_uniform_pos(&r);
                assert_true(u > 0.0 && u <= 1.0);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_uniform), cmocka_unit_test(test_poisson),
                cmocka_unit_test(test_seeded),  cmocka_unit_test(test_uniform_pos),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
