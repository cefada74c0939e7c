/* test-lag-attribution.c: the ideal injector's replay on timelines built by hand, where whose
 * fault each late request was is known: a server slower than the connections allow (the
 * server's), an injector that stopped while the server was fast (its own), each loop of
 * --threads replayed on its own connections, and what does not count (warmup, not sent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "injector/lag-attribution.h"

#define MS NSEC_PER_MSEC
#define US NSEC_PER_USEC

static struct lag_attribution attribute(const struct timeline_record *r, size_t n, unsigned conns, unsigned threads) {
        const struct timeline_source src = { .records = r, .count = n };
        struct lag_attribution a = { .late = 12345 };
        assert_int_equal(lag_attribution_compute(&src, conns, threads, &a), 0);
        return a;
}

static struct timeline_record sent(int64_t scheduled, int64_t submit, int64_t done, uint32_t conn) {
        return (struct timeline_record){ .scheduled_ns = scheduled, .submit_ns = submit, .done_ns = done, .status = 200,
                                         .conn = conn };
}

/* A request due at due, sent delay after the earlier free of connections a and b (free times in
 * conn_free, by connection) and answered hold later: what an injector bound by its connections
 * writes. */
static struct timeline_record on_earlier_free(int64_t *conn_free, uint32_t a, uint32_t b, int64_t due, int64_t delay,
                                              int64_t hold) {
        uint32_t c = conn_free[a] <= conn_free[b] ? a : b;
        int64_t submit = MAX(due, conn_free[c]) + delay;
        conn_free[c] = submit + hold;
        return sent(due, submit, conn_free[c], c);
}

/* 2 connections, answers after 10 ms, a request every 1 ms: the connections carry 200/s of the
 * 1000/s asked, so from the third request on every one waits, the ideal injector's too. */
static void test_server_slower_than_connections(void **state) {
        enum { N = 100 };
        struct timeline_record r[N];
        int64_t conn_free[2] = { 0, 0 };
        for (int k = 0; k < N; k++)
                r[k] = on_earlier_free(conn_free, 0, 1, k * MS, 20 * US /* our own small delay */, 10 * MS);
        struct lag_attribution a = attribute(r, N, 2, 1);
        assert_true(a.late > 90);
        assert_int_equal(a.late_server, a.late);
}

/* A fast server (answers in 100 us) and the injector stopped 50 ms: whatever was due meanwhile
 * went out late, though the ideal injector had a free connection for each, and waited through
 * the stop, in which the injector neither sent nor received anything: stalled. */
static void test_injector_stopped(void **state) {
        enum { N = 200 };
        struct timeline_record r[N];
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS, submit = due + 10 * US;
                if (due >= 100 * MS && due < 150 * MS)
                        submit = 150 * MS + (due - 100 * MS) / 50;   /* sent in a burst when it woke */
                r[k] = sent(due, submit, submit + 100 * US, (uint32_t) (k % 4));
        }
        struct lag_attribution a = attribute(r, N, 4, 1);
        assert_int_equal(a.late, 50);   /* due 100..149 ms, sent 1 to 50 ms late */
        assert_int_equal(a.late_server, 0);
        assert_int_equal(a.late_stalled, 50);
        /* Silent from 99.11 ms (the last answer before) to 150 ms: buckets 992 to 1499. */
        assert_int_equal(a.stalls, 1);
        assert_int_equal(a.stalls_ns, 508 * 100 * US);
        assert_int_equal(a.stall_max_ns, a.stalls_ns);
}

/* Stopped 20 ms, then catching up at one request per 0.5 ms where one is due every 1 ms: the
 * 20 due meanwhile waited through the stall, and the ones due after it, still behind while the
 * backlog drained, lag by less than the stall took: stalled too, not the injector's pace. */
static void test_stall_backlog(void **state) {
        enum { N = 200 };
        struct timeline_record r[N];
        int64_t free_at = 0;
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS, submit = MAX(due + 10 * US, free_at);
                if (due >= 50 * MS && submit < 70 * MS)
                        submit = 70 * MS;
                free_at = submit >= 70 * MS && submit > due + 10 * US ? submit + MS / 2 : 0;
                r[k] = sent(due, submit, submit + 100 * US, (uint32_t) (k % 8));
        }
        struct lag_attribution a = attribute(r, N, 8, 1);
        assert_true(a.late >= 30);   /* 20 due in the stall, about as many more while catching up */
        assert_int_equal(a.late_server, 0);
        assert_int_equal(a.late_stalled, a.late);
}

/* Stopped about 5 ms, then never catching up, as it sends a request every 1.1 ms where one is
 * due every 1 ms: lag beyond what the stall took is the injector's own pace. */
static void test_stall_then_too_slow(void **state) {
        enum { N = 300 };
        struct timeline_record r[N];
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS, submit = due + 10 * US;
                if (k >= 50)
                        submit = 55 * MS + (k - 50) * 1100 * US;
                r[k] = sent(due, submit, submit + 100 * US, (uint32_t) (k % 8));
        }
        /* Silent from 49.11 ms (the last answer) to 55 ms: a 5.8 ms stall to the 100 us bucket.
         * Request k >= 50 lags 5 ms + (k - 50) x 0.1 ms: within it and 1 ms up to k = 68. */
        struct lag_attribution a = attribute(r, N, 8, 1);
        assert_int_equal(a.late, N - 50);
        assert_int_equal(a.late_server, 0);
        assert_true(a.late_stalled >= 18 && a.late_stalled <= 19);
        assert_int_equal(a.stalls, 1);
        assert_int_equal(a.stalls_ns, 58 * 100 * US);
}

