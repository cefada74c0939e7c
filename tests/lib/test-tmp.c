/* test-tmp.c: see test-tmp.h. */
#include "test-tmp.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"

char *tmp_dir_new(const char *name) {
        const char *tmp = getenv("TMPDIR");
        char *dir = NULL;
        assert_true(asprintf(&dir, "%s/slicelab-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name) > 0);
        assert_non_null(mkdtemp(dir));
        return dir;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path) < 0 ? negative_errno() : 0;
}

int tmp_dir_remove(const char *dir) {
        /* FTW_DEPTH: a directory after what it holds; FTW_PHYS: a link is removed, never followed
         * out of the tree. */
        int r = nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        return r < 0 ? negative_errno() : r;
}

void tmp_dir_free(char *dir) {
        if (!dir)
                return;
        assert_int_equal(tmp_dir_remove(dir), 0);
        free(dir);
}

char *tmp_group_dir = NULL;

int tmp_group_setup(void **state) {
        tmp_group_dir = tmp_dir_new(program_invocation_short_name);
        return 0;
}

int tmp_group_teardown(void **state) {
        int r = tmp_dir_remove(tmp_group_dir);
        free(TAKE_PTR(tmp_group_dir));
        return r;
}

void tmp_path(char *buf, size_t size, const char *dir, const char *rel) {
        int n = snprintf(buf, size, "%s/%s", dir, rel);
        assert_true(n > 0 && (size_t) n < size);
}

void tmp_put(const char *dir, const char *rel, const char *text) {
        char path[4096];
        tmp_path(path, sizeof path, dir, rel);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        assert_int_equal(mkdir_parents(path, 0755), 0);
        *slash = '/';
        /* O_TRUNC: a shorter value must not leave the tail of the old one. */
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write_full(fd, text, strlen(text)), 0);
}
