/* test-fileio.c: bounded reads, exclusive atomic writes, mkdir -p. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"

static char dir[] = "/tmp/slicelab-fileio-XXXXXX";

static void test_write_then_read(void **state) {
        char path[256];
        snprintf(path, sizeof path, "%s/a/b/c", dir);
        assert_int_equal(mkdir_parents(path, 0700), 0);
        assert_int_equal(mkdir_parents(path, 0700), 0); /* existing is fine */
        snprintf(path, sizeof path, "%s/a/file", dir);
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

int main(void) {
        if (!mkdtemp(dir))
                return 1;
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_write_then_read) };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void) !system(cmd);
        return r;
}
