/* host-java.c: finding java on PATH and asking it for its version, once. */
#include "host/host-java.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "basic/macro.h"

#define PROBE_OUTPUT_MAX 16384

extern char **environ;

static bool is_executable_file(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int host_program_find(const char *name, const char *path_env, char *ret, size_t size) {
        for (const char *p = path_env ? path_env : ""; *p;) {
                size_t len = strcspn(p, ":");
                if (len > 0 && p[0] == '/') {
                        char cand[PATH_MAX];
                        int n = snprintf(cand, sizeof cand, "%.*s/%s", (int) len, p, name);
                        if (n > 0 && (size_t) n < sizeof cand && is_executable_file(cand)) {
                                if ((size_t) n >= size)
                                        return -ENAMETOOLONG;
                                memcpy(ret, cand, (size_t) n + 1);
                                return 0;
                        }
                }
                p += len;
                if (*p == ':')
                        p++;
        }
        return -ENOENT;
}

int host_java_find(const char *path_env, char *ret, size_t size) {
        return host_program_find("java", path_env, ret, size);
}

int host_perf_find(const char *configured, char *ret, size_t size) {
        if (configured) {
                if (!is_executable_file(configured))
                        return -ENOENT;
                if (strlen(configured) >= size)
                        return -ENAMETOOLONG;
                strcpy(ret, configured);
                return 0;
        }
        return host_program_find("perf", getenv("PATH"), ret, size);
}

/* Copy the first line of text, keeping printable ASCII only (it ends up in JSON and logs). */
static void copy_first_line(const char *text, char *buf, size_t size) {
        size_t len = MIN(strcspn(text, "\n"), size - 1);
        for (size_t i = 0; i < len; i++)
                buf[i] = (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?';
        buf[len] = '\0';
}

/* The line with `version "X"` (JAVA_TOOL_OPTIONS can add lines before it). */
static int parse_version_output(const char *text, struct host_java *ret) {
        for (const char *line = text; *line;) {
                const char *end = line + strcspn(line, "\n");
                const char *v = strstr(line, "version \"");
                if (v && v < end) {
                        const char *s = v + strlen("version \"");
                        size_t len = strspn(s, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._+-");
                        if (len == 0 || s[len] != '"' || len >= sizeof ret->version)
                                return -EBADMSG;
                        memcpy(ret->version, s, len);
                        ret->version[len] = '\0';
                        copy_first_line(line, ret->description, sizeof ret->description);
                        return 0;
                }
                line = *end ? end + 1 : end;
        }
        return -EBADMSG;
}

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read the child's output until EOF or the deadline; beyond the cap it is drained and dropped
 * so the child never blocks on a full pipe. */
static int read_until_eof(int fd, char *buf, size_t cap, int64_t deadline) {
        size_t len = 0;
        for (;;) {
                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int k = poll(&pfd, 1, (int) left);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        return -ETIMEDOUT;
                char sink[4096];
                char *into = len < cap - 1 ? buf + len : sink;
                size_t room = len < cap - 1 ? cap - 1 - len : sizeof sink;
                ssize_t got = read(fd, into, room);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0)
                        return negative_errno();
                if (got == 0)
                        break;
                if (into != sink)
                        len += (size_t) got;
        }
        buf[len] = '\0';
        return 0;
}

static int spawn_version(const char *java, int out_fd, pid_t *ret_pid) {
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        int r = posix_spawn_file_actions_init(&fa);
        if (r != 0)
                return -r;
        r = posix_spawnattr_init(&attr);
        if (r != 0) {
                posix_spawn_file_actions_destroy(&fa);
                return -r;
        }
        /* The daemon blocks signals for sd-event; java must not inherit that. */
        if ((r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) == 0 &&
            (r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO)) == 0 &&
            (r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO)) == 0 &&
            (r = posix_spawnattr_setsigmask(&attr, &none)) == 0 &&
            (r = posix_spawnattr_setsigdefault(&attr, &all)) == 0 &&
            (r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) == 0) {
                char *const argv[] = { (char *) java, (char *) "-version", NULL };
                r = posix_spawn(ret_pid, java, &fa, &attr, argv, environ);
        }
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&fa);
        return -r;
}

/* Wait for the child until the deadline (it may close its output and linger), then kill it;
 * always reaps it. Returns -ETIMEDOUT when it had to be killed. */
static int reap(pid_t pid, int64_t deadline, int *ret_status) {
        int r = 0;
        _cleanup_close_ int pidfd = pidfd_open(pid, 0);
        if (pidfd >= 0) {
                for (;;) {
                        int64_t left = deadline - now_ms();
                        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
                        int k = left > 0 ? poll(&pfd, 1, (int) left) : 0;
                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k == 0) {
                                kill(pid, SIGKILL);
                                r = -ETIMEDOUT;
                        }
                        break;
                }
        }
        while (waitpid(pid, ret_status, 0) < 0)
                if (errno != EINTR)
                        return negative_errno();
        return r;
}

int host_java_probe(const char *java, int timeout_ms, struct host_java *ret) {
        struct host_java j = { 0 };
        if (strlen(java) >= sizeof j.path)
                return -ENAMETOOLONG;
        strcpy(j.path, java);

        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        _cleanup_close_ int rfd = pipefd[0], wfd = pipefd[1];
        pid_t pid;
        int r = spawn_version(java, wfd, &pid);
        if (r < 0)
                return r;
        /* our copy of the write end must go, or EOF never comes */
        close(TAKE_FD(wfd));

        int64_t deadline = now_ms() + timeout_ms;
        _cleanup_free_ char *out = malloc(PROBE_OUTPUT_MAX);
        r = out ? read_until_eof(rfd, out, PROBE_OUTPUT_MAX, deadline) : -ENOMEM;
        if (r < 0)
                kill(pid, SIGKILL);
        int status = 0;
        int k = reap(pid, deadline, &status);
        if (r < 0)
                return r;
        if (k < 0)
                return k;
        r = parse_version_output(out, &j);
        if (r < 0)
                return !WIFEXITED(status) || WEXITSTATUS(status) != 0 ? -ECHILD : r;
        *ret = j;
        return 0;
}

/* ---- cache ---- */

struct identity {
        dev_t dev;
        ino_t ino;
        off_t size;
        struct timespec mtime;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static bool cache_valid;
static struct identity cache_id;
static struct host_java cache_java;
static int cache_result;

static int identify(const char *path, struct identity *ret) {
        struct stat st;
        if (stat(path, &st) < 0)
                return negative_errno();
        *ret = (struct identity){ .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size, .mtime = st.st_mtim };
        return 0;
}

static bool same_identity(const struct identity *a, const struct identity *b) {
        return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
               a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

int host_java_get(struct host_java *ret) {
        char path[PATH_MAX];
        struct identity id;
        int r = host_java_find(getenv("PATH"), path, sizeof path);
        if (r < 0)
                return r;
        r = identify(path, &id);
        if (r < 0)
                return r;

        pthread_mutex_lock(&cache_lock);
        /* One probe at a time: concurrent callers wait for it instead of starting more JVMs. */
        if (!cache_valid || strcmp(cache_java.path, path) != 0 || !same_identity(&cache_id, &id)) {
                struct host_java j = { 0 };
                r = host_java_probe(path, HOST_JAVA_PROBE_TIMEOUT_MS, &j);
                if (r < 0) {
                        j = (struct host_java){ 0 };
                        strcpy(j.path, path);
                }
                cache_java = j;
                cache_id = id;
                cache_result = r;
                cache_valid = true;
        }
        *ret = cache_java;
        r = cache_result;
        pthread_mutex_unlock(&cache_lock);
        return r;
}