/* An injector that runs all along but sends a request every 110 us where one is due every
 * 100 us falls behind 10 us a request: late by its own pace, never silent for a stall. */
static void test_injector_too_slow(void **state) {
        enum { N = 300 };
        struct timeline_record r[N];
        for (int k = 0; k < N; k++) {
                int64_t submit = k * 110 * US;
                r[k] = sent(k * 100 * US, submit, submit + 50 * US, (uint32_t) (k % 8));
        }
        struct lag_attribution a = attribute(r, N, 8, 1);
        assert_int_equal(a.late, N - 101);   /* lag k x 10 us, above 1 ms from k = 101 */
        assert_int_equal(a.late_server, 0);
        assert_int_equal(a.late_stalled, 0);
        assert_int_equal(a.stalls, 0);
}

/* The server pauses 30 ms holding both connections: the injector is silent meanwhile too, as
 * nothing can be sent and nothing comes back, but the ideal injector would have waited as well:
 * the server's, not a stall. */
static void test_server_pause_is_not_a_stall(void **state) {
        enum { N = 100 };
        struct timeline_record r[N];
        int64_t conn_free[2] = { 0, 0 };
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS;   /* 50 and 51 go out on time, and are answered at 80 ms */
                r[k] = on_earlier_free(conn_free, 0, 1, due, 0, k == 50 || k == 51 ? 80 * MS - due : 100 * US);
        }
        struct lag_attribution a = attribute(r, N, 2, 1);
        assert_true(a.late >= 25);
        assert_int_equal(a.late_server, a.late);
        assert_int_equal(a.late_stalled, 0);
        assert_int_equal(a.stalls, 0);
}

/* Loop 0 (connections 0 and 2) stops for 20 ms while loop 1 (1 and 3) goes on: loop 0's late
 * requests waited through its own stall. Replayed as one loop, loop 1's traffic fills the gap
 * and nothing looks stalled: stalls are per loop. */
static void test_stall_of_one_loop(void **state) {
        enum { N = 200 };
        struct timeline_record r[N];
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS / 2, submit = due + 10 * US;
                unsigned loop = (unsigned) k % 2;
                if (loop == 0 && due >= 40 * MS && due < 60 * MS)
                        submit = 60 * MS + (due - 40 * MS) / 100;
                r[k] = sent(due, submit, submit + 100 * US, loop + 2 * ((unsigned) k / 2 % 2));
        }
        struct lag_attribution a = attribute(r, N, 4, 2);
        assert_true(a.late >= 15);
        assert_int_equal(a.late_stalled, a.late);
        assert_int_equal(a.stalls, 1);
        struct lag_attribution pooled = attribute(r, N, 4, 1);
        assert_int_equal(pooled.late, a.late);
        assert_int_equal(pooled.late_stalled, 0);
}

/* Two requests 30 days apart: the map widens its buckets rather than growing past its bound,
 * and the days between, with nothing due, are no late request's. */
static void test_long_run_bounded(void **state) {
        const int64_t day = 86400 * NSEC_PER_SEC;
        struct timeline_record r[2] = { sent(0, 10 * US, 100 * US, 0), sent(30 * day, 30 * day + 10 * US, 30 * day + 100 * US, 0) };
        struct lag_attribution a = attribute(r, 2, 1, 1);
        assert_int_equal(a.late, 0);
}

/* Two loops: loop 0 has connections 0 and 2, and a server slow for its requests; loop 1 has 1
 * and 3, and keeps up. A replay over all four connections together would have lent loop 0
 * loop 1's idle ones and blamed the injector. */
static void test_threads_replay_apart(void **state) {
        enum { N = 400 };
        struct timeline_record r[N];
        int64_t conn_free[4] = { 0 };
        for (int k = 0; k < N; k++) {
                uint32_t loop = (uint32_t) k % 2;
                r[k] = on_earlier_free(conn_free, loop, loop + 2, k * MS / 2, 0, loop == 0 ? 10 * MS : 100 * US);
        }
        struct lag_attribution a = attribute(r, N, 4, 2);
        assert_true(a.late > 150);
        assert_int_equal(a.late_server, a.late);
        struct lag_attribution pooled = attribute(r, N, 4, 1);
        assert_true(pooled.late_server < pooled.late);
}

/* Warmup and requests never sent are not late requests; never sent ones hold no connection. */
static void test_what_counts(void **state) {
        struct timeline_record r[3] = {
                sent(0, 5 * MS, 6 * MS, 0),
                sent(1 * MS, 1 * MS, 2 * MS, 0),
                { .scheduled_ns = 2 * MS, .submit_ns = 9 * MS, .done_ns = 9 * MS, .error = TIMELINE_ERR_NOT_SENT, .conn = UINT32_MAX },
        };
        r[0].flags = TIMELINE_WARMUP;
        struct lag_attribution a = attribute(r, 3, 1, 1);
        assert_int_equal(a.late, 0);
        assert_int_equal(a.late_server, 0);
        assert_int_equal(a.late_stalled, 0);
        const struct timeline_source src = { .records = r, .count = 3 };
        a.late = 7;
        assert_int_equal(lag_attribution_compute(&src, 0, 1, &a), -EINVAL);
        assert_int_equal(a.late, 7);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_server_slower_than_connections),
                cmocka_unit_test(test_injector_stopped),
                cmocka_unit_test(test_injector_too_slow),
                cmocka_unit_test(test_stall_backlog),
                cmocka_unit_test(test_stall_then_too_slow),
                cmocka_unit_test(test_server_pause_is_not_a_stall),
                cmocka_unit_test(test_stall_of_one_loop),
                cmocka_unit_test(test_long_run_bounded),
                cmocka_unit_test(test_threads_replay_apart),
                cmocka_unit_test(test_what_counts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
