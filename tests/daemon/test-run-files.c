/* test-run-files: the timeline's header read back from a run directory the run user owns
 * (daemon/run-files.h): where the daemon's measure phase begins, so whatever is at timeline.bin
 * must give a header the injector wrote or a refusal, never a blocked loop or a guessed start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/timeline-format.h"
#include "daemon/run-files.h"
#include "tests/lib/test-tmp.h"

static void put_bytes(const char *dir, const char *name, const void *bytes, size_t n) {
        char path[4096];
        tmp_path(path, sizeof path, dir, name);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, bytes, n), (ssize_t) n);
}

static void test_header_written(void **state) {
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("run-files-header");
        struct timeline_header h = timeline_header_make(1000, 3000), got = { 0 };
        put_bytes(dir, "timeline.bin", &h, sizeof h);
        assert_int_equal(run_file_timeline_header(dir, "timeline.bin", &got), 0);
        assert_int_equal(got.start_ns, 1000);
        assert_int_equal(got.measure_start_ns, 3000);
}

static void test_header_not_yet(void **state) {
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("run-files-not-yet");
        struct timeline_header got = { .start_ns = 7 };
        assert_int_equal(run_file_timeline_header(dir, "timeline.bin", &got), -ENODATA);
        put_bytes(dir, "timeline.bin", "SLTL", 4);
        assert_int_equal(run_file_timeline_header(dir, "timeline.bin", &got), -ENODATA);
        assert_int_equal(got.start_ns, 7);
}

static void test_header_refused(void **state) {
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("run-files-refused");
        struct timeline_header h = timeline_header_make(1000, 3000), got = { .start_ns = 7 };
        memcpy(h.magic, "XXXX", 4);
        put_bytes(dir, "timeline.bin", &h, sizeof h);
        assert_int_equal(run_file_timeline_header(dir, "timeline.bin", &got), -EBADMSG);
        char path[4096], target[4096];
        tmp_path(path, sizeof path, dir, "timeline.bin");
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkfifo(path, 0600), 0);        /* open() of it would block the loop */
        assert_int_equal(run_file_timeline_header(dir, "timeline.bin", &got), -ENXIO);
        assert_int_equal(unlink(path), 0);
        tmp_path(target, sizeof target, dir, "elsewhere.bin");
        h = timeline_header_make(1000, 3000);
        put_bytes(dir, "elsewhere.bin", &h, sizeof h);
        assert_int_equal(symlink(target, path), 0);
        assert_int_equal(run_file_timeline_header(dir, "timeline.bin", &got), -ELOOP);
        assert_int_equal(got.start_ns, 7);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header_written),
                cmocka_unit_test(test_header_not_yet),
                cmocka_unit_test(test_header_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
