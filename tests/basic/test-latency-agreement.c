/* test-latency-agreement.c: one timeline file, read by the daemon (run metrics) and by the
 * injector (its summary), gives the same latency percentiles to the nanosecond, and both follow
 * the rule of basic/latency.h: latency from scheduled and from submit over the measured requests
 * that were answered, lag over the measured requests that were sent, answered or not.
 *
 * The file is made so that a departure shows: transport errors (sent, never answered) carry the
 * largest lags, more than 1% of the requests, so lag p99 and max move if they are left out (as
 * the daemon once did); warmup records and requests never sent carry absurd values that move
 * the maxima if they are let in; records are in completion order, not schedule order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "basic/latency.h"
#include "basic/macro.h"
#include "basic/timeline-format.h"
#include "daemon/timeline.h"
#include "injector/summary.h"
#include "injector/timeline-stats.h"
#include "test-tmp.h"

#define N_RECORDS 20000
#define N_WARMUP 1000
#define T0 INT64_C(1000000000000)
#define GAP_NS 100000
#define MEASURE_START (T0 + N_WARMUP * GAP_NS)

static uint64_t next(uint64_t *s) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        return *s >> 33;
}

static struct timeline_record make_record(size_t k, uint64_t *seed) {
        int64_t sched = T0 + (int64_t) k * GAP_NS;
        uint64_t u = next(seed) % 1000;
        struct timeline_record r = {
                .scheduled_ns = sched,
                .submit_ns = sched + (int64_t) (next(seed) % 2000000),
                .status = u < 30 ? 503 : 200,
                .conn = (uint32_t) (k % 16),
                .flags = k < N_WARMUP ? TIMELINE_WARMUP : 0,
        };
        r.done_ns = r.submit_ns + 100000 + (int64_t) (next(seed) % 5000000);
        if (u >= 970) {
                /* Sent behind a backlog and never answered: the largest lags of the run. */
                r.submit_ns = sched + 40000000 + (int64_t) (next(seed) % 50000000);
                r.done_ns = r.submit_ns + 1000000000;
                r.status = 0;
                r.error = u % 3 == 0   ? TIMELINE_ERR_TIMEOUT :
                          u % 3 == 1 ? TIMELINE_ERR_RESET :
                                       TIMELINE_ERR_CONNECT;
        } else if (u >= 960) {
                /* Never sent: its submit is the end of the run, not a lag. */
                r.submit_ns = r.done_ns = sched + 3600 * INT64_C(1000000000);
                r.status = 0;
                r.error = TIMELINE_ERR_NOT_SENT;
        }
        if (k < N_WARMUP) {
                r.submit_ns += 7200 * INT64_C(1000000000);
                r.done_ns = r.submit_ns + 7200 * INT64_C(1000000000);
        }
        return r;
}

/* The records in completion order (blocks reversed), as another tool would write them. */
static struct timeline_record *make_records(void) {
        struct timeline_record *recs = calloc(N_RECORDS, sizeof *recs);
        assert_non_null(recs);
        uint64_t seed = 7;
        for (size_t k = 0; k < N_RECORDS; k++) {
                size_t block = k / 100 * 100;
                recs[block + 99 - k % 100] = make_record(k, &seed);
        }
        return recs;
}

static void write_timeline(const char *path, const struct timeline_record *recs) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        struct timeline_header h = timeline_header_make(T0, MEASURE_START);
        assert_int_equal(write(fd, &h, sizeof h), (ssize_t) sizeof h);
        size_t bytes = N_RECORDS * sizeof *recs;
        assert_int_equal(write(fd, recs, bytes), (ssize_t) bytes);
        close(fd);
}

static int cmp64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return x < y ? -1 : x > y;
}

