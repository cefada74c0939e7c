/* test-timeline-merge.c: timelines joined in scheduled order (basic/timeline-merge.h): peers'
 * files past their header, each shifted into one clock and marked with its host, and the
 * injector's headerless parts; a torn file is an error, not a short merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/timeline-merge.h"

/* A file of a header (when header) and n records every step ns from first. */
static int make_file(bool header, int64_t start, int64_t first, int64_t step, size_t n) {
        int fd = memfd_create("timeline", MFD_CLOEXEC);
        assert_true(fd >= 0);
        off_t at = 0;
        if (header) {
                struct timeline_header h = timeline_header_make(start, start + 1000);
                assert_int_equal(write_full(fd, &h, sizeof h), 0);
                at = sizeof h;
        }
        for (size_t i = 0; i < n; i++) {
                int64_t s = first + (int64_t) i * step;
                struct timeline_record r = { .scheduled_ns = s, .submit_ns = s + 10, .done_ns = s + 100,
                                             .status = 200, .flags = i == 0 ? TIMELINE_WARMUP : 0 };
                assert_int_equal(write_full(fd, &r, sizeof r), 0);
        }
        assert_true(lseek(fd, at, SEEK_SET) == at);
        return fd;
}

static void test_peers(void **state) {
        /* three peers whose clocks are 1e12, -5e9 and 0 ns off ours, sending every 30 ns from 0,
         * 10 and 20 on our clock: merged, every 10 ns */
        const int64_t offset[] = { INT64_C(1000000000000), INT64_C(-5000000000), 0 };
        struct timeline_merge_input in[3];
        for (unsigned i = 0; i < 3; i++)
                in[i] = (struct timeline_merge_input){
                        .fd = make_file(true, offset[i], offset[i] + 10 * (int64_t) i, 30, 1000 + i),
                        .offset = sizeof(struct timeline_header), .shift_ns = offset[i], .flags = timeline_host_flags(i),
                };
        int out = memfd_create("merged", MFD_CLOEXEC);
        uint64_t n = 0;
        assert_int_equal(timeline_merge(out, in, 3, &n), 0);
        assert_int_equal(n, 3003);
        _cleanup_free_ struct timeline_record *r = calloc(n, sizeof *r);
        assert_int_equal(read_full(out, r, n * sizeof *r, 0), (ssize_t) (n * sizeof *r));
        unsigned per_host[4] = { 0 };
        for (uint64_t k = 0; k < n; k++) {
                if (k > 0)
                        assert_true(r[k].scheduled_ns >= r[k - 1].scheduled_ns);
                if (k < 3000)
                        assert_int_equal(r[k].scheduled_ns, (int64_t) k * 10);
                assert_int_equal(r[k].submit_ns - r[k].scheduled_ns, 10);
                assert_int_equal(r[k].done_ns - r[k].scheduled_ns, 100);
                unsigned host = timeline_record_host(r[k].flags);
                assert_true(host >= 1 && host <= 3);
                per_host[host]++;
                /* each record keeps its own flags */
                assert_int_equal(!!(r[k].flags & TIMELINE_WARMUP), r[k].scheduled_ns < 30);
        }
        assert_int_equal(per_host[1], 1000);
        assert_int_equal(per_host[3], 1002);
        for (unsigned i = 0; i < 3; i++)
                close(in[i].fd);
        close(out);

        struct timeline_header h = timeline_header_make(offset[0] + 5, offset[0] + 2005);
        timeline_merge_header_shift(&h, offset[0]);
        assert_int_equal(h.start_ns, 5);
        assert_int_equal(h.measure_start_ns, 2005);
}

static void test_parts_and_torn(void **state) {
        /* the injector's parts: no header, no shift, flags untouched */
        struct timeline_merge_input in[2] = { { .fd = make_file(false, 0, 0, 2, 5000) }, { .fd = make_file(false, 0, 1, 2, 5000) } };
        int out = memfd_create("merged", MFD_CLOEXEC);
        uint64_t n = 0;
        assert_int_equal(timeline_merge(out, in, 2, &n), 0);
        assert_int_equal(n, 10000);
        struct timeline_record last;
        assert_int_equal(read_full(out, &last, sizeof last, (off_t) (9999 * sizeof last)), (ssize_t) sizeof last);
        assert_int_equal(last.scheduled_ns, 9999);
        assert_int_equal(timeline_record_host(last.flags), 0);

        /* a file cut inside a record */
        assert_int_equal(ftruncate(in[1].fd, 5000 * sizeof last - 1), 0);
        assert_int_equal(timeline_merge(out, in, 2, &n), -EIO);
        close(in[0].fd);
        close(in[1].fd);
        close(out);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_peers),
                cmocka_unit_test(test_parts_and_torn),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
