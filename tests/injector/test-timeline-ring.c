/* test-timeline-ring.c: the timeline's header written again once the run knows when its measure
 * phase began (--warmup-until-signal): in place at offset 0, the records and the file position
 * untouched, on a file opened O_APPEND too (where a plain pwrite() would append on Linux). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/timeline-format.h"
#include "injector/timeline-ring.h"

/* An anonymous file holding a header (start 100, measure start 500) and three records. */
static int timeline_file(int extra_flags) {
        const char *dir = getenv("TMPDIR");
        int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC | extra_flags, 0600);
        assert_true(fd >= 0);
        assert_int_equal(timeline_ring_write_header(fd, 100, 500), 0);
        struct timeline_record r[3] = { { .scheduled_ns = 1 }, { .scheduled_ns = 2 }, { .scheduled_ns = 3 } };
        assert_int_equal(write(fd, r, sizeof r), (ssize_t) sizeof r);
        return fd;
}

static off_t file_size(int fd) {
        struct stat st;
        assert_int_equal(fstat(fd, &st), 0);
        return st.st_size;
}

static void check_rewritten(int fd) {
        struct timeline_header h;
        assert_int_equal(pread(fd, &h, sizeof h, 0), (ssize_t) sizeof h);
        assert_memory_equal(h.magic, TIMELINE_MAGIC, 4);
        assert_int_equal(h.start_ns, 100);
        assert_int_equal(h.measure_start_ns, 300);
        struct timeline_record r;
        assert_int_equal(pread(fd, &r, sizeof r, sizeof h + 2 * sizeof r), (ssize_t) sizeof r);
        assert_int_equal(r.scheduled_ns, 3);
}

static void test_rewrite_header(void **state) {
        int fd = timeline_file(0);
        off_t end = file_size(fd);
        assert_int_equal(timeline_ring_rewrite_header(fd, 100, 300), 0);
        check_rewritten(fd);
        assert_int_equal(file_size(fd), end);
        assert_int_equal(lseek(fd, 0, SEEK_CUR), end);   /* the position is the writer's */
        close(fd);
}

static void test_rewrite_header_append(void **state) {
        int fd = timeline_file(O_APPEND);
        off_t end = file_size(fd);
        assert_int_equal(timeline_ring_rewrite_header(fd, 100, 300), 0);
        check_rewritten(fd);
        assert_int_equal(file_size(fd), end);
        /* Still O_APPEND afterwards: a record written next goes to the end. */
        assert_true(fcntl(fd, F_GETFL) & O_APPEND);
        struct timeline_record r = { .scheduled_ns = 4 };
        assert_int_equal(write(fd, &r, sizeof r), (ssize_t) sizeof r);
        assert_int_equal(file_size(fd), end + (off_t) sizeof r);
        check_rewritten(fd);
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rewrite_header),
                cmocka_unit_test(test_rewrite_header_append),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
