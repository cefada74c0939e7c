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

/* 2 connections, answers after 10 ms, a request every 1 ms: the connections carry 200/s of the
 * 1000/s asked, so from the third request on every one waits, the ideal injector's too. */
static void test_server_slower_than_connections(void **state) {
        enum { N = 100 };
        struct timeline_record r[N];
        int64_t conn_free[2] = { 0, 0 };
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS;
                unsigned c = conn_free[0] <= conn_free[1] ? 0 : 1;
                int64_t submit = due > conn_free[c] ? due : conn_free[c];
                submit += 20 * US;   /* our own small delay on top */
                conn_free[c] = submit + 10 * MS;
                r[k] = sent(due, submit, conn_free[c], c);
        }
        struct lag_attribution a = attribute(r, N, 2, 1);
        assert_true(a.late > 90);
        assert_int_equal(a.late_server, a.late);
}

/* A fast server (answers in 100 us) and the injector stopped 50 ms: whatever was due meanwhile
 * went out late, though the ideal injector had a free connection for each. */
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
}

/* Two loops: loop 0 has connections 0 and 2, and a server slow for its requests; loop 1 has 1
 * and 3, and keeps up. A replay over all four connections together would have lent loop 0
 * loop 1's idle ones and blamed the injector. */
static void test_threads_replay_apart(void **state) {
        enum { N = 400 };
        struct timeline_record r[N];
        int64_t conn_free[4] = { 0 };
        for (int k = 0; k < N; k++) {
                int64_t due = k * MS / 2;
                unsigned loop = (unsigned) k % 2;
                unsigned c = loop == 0 ? (conn_free[0] <= conn_free[2] ? 0 : 2) : (conn_free[1] <= conn_free[3] ? 1 : 3);
                int64_t submit = due > conn_free[c] ? due : conn_free[c];
                conn_free[c] = submit + (loop == 0 ? 10 * MS : 100 * US);
                r[k] = sent(due, submit, conn_free[c], c);
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
        const struct timeline_source src = { .records = r, .count = 3 };
        a.late = 7;
        assert_int_equal(lag_attribution_compute(&src, 0, 1, &a), -EINVAL);
        assert_int_equal(a.late, 7);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_server_slower_than_connections),
                cmocka_unit_test(test_injector_stopped),
                cmocka_unit_test(test_threads_replay_apart),
                cmocka_unit_test(test_what_counts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
