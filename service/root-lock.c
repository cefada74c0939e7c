/* root-lock.c: the cgroup root's lock (see root-lock.h). Why a file under /run and not a lock
 * on the cgroup directory itself: the root must be claimed before it exists (a second daemon
 * must not even create it), it is recreated when repaired (a lock on the old directory would be
 * lost), cgroupfs holds no regular files, and on v1 the root is one directory per hierarchy.
 * A name-keyed file works the same on v1, hybrid and v2, and flock() ends with the process, so
 * a daemon killed with SIGKILL never leaves a stale claim. */
#include "service/root-lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/macro.h"

struct root_lock {
        int fd;
        char path[PATH_MAX];
};

/* The holder writes its pid once it has the lock; a reader may catch the file still empty. */
static void describe_holder(int fd, char *buf, size_t size) {
        char pid[32];
        ssize_t n = read_full(fd, pid, sizeof pid - 1, 0);
        long v = 0;
        if (n > 0) {
                pid[n] = '\0';
                v = strtol(pid, NULL, 10);
        }
        if (v > 0)
                snprintf(buf, size, "slicelabd pid %ld", v);
        else
                snprintf(buf, size, "a slicelabd whose pid is not written yet");
}

/* Locked, but is it still the file at path? A releasing holder unlinks it while holding the
 * lock; whoever opened the old inode before that must retry on the new one. */
static bool still_linked(int fd, const char *path) {
        struct stat a, b;
        return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int root_lock_take(const char *dir, const char *root_name, struct root_lock **ret) {
        if (!dir)
                dir = ROOT_LOCK_DIR;
        if (!root_name[0] || strchr(root_name, '/') || strcmp(root_name, ".") == 0 || strcmp(root_name, "..") == 0)
                return log_error_errno(-EINVAL, "--cgroup-root '%s': not a single path component", root_name);
        _cleanup_free_ struct root_lock *l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        if (snprintf(l->path, sizeof l->path, "%s/cgroup-root-%s.lock", dir, root_name) >= (int) sizeof l->path)
                return -ENAMETOOLONG;
        int r = mkdir_parents(dir, 0755);
        if (r < 0)
                return log_error_errno(r, "cannot create %s for the cgroup root's lock", dir);
        for (;;) {
                _cleanup_close_ int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (fd < 0)
                        return log_error_errno(negative_errno(), "cannot open the cgroup root's lock %s", l->path);
                if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                        if (errno != EWOULDBLOCK)
                                return log_error_errno(negative_errno(), "flock %s", l->path);
                        char holder[96];
                        describe_holder(fd, holder, sizeof holder);
                        log_error("the cgroup root '%s' is in use by %s (lock %s): one daemon per root, "
                                  "choose another --cgroup-root", root_name, holder, l->path);
                        return -EBUSY;
                }
                if (!still_linked(fd, l->path))
                        continue;
                char pid[32];
                int n = snprintf(pid, sizeof pid, "%ld\n", (long) getpid());
                if (ftruncate(fd, 0) < 0 || (r = write_full(fd, pid, (size_t) n)) < 0)
                        return log_error_errno(r < 0 ? r : negative_errno(), "writing our pid to %s", l->path);
                l->fd = TAKE_FD(fd);
                break;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

void root_lock_release(struct root_lock *l) {
        if (!l)
                return;
        /* Unlinked while still held: see still_linked(). */
        (void) unlink(l->path);
        close(l->fd);
        free(l);
}
