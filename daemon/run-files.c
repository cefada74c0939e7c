/* run-files.c: a run's files, opened without trusting the run user's directory. */
#include "daemon/run-files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/macro.h"

static int open_beneath(int dirfd, const char *name) {
        const int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
        struct open_how how = { .flags = flags,
                                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
        int fd = (int) syscall(SYS_openat2, dirfd, name, &how, sizeof how);
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
                return fd >= 0 ? fd : negative_errno();
        /* Before 5.6 (or under a seccomp filter that refuses openat2): no ".." and O_NOFOLLOW for
         * the last component; the directories on the way are the definition's, made by the run. */
        if (name[0] == '/' || strstr(name, ".."))
                return -EXDEV;
        fd = openat(dirfd, name, flags);
        return fd >= 0 ? fd : negative_errno();
}

static int fail(int r, const char *name, char *why, size_t why_size, const char *what) {
        if (why)
                snprintf(why, why_size, "%s in the run directory %s", name, what);
        return r;
}

int run_file_open(const char *dir, const char *name, uint64_t max, int *ret_fd, char *why, size_t why_size) {
        _cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return fail(negative_errno(), name, why, why_size, "cannot be reached: no run directory");
        _cleanup_close_ int fd = open_beneath(dirfd, name);
        if (fd == -ENOENT)
                return fail(fd, name, why, why_size, "is missing");
        if (fd == -ELOOP || fd == -EXDEV)
                return fail(-ELOOP, name, why, why_size, "is a symbolic link or leads out of it (refused)");
        if (fd < 0)
                return fail(fd, name, why, why_size, "cannot be opened");
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail(negative_errno(), name, why, why_size, "cannot be examined");
        if (!S_ISREG(st.st_mode))
                return fail(-ENXIO, name, why, why_size,
                            S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file (refused)"
                                                 : "is not a regular file (refused)");
        if ((uint64_t) st.st_size > max) {
                char what[96];
                snprintf(what, sizeof what, "has %llu bytes, over the cap of %llu (refused)",
                         (unsigned long long) st.st_size, (unsigned long long) max);
                return fail(-EFBIG, name, why, why_size, what);
        }
        /* A regular file never blocks; the readers expect ordinary reads. */
        if (fcntl(fd, F_SETFL, 0) < 0)
                return fail(negative_errno(), name, why, why_size, "cannot be read");
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int run_file_fopen(const char *dir, const char *name, uint64_t max, FILE **ret, char *why, size_t why_size) {
        int fd = -1;
        int r = run_file_open(dir, name, max, &fd, why, why_size);
        if (r < 0)
                return r;
        FILE *f = fdopen(fd, "re");
        if (!f) {
                r = negative_errno();
                close(fd);
                return fail(r, name, why, why_size, "cannot be read");
        }
        *ret = f;
        return 0;
}

int run_file_timeline_header(const char *dir, const char *name, struct timeline_header *ret) {
        _cleanup_close_ int fd = -1;
        int r = run_file_open(dir, name, RUN_FILE_CAP_TIMELINE, &fd, NULL, 0);
        if (r < 0)
                return r == -ENOENT ? -ENODATA : r;
        struct timeline_header h;
        ssize_t n = pread(fd, &h, sizeof h, 0);
        if (n < 0)
                return negative_errno();
        if (n < (ssize_t) sizeof h)
                return -ENODATA;
        if (memcmp(h.magic, "SLTL", 4) != 0 || h.record_size != sizeof(struct timeline_record))
                return -EBADMSG;
        *ret = h;
        return 0;
}
