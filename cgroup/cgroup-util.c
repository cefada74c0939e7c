/* cgroup-util.c: cgroupfs plumbing shared by both drivers: bounded paths and reads, walking a
 * subtree, killing its processes through pidfds, removing it bottom-up. */
#include "cgroup/cgroup-internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/fileio.h"
#include "basic/macro.h"

#define _cleanup_closedir_ _cleanup_(closedirp)

uint64_t cg_now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

bool cg_valid_name(const char *s, size_t max, bool allow_dot) {
        if (!s || !*s || strlen(s) > max)
                return false;
        if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                return false;
        for (const char *p = s; *p; p++) {
                bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                          (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
                          (allow_dot && *p == '.');
                if (!ok)
                        return false;
        }
        return true;
}

int cg_path(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        if (n < 0)
                return -EINVAL;
        return (size_t) n < size ? 0 : -ENAMETOOLONG;
}

int cg_read_small(const char *dir, const char *file, char *buf, size_t size) {
        char p[PATH_MAX];
        int r = cg_path(p, sizeof p, "%s/%s", dir, file);
        return r < 0 ? r : read_file_into(p, buf, size);
}

int cg_read_u64(const char *dir, const char *file, uint64_t *ret) {
        char buf[64];
        int r = cg_read_small(dir, file, buf, sizeof buf);
        if (r < 0)
                return r;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(buf, &end, 10);
        if (errno || end == buf || (*end && *end != '\n'))
                return -EBADMSG;
        *ret = v;
        return 0;
}

int cg_write(const char *dir, const char *file, const char *value) {
        char p[PATH_MAX];
        int r = cg_path(p, sizeof p, "%s/%s", dir, file);
        if (r < 0)
                return r;
        return write_string_file(p, value);
}

bool cg_file_exists(const char *dir, const char *file) {
        char p[PATH_MAX];
        if (cg_path(p, sizeof p, "%s/%s", dir, file) < 0)
                return false;
        return access(p, F_OK) == 0;
}

int cg_for_each_pid_here(const char *dir, int (*fn)(pid_t, void *), void *userdata) {
        char p[PATH_MAX];
        int r = cg_path(p, sizeof p, "%s/cgroup.procs", dir);
        if (r < 0)
                return r;
        _cleanup_fclose_ FILE *f = fopen(p, "re");
        if (!f)
                return errno == ENOENT ? 0 : negative_errno();
        long pid;
        while (fscanf(f, "%ld", &pid) == 1) {
                if (pid <= 0 || pid > INT_MAX)
                        continue;
                r = fn((pid_t) pid, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

int cg_for_each_pid(const char *dir, int (*fn)(pid_t, void *), void *userdata) {
        int r = cg_for_each_pid_here(dir, fn, userdata);
        if (r < 0)
                return r;
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                char sub[PATH_MAX];
                r = cg_path(sub, sizeof sub, "%s/%s", dir, de->d_name);
                if (r < 0)
                        return r;
                r = cg_for_each_pid(sub, fn, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The pidfds of one kill round; a slice holds a handful of processes, a JVM counts as one. */
struct kill_round {
        int *fds;
        size_t n, cap;
};

static void kill_round_done(struct kill_round *k) {
        for (size_t i = 0; i < k->n; i++)
                close(k->fds[i]);
        free(k->fds);
        *k = (struct kill_round){ 0 };
}

static int kill_one(pid_t pid, void *userdata) {
        struct kill_round *k = userdata;
        int fd = pidfd_open(pid, 0);
        if (fd < 0)
                return errno == ESRCH ? 0 : negative_errno();
        if (pidfd_send_signal(fd, SIGKILL, NULL, 0) < 0 && errno != ESRCH) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        if (k->n == k->cap) {
                size_t ncap = k->cap ? k->cap * 2 : 16;
                int *n = realloc(k->fds, ncap * sizeof *n);
                if (!n) {
                        close(fd);
                        return -ENOMEM;
                }
                k->fds = n;
                k->cap = ncap;
        }
        k->fds[k->n++] = fd;
        return 0;
}

/* A pidfd turns readable when its process has exited. */
static int wait_pidfds(const struct kill_round *k, uint64_t deadline) {
        for (size_t i = 0; i < k->n; i++) {
                for (;;) {
                        uint64_t now = cg_now_usec();
                        if (now >= deadline)
                                return -ETIMEDOUT;
                        struct pollfd pfd = { .fd = k->fds[i], .events = POLLIN };
                        int timeout_ms = (int) MIN((deadline - now + 999) / 1000, (uint64_t) INT_MAX);
                        int r = poll(&pfd, 1, timeout_ms);
                        if (r < 0 && errno == EINTR)
                                continue;
                        if (r < 0)
                                return negative_errno();
                        if (r > 0)
                                break;
                }
        }
        return 0;
}

int cg_kill_dirs(char (*dirs)[PATH_MAX], size_t n, int (*freeze)(const char *dir, bool on),
                 const char *freeze_dir, uint64_t timeout_usec) {
        uint64_t deadline = cg_now_usec() + timeout_usec;
        for (;;) {
                struct kill_round k = { 0 };
                int r = 0;
                if (freeze)
                        r = freeze(freeze_dir, true);
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = cg_for_each_pid(dirs[i], kill_one, &k);
                if (freeze) {
                        int q = freeze(freeze_dir, false);
                        if (r >= 0)
                                r = q;
                }
                if (r >= 0)
                        r = wait_pidfds(&k, deadline);
                size_t killed = k.n;
                kill_round_done(&k);
                if (r < 0)
                        return r;
                if (killed == 0)
                        return 0;
                if (cg_now_usec() >= deadline)
                        return -ETIMEDOUT;
        }
}

int cg_rmdir_tree(const char *dir) {
        {
                _cleanup_closedir_ DIR *d = opendir(dir);
                if (!d)
                        return errno == ENOENT ? 0 : negative_errno();
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
                            strcmp(de->d_name, "..") == 0)
                                continue;
                        char sub[PATH_MAX];
                        int r = cg_path(sub, sizeof sub, "%s/%s", dir, de->d_name);
                        if (r < 0)
                                return r;
                        r = cg_rmdir_tree(sub);
                        if (r < 0)
                                return r;
                }
        }
        /* A killed task leaves the cgroup in its exit path, a moment after its pidfd says it
         * died; cgroupfs offers no event for that on v1, so retry with a short backoff. */
        uint64_t deadline = cg_now_usec() + CG_KILL_TIMEOUT_USEC;
        long delay_ns = 100000;
        for (;;) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return 0;
                if (errno != EBUSY || cg_now_usec() >= deadline)
                        return negative_errno();
                nanosleep(&(struct timespec){ .tv_nsec = delay_ns }, NULL);
                delay_ns = MIN(delay_ns * 2, 50000000L);
        }
}

void cg_note(char *msg, size_t size, const char *fmt, ...) {
        size_t len = strnlen(msg, size);
        if (len + 3 >= size)
                return;
        if (len > 0) {
                memcpy(msg + len, "; ", 3);
                len += 2;
        }
        va_list ap;
        va_start(ap, fmt);
        (void) vsnprintf(msg + len, size - len, fmt, ap);
        va_end(ap);
}

void cg_msg(char *msg, size_t size, const char *fmt, ...) {
        if (size == 0)
                return;
        va_list ap;
        va_start(ap, fmt);
        (void) vsnprintf(msg, size, fmt, ap);
        va_end(ap);
}

int cg_ensure_dir(const char *dir, char *msg, size_t size) {
        if (mkdir(dir, 0755) == 0)
                return 1;
        if (errno == EEXIST)
                return 0;
        int r = negative_errno();
        cg_msg(msg, size, "mkdir %s: %s", dir, strerror(-r));
        return r;
}

int cg_write_noted(const char *dir, const char *file, const char *value, char *msg, size_t size) {
        int r = cg_write(dir, file, value);
        if (r < 0)
                cg_msg(msg, size, "%s/%s refused \"%s\": %s", dir, file, value, strerror(-r));
        return r;
}
