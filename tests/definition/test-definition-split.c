/* test-definition-split.c: a load spread over hosts: the rates by share, distinct Poisson seeds,
 * and uniform phases whose union is evenly spaced where the shares tile the slots (checked on
 * the arrivals themselves, not on the formula). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "definition/definition.h"

static struct definition_load make(double rate, enum definition_arrival a, const double *shares, size_t n) {
        struct definition_load l = { .kind = DEFINITION_LOAD_INJECTOR, .mode = DEFINITION_MODE_RATE, .rate = rate,
                                     .arrival = a, .n_hosts = n };
        l.hosts = calloc(n, sizeof *l.hosts);
        for (size_t i = 0; i < n; i++)
                l.hosts[i].share = shares[i];
        return l;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

/* The hosts' uniform arrivals in [0, 1 s), merged: the largest deviation of a gap from 1/rate. */
static double union_gap_error(const struct definition_load *l, const struct definition_host_load *s) {
        size_t cap = (size_t) l->rate * 2 + 16, n = 0;
        _cleanup_free_ double *t = calloc(cap, sizeof *t);
        for (size_t i = 0; i < l->n_hosts; i++)
                for (double k = 0;; k++) {
                        double at = (double) s[i].phase_ns + k * 1e9 / s[i].rate;
                        if (at >= 1e9)
                                break;
                        assert_true(n < cap);
                        t[n++] = at;
                }
        qsort(t, n, sizeof *t, cmp_double);
        assert_int_equal(n, (size_t) l->rate);
        double worst = 0, gap = 1e9 / l->rate;
        for (size_t i = 1; i < n; i++)
                worst = fmax(worst, fabs(t[i] - t[i - 1] - gap));
        return worst;
}

static void check(double rate, const double *shares, size_t n, bool want_even) {
        struct definition_load l = make(rate, DEFINITION_ARRIVAL_UNIFORM, shares, n);
        struct definition_host_load s[8];
        bool even = !want_even;
        assert_int_equal(definition_load_split(&l, 7, s, &even), 0);
        assert_int_equal(even, want_even);
        double sum = 0, total = 0;
        for (size_t i = 0; i < n; i++)
                sum += shares[i];
        for (size_t i = 0; i < n; i++) {
                assert_true(fabs(s[i].rate - rate * shares[i] / sum) < 1e-9);
                total += s[i].rate;
                /* the peer's rule: 0 <= phase < its own period */
                assert_true(s[i].phase_ns >= 0 && (double) s[i].phase_ns < 1e9 / s[i].rate);
        }
        assert_true(fabs(total - rate) < 1e-6);
        if (want_even)
                assert_true(union_gap_error(&l, s) <= 1.0); /* ns: the rounding of the phases */
        else
                assert_true(union_gap_error(&l, s) > 1000.0); /* and the test would see it */
        free(l.hosts);
}

static void test_uniform(void **state) {
        static const double one[] = { 1 }, three[] = { 1, 1, 1 }, two_one_one[] = { 2, 1, 1 },
                            one_one_two[] = { 1, 1, 2 }, four[] = { 1, 4, 2, 1 }, one_two[] = { 1, 2 },
                            three_two[] = { 3, 2 };
        check(500, one, 1, true);
        check(900, three, 3, true);
        check(400, two_one_one, 3, true);
        check(400, one_one_two, 3, true);
        check(800, four, 4, true);
        /* periods 3 and 1.5 slots, 5/3 and 5/2: no phases tile them */
        check(900, one_two, 2, false);
        check(1000, three_two, 2, false);

        /* equal shares: host i starts i/(n x its rate) late, i / total rate */
        struct definition_load l = make(900, DEFINITION_ARRIVAL_UNIFORM, three, 3);
        struct definition_host_load s[3];
        bool even;
        assert_int_equal(definition_load_split(&l, 7, s, &even), 0);
        for (size_t i = 0; i < 3; i++)
                assert_true(llabs(s[i].phase_ns - (int64_t) llround((double) i * 1e9 / 900)) <= 1);
        free(l.hosts);
}

static void test_poisson_and_max(void **state) {
        static const double shares[] = { 1, 3, 1, 1 };
        struct definition_load l = make(600, DEFINITION_ARRIVAL_POISSON, shares, 4);
        struct definition_host_load s[4], again[4];
        bool even = false;
        assert_int_equal(definition_load_split(&l, 42, s, &even), 0);
        assert_true(even);
        for (size_t i = 0; i < 4; i++) {
                assert_int_equal(s[i].phase_ns, 0);
                assert_true(s[i].seed >= 1 && s[i].seed <= DEFINITION_SEED_MAX);
                for (size_t k = 0; k < i; k++)
                        assert_true(s[i].seed != s[k].seed);
        }
        assert_true(fabs(s[1].rate - 300) < 1e-9);
        /* the same run's seed gives the same split: a rerun replays its schedules */
        assert_int_equal(definition_load_split(&l, 42, again, &even), 0);
        assert_memory_equal(s, again, sizeof s);

        l.mode = DEFINITION_MODE_MAX;
        assert_int_equal(definition_load_split(&l, 42, s, &even), 0);
        assert_true(even);
        assert_true(s[0].rate == 0 && s[3].rate == 0);
        free(l.hosts);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_uniform),
                cmocka_unit_test(test_poisson_and_max),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
