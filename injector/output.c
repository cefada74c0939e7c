/* output.c: all-or-nothing result files. */
#include "injector/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"

int output_replace_file(const char *path, const void *data, size_t size, mode_t mode) {
        /* A device, pipe or socket (/dev/null, /dev/stdout) is written to, never replaced. */
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0)
                        return negative_errno();
                return write_full(fd, data, size);
        }
        char tmp[PATH_MAX];
        if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int) sizeof tmp)
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        int r = write_full(fd, data, size);
        if (r == 0 && fchmod(fd, mode) < 0)
                r = negative_errno();
        if (r == 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                unlink(tmp);
        return r;
}
