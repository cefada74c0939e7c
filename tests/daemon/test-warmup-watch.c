/* test-warmup-watch.c: load.warmup_s "auto"'s checks (daemon/warmup-watch): the series' last
 * segment on synthetic series (a warmup step seen only once 5 intervals follow it, a flat
 * series, too short a one, a window that forgets an old level), the JIT's compile rate over its
 * last 5 s of samples, and the watch on a real sd-event loop reading a timeline as it is written
 * (a half-written record at its end): told "steady" once the flushed records hold 5 steady
 * intervals, and not before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/timeline-format.h"
#include "daemon/samples.h"
#include "daemon/warmup-watch.h"
#include "tests/lib/test-tmp.h"
#include "tests/lib/synthetic-series.h"

static size_t last_segment(const double *x, size_t n, bool higher_is_faster) {
        size_t len = 99999;
        assert_int_equal(warmup_last_segment(x, n, higher_is_faster, &len), 0);
        return len;
}

/* 30 s at 1000 us, then 300 us: the step is the last segment's start once 5 values follow it. */
static void test_last_segment(void **state) {
        double x[60];
        const struct synthetic_shift fall = { .at = 30, .factor = 0.3 };
        synthetic_series(x, ELEMENTSOF(x), 1000, 0.02, &fall, 1, 3);
        assert_int_equal(last_segment(x, 33, false), 3);
        assert_int_equal(last_segment(x, 40, false), 10);
        assert_int_equal(last_segment(x, 60, false), 30);
        assert_int_equal(last_segment(x, 20, false), 20);       /* flat so far: one segment */
        assert_int_equal(last_segment(x, 4, false), 0);         /* too short to say */

        /* Only the last WARMUP_WINDOW values are segmented: an old level beyond them is gone. */
        double *long_series = calloc(WARMUP_WINDOW + 50, sizeof(double));
        assert_non_null(long_series);
        const struct synthetic_shift old = { .at = 40, .factor = 0.5 };
        synthetic_series(long_series, WARMUP_WINDOW + 50, 1000, 0.02, &old, 1, 4);
        assert_int_equal(last_segment(long_series, WARMUP_WINDOW + 50, true), WARMUP_WINDOW);
        free(long_series);
}

/* A smooth warmup, 2(1 + 3e^(-t/4)) ms with 2% noise: the segmentation calls its first 18 s one
 * segment, the trend check holds it in warmup until what is left of the fall is under 2%. */
static void test_trend(void **state) {
        double x[60];
        unsigned seed = 7;
        for (int t = 0; t < 60; t++) {
                seed = seed * 1103515245 + 12345;
                x[t] = 2000 * (1 + 3 * exp(-t / 4.0)) * (1 + 0.02 * (((seed >> 16) % 1000) / 1000.0 - 0.5));
        }
        double change;
        assert_int_equal(last_segment(x, 10, false), 10);
        assert_false(warmup_trend_flat(x, 10, &change));
        assert_true(change < -0.5);                     /* down by more than half across it */
        size_t len = last_segment(x, 55, false);
        assert_true(len >= WARMUP_STEADY_INTERVALS);
        assert_true(warmup_trend_flat(x + 55 - len, len, &change));
        /* Flat series with 2% noise: a trend at 95% and over 2% is chance, about one check in 20
         * (a warmup a second longer); over 20 series of 5 to 30 values, 9 in 10 checks or more
         * say flat. */
        size_t checks = 0, flat_checks = 0;
        for (uint64_t series = 1; series <= 20; series++) {
                double flat[30];
                synthetic_series(flat, ELEMENTSOF(flat), 1000, 0.02, NULL, 0, series);
                for (size_t n = WARMUP_STEADY_INTERVALS; n <= ELEMENTSOF(flat); n++, checks++)
                        flat_checks += warmup_trend_flat(flat, n, &change);
                assert_false(warmup_trend_flat(flat, 2, &change));
        }
        print_message("flat series judged flat: %zu of %zu checks\n", flat_checks, checks);
        assert_true(flat_checks * 10 >= checks * 9);
}

/* One point a second, compile time rising 100 ms/s for 10 s, then flat. */
static void test_jit_rate(void **state) {
        struct sample_point p[20] = { 0 };
        for (int i = 0; i < 20; i++) {
                p[i].t_ns = (int64_t) (i + 1) * NSEC_PER_SEC;
                p[i].has_compile = true;
                p[i].compile_ns = (int64_t) MIN(i, 10) * 100 * 1000000;
        }
        double rate = -1;
        assert_false(warmup_jit_rate(p, 5, &rate));     /* 4 s of points: not yet 5 */
        assert_true(warmup_jit_rate(p, 10, &rate));
        assert_float_equal(rate, 100, 1e-9);
        assert_true(warmup_jit_rate(p, 14, &rate));     /* from 9 s to 14 s: 200 ms, then flat */
        assert_float_equal(rate, 40, 1e-9);
        assert_true(warmup_jit_rate(p, 16, &rate));
        assert_float_equal(rate, 0, 1e-9);
        p[15].has_compile = false;                      /* the newest point with a figure counts: 15 s */
        assert_true(warmup_jit_rate(p, 16, &rate));
        assert_float_equal(rate, 20, 1e-9);
}

