/* test-timeline-stats.c: the summary's counts and exact nearest-rank percentiles, checked
 * against sorting, on a real file (memfd) read the way the injector reads its timeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "injector/schedule.h"
#include "injector/timeline-stats.h"

static int write_records(const struct timeline_record *r, size_t n) {
        int fd = memfd_create("timeline", MFD_CLOEXEC);
        assert_true(fd >= 0);
        struct timeline_header h = { .magic = "SLT" };
        assert_int_equal(write(fd, &h, sizeof h), (ssize_t) sizeof h);
        size_t bytes = n * sizeof *r;
        assert_int_equal(write(fd, r, bytes), (ssize_t) bytes);
        return fd;
}

static int cmp64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return x < y ? -1 : x > y;
}

/* The reference: sort and take the value at the nearest rank. */
static void check_kind(const struct timeline_record *recs, size_t n, const struct timeline_stats *st,
                       enum latency_kind k) {
        int64_t *v = malloc((n + 1) * sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                const struct timeline_record *r = &recs[i];
                if (r->flags & TIMELINE_WARMUP)
                        continue;
                if (k == LATENCY_LAG && r->error != TIMELINE_ERR_NOT_SENT)
                        v[m++] = r->submit_ns - r->scheduled_ns;
                else if (k == LATENCY_SCHEDULED && r->status != 0)
                        v[m++] = r->done_ns - r->scheduled_ns;
                else if (k == LATENCY_SUBMIT && r->status != 0)
                        v[m++] = r->done_ns - r->submit_ns;
        }
        assert_int_equal(st->latency.n[k], m);
        qsort(v, m, sizeof *v, cmp64);
        for (int p = 0; p < _PCT_MAX && m > 0; p++)
                assert_int_equal(st->latency.pct[k][p], v[percentile_rank((enum percentile) p, m) - 1]);
        free(v);
}

static void check_all(const struct timeline_record *recs, size_t n) {
        int fd = write_records(recs, n);
        struct timeline_stats st;
        assert_int_equal(timeline_stats_compute(fd, sizeof(struct timeline_header), n, &st), 0);
        for (int k = 0; k < _LATENCY_MAX; k++)
                check_kind(recs, n, &st, (enum latency_kind) k);
        close(fd);
}

static void test_ranks(void **state) {
        assert_int_equal(percentile_rank(PCT_P99, 10000), 9900);
        assert_int_equal(percentile_rank(PCT_P99, 10001), 9901);
        assert_int_equal(percentile_rank(PCT_P50, 1), 1);
        assert_int_equal(percentile_rank(PCT_P9999, 100), 100);
        assert_int_equal(percentile_rank(PCT_MAX, 7), 7);
        assert_int_equal(percentile_rank(PCT_P50, 4), 2);
        assert_int_equal(percentile_rank(PCT_P90, 10), 9);
}

static void test_random(void **state) {
        struct rng rng;
        schedule_rng_seed(&rng, 3);
        size_t n = 300000;
        struct timeline_record *recs = calloc(n, sizeof *recs);
        for (size_t i = 0; i < n; i++) {
                uint64_t x = schedule_rng_next(&rng);
                struct timeline_record *r = &recs[i];
                r->scheduled_ns = (int64_t) i * 1000;
                /* Heavy tails, many ties, a few huge values. */
                int64_t lag = (int64_t) (x % 97) * ((x >> 8) % 50 == 0 ? 1000000 : 1);
                int64_t service = (int64_t) ((x >> 16) % 5000000) + ((x >> 40) % 1000 == 0 ? (int64_t) 1 << 40 : 0);
                r->submit_ns = r->scheduled_ns + lag;
                r->done_ns = r->submit_ns + service;
                r->status = (x >> 20) % 50 == 0 ? 0 : 200;
                r->error = r->status == 0 ? ((x >> 30) % 2 ? TIMELINE_ERR_TIMEOUT : TIMELINE_ERR_NOT_SENT) : 0;
                r->flags = i < 1000 ? TIMELINE_WARMUP : 0;
        }
        check_all(recs, n);
        free(recs);
}

static void test_small_and_equal(void **state) {
        struct timeline_record r[3] = {
                { .scheduled_ns = 10, .submit_ns = 10, .done_ns = 20, .status = 200 },
                { .scheduled_ns = 11, .submit_ns = 11, .done_ns = 21, .status = 200 },
                { .scheduled_ns = 12, .submit_ns = 13, .done_ns = 22, .status = 503 },
        };
        check_all(r, 1);
        check_all(r, 3);
        int fd = write_records(r, 3);
        struct timeline_stats st;
        assert_int_equal(timeline_stats_compute(fd, sizeof(struct timeline_header), 3, &st), 0);
        assert_int_equal(st.measured, 3);
        assert_int_equal(st.ok, 2);
        assert_int_equal(st.http_errors, 1);
        assert_int_equal(st.status_class[5], 1);
        assert_int_equal(st.latency.pct[LATENCY_SCHEDULED][PCT_MAX], 10);
        assert_int_equal(st.latency.pct[LATENCY_LAG][PCT_MAX], 1);
        /* Asking for more records than the file has is an error, not garbage. */
        assert_int_equal(timeline_stats_compute(fd, sizeof(struct timeline_header), 4, &st), -EIO);
        close(fd);
}

static void test_empty(void **state) {
        int fd = write_records(NULL, 0);
        struct timeline_stats st;
        assert_int_equal(timeline_stats_compute(fd, sizeof(struct timeline_header), 0, &st), 0);
        assert_int_equal(st.records, 0);
        assert_int_equal(st.latency.n[LATENCY_LAG], 0);
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ranks),           cmocka_unit_test(test_random),
                cmocka_unit_test(test_small_and_equal), cmocka_unit_test(test_empty),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
