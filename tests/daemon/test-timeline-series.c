/* test-timeline-series.c: a run's series per second from its timeline and its steady-state
 * class (daemon/timeline-series): a timeline that warms up (20 s at 10 ms, then 5 ms) is
 * "warmup" with its steady state from 20 s and a mean of 5000 us; a flat one is "flat" from 0;
 * a closed loop's rate that falls off late is "slowdown"; too short a timeline has no class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "daemon/timeline-series.h"
#include "tests/lib/synthetic-series.h"

#define RATE 100

/* A timeline of seconds s at RATE requests a second from t0 = 1 s, its latency at second k
 * latency_ms(k) with 3% noise; the first warmup_s seconds flagged warmup. */
static struct timeline *make(int seconds, double (*latency_ms)(int k), int warmup_s, int rate_drop_at) {
        struct timeline *t = calloc(1, sizeof *t);
        assert_non_null(t);
        int64_t t0 = 1000000000;
        t->records = calloc((size_t) seconds * RATE, sizeof *t->records);
        assert_non_null(t->records);
        t->header.start_ns = t0;
        t->header.measure_start_ns = t0 + (int64_t) warmup_s * 1000000000;
        uint64_t rng = 5;
        for (int k = 0; k < seconds; k++) {
                int n = rate_drop_at && k >= rate_drop_at ? RATE / 2 : RATE;
                for (int i = 0; i < n; i++) {
                        struct timeline_record *r = &t->records[t->n++];
                        r->scheduled_ns = t0 + (int64_t) k * 1000000000 + (int64_t) i * (1000000000 / n);
                        r->submit_ns = r->scheduled_ns;
                        r->done_ns = r->scheduled_ns + (int64_t) (latency_ms(k) * (1 + 0.03 * synthetic_normal(&rng)) * 1e6);
                        r->status = 200;
                        r->flags = k < warmup_s ? TIMELINE_WARMUP : 0;
                }
        }
        return t;
}

static void drop(struct timeline *t) {
        free(t->records);
        free(t);
}

static double warming(int k) {
        return k < 20 ? 10 : 5;
}

static double flat(int k) {
        (void) k;
        return 5;
}

static const cJSON *classify(struct timeline *t, bool rate, cJSON *m) {
        assert_int_equal(timeline_steady_state(t, rate, m), 0);
        return cJSON_GetObjectItem(m, "steady_state");
}

static void test_warmup(void **state) {
        (void) state;
        struct timeline *t = make(90, warming, 10, 0);
        _cleanup_json_ cJSON *m = cJSON_CreateObject();
        const cJSON *s = classify(t, false, m);
        assert_non_null(s);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(s, "class")), "warmup");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(s, "metric")), "latency_us.scheduled.p50");
        assert_true(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "start_s")) - 20) <= 1);
        assert_true(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "mean")) - 5000) < 100);
        assert_true(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "measure_start_s")) - 10) < 1e-9);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(s, "segments")), 2);
        assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "intervals")) >= 88);
        drop(t);
}

static void test_flat_and_short(void **state) {
        (void) state;
        struct timeline *t = make(60, flat, 5, 0);
        _cleanup_json_ cJSON *m = cJSON_CreateObject();
        const cJSON *s = classify(t, false, m);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(s, "class")), "flat");
        assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "start_s")) == 0);
        drop(t);
        t = make(3, flat, 1, 0);
        _cleanup_json_ cJSON *m2 = cJSON_CreateObject();
        assert_null(classify(t, false, m2));
        drop(t);
}

/* A closed loop's rate halving two thirds in: a slowdown, by the rate (higher is faster). */
static void test_rate_slowdown(void **state) {
        (void) state;
        struct timeline *t = make(90, flat, 5, 50);
        _cleanup_json_ cJSON *m = cJSON_CreateObject();
        const cJSON *s = classify(t, true, m);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(s, "metric")), "throughput_rps");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(s, "class")), "slowdown");
        drop(t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_warmup),
                cmocka_unit_test(test_flat_and_short),
                cmocka_unit_test(test_rate_slowdown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