struct told {
        int calls;
        char message[512];
        sd_event *event;
};

static void on_steady(void *userdata, const char *message) {
        struct told *t = userdata;
        t->calls++;
        snprintf(t->message, sizeof t->message, "%s", message);
        sd_event_exit(t->event, 0);
}

static void append_seconds(int fd, int64_t t0, int from_s, int to_s, double latency_ms) {
        for (int k = from_s; k < to_s; k++)
                for (int i = 0; i < 100; i++) {
                        struct timeline_record r = {
                                .scheduled_ns = t0 + (int64_t) k * NSEC_PER_SEC + (int64_t) i * 10000000,
                                .status = 200,
                        };
                        r.submit_ns = r.scheduled_ns;
                        /* each second's median a little off the level, as a real one is */
                        r.done_ns = r.scheduled_ns + (int64_t) (latency_ms * (1 + 0.01 * (k * 7 % 5 - 2)) * 1e6) + i * 1000;
                        assert_int_equal(write(fd, &r, sizeof r), (ssize_t) sizeof r);
                }
}

/* 8 s at 10 ms then 3 s at 2 ms are flushed: the last segment holds 2 complete intervals, not
 * steady. Then 4 s more at 2 ms and half a record: 5 complete steady intervals, steady. */
static void test_watch(void **state) {
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("warmup-watch");
        char path[4096];
        tmp_path(path, sizeof path, dir, "timeline.bin");
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        int64_t t0 = 5 * NSEC_PER_SEC;
        struct timeline_header h = timeline_header_make(t0, t0 + 60 * NSEC_PER_SEC);
        assert_int_equal(write(fd, &h, sizeof h), (ssize_t) sizeof h);
        append_seconds(fd, t0, 0, 8, 10);
        append_seconds(fd, t0, 8, 11, 2);

        struct samples samples = { 0 };
        struct told told = { 0 };
        struct warmup_watch *w = NULL;
        assert_int_equal(sd_event_new(&told.event), 0);
        assert_int_equal(warmup_watch_new(told.event, path, false, false, &samples, on_steady, &told, &w), 0);
        /* Three checks on what is there: none says steady. */
        for (int i = 0; i < 3; i++)
                assert_true(sd_event_run(told.event, 5 * USEC_PER_SEC) >= 0);
        assert_int_equal(told.calls, 0);
        char where[512];
        warmup_watch_describe(w, where, sizeof where);
        assert_non_null(strstr(where, "not a JVM"));
        assert_non_null(strstr(where, "holds 2 of its last 10 intervals"));

        append_seconds(fd, t0, 11, 15, 2);
        struct timeline_record half = { .scheduled_ns = t0 + 15 * NSEC_PER_SEC };
        assert_int_equal(write(fd, &half, sizeof half / 2), (ssize_t) (sizeof half / 2));
        assert_int_equal(sd_event_loop(told.event), 0);
        assert_int_equal(told.calls, 1);
        assert_non_null(strstr(told.message, "holds 6 of its last 14 intervals"));
        warmup_watch_free(w);
        sd_event_unref(told.event);
        close(fd);
}

/* The run user may put a FIFO where the timeline goes: the checks go on without blocking the
 * loop on it, and the description says why there is no series. */
static void test_watch_fifo(void **state) {
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("warmup-watch-fifo");
        char path[4096];
        tmp_path(path, sizeof path, dir, "timeline.bin");
        assert_int_equal(mkfifo(path, 0600), 0);
        struct samples samples = { 0 };
        struct told told = { 0 };
        struct warmup_watch *w = NULL;
        assert_int_equal(sd_event_new(&told.event), 0);
        assert_int_equal(warmup_watch_new(told.event, path, false, false, &samples, on_steady, &told, &w), 0);
        for (int i = 0; i < 2; i++)
                assert_true(sd_event_run(told.event, 5 * USEC_PER_SEC) >= 0);
        assert_int_equal(told.calls, 0);
        char where[512];
        warmup_watch_describe(w, where, sizeof where);
        assert_non_null(strstr(where, "the series could not be read: "));
        assert_non_null(strstr(where, "timeline.bin"));
        warmup_watch_free(w);
        sd_event_unref(told.event);
        assert_int_equal(unlink(path), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_last_segment),
                cmocka_unit_test(test_trend),
                cmocka_unit_test(test_jit_rate),
                cmocka_unit_test(test_watch),
                cmocka_unit_test(test_watch_fifo),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
