/* test-fileio.c: bounded reads at their limits, whole reads and writes, exclusive atomic writes,
 * mkdir -p. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "test-tmp.h"

static void test_write_then_read(void **state) {
        char path[256];
        tmp_path(path, sizeof path, tmp_group_dir, "a/b/c");
        assert_int_equal(mkdir_parents(path, 0700), 0);
        assert_int_equal(mkdir_parents(path, 0700), 0); /* existing is fine */
        tmp_path(path, sizeof path, tmp_group_dir, "a/file");
        assert_int_equal(write_file_atomic(path, "hello\n", 6, 0600), 0);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(write_file_atomic(path, "other", 5, 0600), -EEXIST);
        _cleanup_free_ char *line = NULL;
        assert_int_equal(read_one_line(path, &line), 0);
        assert_string_equal(line, "hello");
        char *big = NULL;
        assert_int_equal(read_file_bounded("/proc/self/maps", 16, &big, NULL), -EFBIG);
        assert_null(big);
        assert_int_equal(read_one_line("/nonexistent/x", &big), -ENOENT);
}

/* A file of exactly the buffer's room fits; one byte more is -EFBIG, never cut short. */
static void test_bounds_are_exact(void **state) {
        char path[256], buf[8];
        tmp_path(path, sizeof path, tmp_group_dir, "seven");
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write_full(fd, "1234567", 7), 0);
        assert_int_equal(read_file_into(path, buf, sizeof buf), 0);
        assert_string_equal(buf, "1234567");
        char *s = NULL;
        size_t len = 0;
        assert_int_equal(read_file_bounded(path, 7, &s, &len), 0);
        assert_int_equal(len, 7);
        free(s);
        assert_int_equal(read_file_bounded(path, 6, &s, NULL), -EFBIG);

        assert_int_equal(write_full(fd, "8", 1), 0);
        assert_int_equal(read_file_into(path, buf, sizeof buf), -EFBIG);

        /* Positional reads leave the position alone; the end of the file ends them short. */
        _cleanup_close_ int rfd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(rfd >= 0);
        assert_int_equal(read_full(rfd, buf, 4, 5), 3);
        assert_memory_equal(buf, "678", 3);
        assert_int_equal(read_full(rfd, buf, 2, -1), 2);
        assert_memory_equal(buf, "12", 2);
}

int main(void) {
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_write_then_read), cmocka_unit_test(test_bounds_are_exact) };
        return cmocka_run_group_tests(tests, tmp_group_setup, tmp_group_teardown);
}
