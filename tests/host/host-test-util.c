/* host-test-util.c: see host-test-util.h. */
#include "host-test-util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fixture_root(const char *name) {
        static char buf[PATH_MAX];
        const char *src = getenv("SLICELAB_SRC");
        assert_non_null(src);
        snprintf(buf, sizeof buf, "%s/tests/host/fixtures/%s", src, name);
        return buf;
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
