/* test-capacity-search.c: the capacity search as a pure function of step outcomes: against a
 * simulated server whose capacity is known, it ends within the precision of it in at most
 * capacity_search_max_steps() steps, the step at max_rps met and the answer's next step up
 * (within the precision) missed; the stop conditions (rate_max met, rate_min missed); the step
 * bound for precision 0.05. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "basic/capacity-search.h"

struct trace {
        double rates[32];
        bool met[32];
        unsigned n;
};

/* Run the search against a server that meets every rate <= capacity. */
static enum capacity_outcome run(double rate_min, double rate_max, double precision, double capacity,
                                 struct trace *t, struct capacity_search *s) {
        double rate;
        capacity_search_init(s, rate_min, rate_max, precision);
        t->n = 0;
        while (capacity_search_next(s, &rate)) {
                assert_true(t->n < 32);
                assert_true(rate >= rate_min && rate <= rate_max);
                t->rates[t->n] = rate;
                t->met[t->n] = rate <= capacity;
                capacity_search_record(s, rate, t->met[t->n]);
                t->n++;
        }
        assert_int_equal(s->steps, t->n);
        return s->outcome;
}

static void test_found(void **state) {
        const double capacities[] = { 101, 150, 333.3, 646, 999, 1000, 1416, 1999 };
        const double precisions[] = { 0.01, 0.05, 0.1 };
        for (size_t p = 0; p < sizeof precisions / sizeof *precisions; p++)
                for (size_t i = 0; i < sizeof capacities / sizeof *capacities; i++) {
                        struct trace t;
                        struct capacity_search s;
                        double prec = precisions[p];
                        assert_int_equal(run(100, 2000, prec, capacities[i], &t, &s), CAPACITY_FOUND);
                        assert_true(t.n <= capacity_search_max_steps(100, 2000, prec));
                        /* the answer met, and is within the precision below the capacity */
                        assert_true(s.max_rps <= capacities[i]);
                        assert_true(s.max_rps * (1 + prec) >= capacities[i]);
                        /* a step within the precision above the answer missed */
                        bool missed_above = false;
                        for (unsigned k = 0; k < t.n; k++) {
                                if (t.rates[k] == s.max_rps)
                                        assert_true(t.met[k]);
                                if (!t.met[k] && t.rates[k] > s.max_rps && t.rates[k] <= s.max_rps * (1 + prec) * (1 + 1e-12))
                                        missed_above = true;
                        }
                        assert_true(missed_above);
                }
}

static void test_first_step_is_the_geometric_middle(void **state) {
        struct capacity_search s;
        double rate;
        capacity_search_init(&s, 100, 1600, 0.05);
        assert_true(capacity_search_next(&s, &rate));
        assert_float_equal(rate, 400, 1e-9);
        capacity_search_record(&s, rate, true);
        assert_true(capacity_search_next(&s, &rate));
        assert_float_equal(rate, 800, 1e-9);
        capacity_search_record(&s, rate, false);
        assert_true(capacity_search_next(&s, &rate));
        assert_float_equal(rate, sqrt(400.0 * 800.0), 1e-9);
}

static void test_rate_max_met(void **state) {
        struct trace t;
        struct capacity_search s;
        assert_int_equal(run(100, 2000, 0.05, 5000, &t, &s), CAPACITY_RATE_MAX_MET);
        assert_float_equal(s.max_rps, 2000, 0);
        assert_float_equal(t.rates[t.n - 1], 2000, 0);  /* rate_max itself was tested */
        assert_true(t.met[t.n - 1]);
        assert_true(t.n <= capacity_search_max_steps(100, 2000, 0.05));
        assert_string_equal(capacity_outcome_to_string(s.outcome), "rate_max_met");
}

static void test_rate_min_missed(void **state) {
        struct trace t;
        struct capacity_search s;
        double rate;
        assert_int_equal(run(100, 2000, 0.05, 50, &t, &s), CAPACITY_RATE_MIN_MISSED);
        assert_float_equal(t.rates[t.n - 1], 100, 0);   /* rate_min itself was tested */
        assert_false(t.met[t.n - 1]);
        for (unsigned k = 0; k < t.n; k++)
                assert_false(t.met[k]);
        assert_false(capacity_search_next(&s, &rate));
        assert_string_equal(capacity_outcome_to_string(s.outcome), "rate_min_missed");
}

static void test_exactly_rate_min(void **state) {
        struct trace t;
        struct capacity_search s;
        assert_int_equal(run(100, 2000, 0.05, 100, &t, &s), CAPACITY_FOUND);
        assert_float_equal(s.max_rps, 100, 0);
}

static void test_step_bound(void **state) {
        /* precision 0.05: 7 steps up to a range of 22.7x, 8 up to 516x, more beyond */
        assert_int_equal(capacity_search_max_steps(100, 2000, 0.05), 7);
        assert_int_equal(capacity_search_max_steps(100, 4000, 0.05), 8);
        assert_int_equal(capacity_search_max_steps(100, 51000, 0.05), 8);
        assert_true(capacity_search_max_steps(100, 52000, 0.05) > CAPACITY_STEPS_MAX);
        assert_int_equal(capacity_search_max_steps(100, 104, 0.05), 2);
        /* the bound holds against every capacity in the range (a fine sweep) */
        for (double c = 90; c < 4500; c *= 1.013) {
                struct trace t;
                struct capacity_search s;
                run(100, 4000, 0.05, c, &t, &s);
                assert_true(t.n <= 8);
        }
}

static void test_no_step_after_the_end(void **state) {
        struct trace t;
        struct capacity_search s;
        run(100, 2000, 0.05, 700, &t, &s);
        unsigned steps = s.steps;
        capacity_search_record(&s, 5, true);    /* ignored */
        assert_int_equal(s.steps, steps);
        assert_int_equal(s.outcome, CAPACITY_FOUND);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_found),         cmocka_unit_test(test_first_step_is_the_geometric_middle),
                cmocka_unit_test(test_rate_max_met),  cmocka_unit_test(test_rate_min_missed),
                cmocka_unit_test(test_exactly_rate_min), cmocka_unit_test(test_step_bound),
                cmocka_unit_test(test_no_step_after_the_end),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
