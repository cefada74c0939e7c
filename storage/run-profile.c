/* run-profile.c: a run's profile.folded read safely (see run-profile.h). */
#include "storage/run-profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"

int run_profile_read(const char *state_dir, const char *run_id, char **ret, size_t *ret_len) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/runs/%s/profile.folded", state_dir, run_id) >= (int) sizeof path)
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        struct stat st;
        if (fd < 0)
                return -ENOENT;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
                return -EIO;
        return read_fd_bounded(fd, RUN_PROFILE_BYTES_MAX, ret, ret_len);
}
