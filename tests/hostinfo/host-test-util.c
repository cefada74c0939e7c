/* host-test-util.c: see host-test-util.h. */
#include "host-test-util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"

const char *fixture_root(const char *name) {
        static char buf[PATH_MAX];
        const char *src = getenv("SLICELAB_SRC");
        assert_non_null(src);
        snprintf(buf, sizeof buf, "%s/tests/hostinfo/fixtures/%s", src, name);
        return buf;
}

char *scratch_new(void) {
        const char *tmp = getenv("TMPDIR");
        char *root = NULL;
        assert_true(asprintf(&root, "%s/slicelab-host-XXXXXX", tmp && *tmp ? tmp : "/tmp") > 0);
        assert_non_null(mkdtemp(root));
        return root;
}

void scratch_put(const char *root, const char *path, const char *content) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s%s", root, path);
        char *slash = strrchr(full, '/');
        *slash = '\0';
        assert_int_equal(mkdir_parents(full, 0755), 0);
        *slash = '/';
        /* O_TRUNC: a shorter value must not leave the tail of the old one */
        int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        size_t len = strlen(content);
        assert_int_equal(write(fd, content, len), (ssize_t) len);
        close(fd);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void scratch_free(char *root) {
        if (!root)
                return;
        assert_int_equal(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(root);
}

int json_array_has(const cJSON *array, const char *s) {
        const cJSON *item;
        cJSON_ArrayForEach(item, array)
                if (cJSON_IsString(item) && strcmp(item->valuestring, s) == 0)
                        return 1;
        return 0;
}

int count_open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        assert_non_null(d);
        int n = 0;
        for (struct dirent *e; (e = readdir(d));)
                if (e->d_name[0] != '.')
                        n++;
        closedir(d);
        return n - 1; /* the directory's own fd */
}