/* The rule, written out here rather than taken from basic/latency.c, sorted, at nearest rank. */
static void reference(const struct timeline_record *recs, enum latency_kind k,
                      int64_t pct[_PCT_MAX]) {
        int64_t *v = calloc(N_RECORDS, sizeof *v);
        assert_non_null(v);
        size_t m = 0;
        for (size_t i = 0; i < N_RECORDS; i++) {
                const struct timeline_record *r = &recs[i];
                if (r->flags & TIMELINE_WARMUP)
                        continue;
                if (k == LATENCY_SCHEDULED && r->status != 0)
                        v[m++] = r->done_ns - r->scheduled_ns;
                else if (k == LATENCY_SUBMIT && r->status != 0)
                        v[m++] = r->done_ns - r->submit_ns;
                else if (k == LATENCY_LAG && r->error != TIMELINE_ERR_NOT_SENT)
                        v[m++] = r->submit_ns - r->scheduled_ns;
        }
        assert_true(m > 0);
        qsort(v, m, sizeof *v, cmp64);
        static const size_t ranks_per_1e4[_PCT_MAX] = { 5000, 9000, 9900, 9990, 9999, 10000 };
        for (int p = 0; p < _PCT_MAX; p++)
                pct[p] = v[(m * ranks_per_1e4[p] + 9999) / 10000 - 1];
        free(v);
}

static cJSON *daemon_latency(const char *path) {
        struct timeline *t = NULL;
        assert_int_equal(timeline_load(path, &t), 0);
        cJSON *metrics = cJSON_CreateObject();
        assert_int_equal(timeline_metrics(t, (N_RECORDS - N_WARMUP) * GAP_NS, metrics), 0);
        timeline_free(t);
        cJSON *lat = cJSON_DetachItemFromObject(metrics, "latency_us");
        cJSON_Delete(metrics);
        assert_non_null(lat);
        return lat;
}

static cJSON *injector_latency(const char *path) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        struct timeline_stats st;
        assert_int_equal(timeline_stats_compute(fd, sizeof(struct timeline_header), N_RECORDS, &st), 0);
        close(fd);
        struct inject_options o = { .url = "http://127.0.0.1:1/", .rate = 1e9 / GAP_NS,
                                    .connections = 16, .threads = 1 };
        struct engine_result er = { .start_ns = T0, .measure_start_ns = MEASURE_START,
                                    .end_ns = T0 + N_RECORDS * GAP_NS, .records = N_RECORDS };
        char *text = summary_format(&o, &er, &st, NULL);
        assert_non_null(text);
        cJSON *summary = cJSON_Parse(text);
        free(text);
        assert_non_null(summary);
        cJSON *lat = cJSON_DetachItemFromObject(summary, "latency_us");
        cJSON_Delete(summary);
        assert_non_null(lat);
        return lat;
}

static double number_at(const cJSON *lat, enum latency_kind k, enum percentile p) {
        const cJSON *kind = cJSON_GetObjectItem(lat, latency_kind_names[k]);
        const cJSON *v = cJSON_GetObjectItem(kind, percentile_names[p]);
        assert_true(cJSON_IsNumber(v));
        return v->valuedouble;
}

static void test_daemon_and_injector_agree(void **state) {
        _cleanup_free_ struct timeline_record *recs = make_records();
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("latency-agreement");
        char path[4096];
        tmp_path(path, sizeof path, dir, "timeline");
        write_timeline(path, recs);
        cJSON *d = daemon_latency(path), *inj = injector_latency(path);
        for (int k = 0; k < _LATENCY_MAX; k++) {
                int64_t want[_PCT_MAX];
                reference(recs, (enum latency_kind) k, want);
                for (int p = 0; p < _PCT_MAX; p++) {
                        double dv = number_at(d, (enum latency_kind) k, (enum percentile) p);
                        double iv = number_at(inj, (enum latency_kind) k, (enum percentile) p);
                        print_message("%s %s: daemon %.3f us, injector %.3f us, want %.3f us\n",
                                      latency_kind_names[k], percentile_names[p], dv, iv,
                                      (double) want[p] / 1000.0);
                        /* Both print ns / 1000.0, so equal doubles are equal nanoseconds. */
                        assert_true(dv == iv);
                        assert_true(dv == (double) want[p] / 1000.0);
                }
        }
        /* The data does what it is for: unanswered requests hold lag p99 and max. */
        assert_true(number_at(d, LATENCY_LAG, PCT_P99) >= 40000.0);
        assert_true(number_at(d, LATENCY_LAG, PCT_MAX) < 3600e6);
        cJSON_Delete(d);
        cJSON_Delete(inj);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_daemon_and_injector_agree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
