/* inject-test-util.c: process, file and JSON helpers for the injector's run tests. */
#include "inject-test-util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "test-tmp.h"

extern char **environ;

/* Every process a test started, so a failing test (cmocka jumps out of it) leaves none behind. */
static pid_t started[64];

static void remember(pid_t pid) {
        for (size_t i = 0; i < ELEMENTSOF(started); i++)
                if (started[i] == 0) {
                        started[i] = pid;
                        return;
                }
}

static void forget(pid_t pid) {
        for (size_t i = 0; i < ELEMENTSOF(started); i++)
                if (started[i] == pid)
                        started[i] = 0;
}

/* Likewise the directories it made. */
static char made[8][256];

int test_cleanup(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(started); i++)
                if (started[i] > 0) {
                        kill(started[i], SIGKILL);
                        waitpid(started[i], NULL, 0);
                        started[i] = 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(made); i++)
                if (made[i][0])
                        tmpdir_remove(made[i]);
        return 0;
}

static long long monotonic_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void proc_spawn(struct proc *p, char *const argv[], bool capture) {
        int pipefd[2] = { -1, -1 };
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        if (capture) {
                assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
                posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
        } else
                posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        /* The child must not inherit our blocked or ignored signals. */
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        int r = posix_spawn(&p->pid, argv[0], &fa, &attr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        if (r != 0)
                fail_msg("cannot start %s: %s", argv[0], strerror(r));
        remember(p->pid);
        if (capture)
                close(pipefd[1]);
        p->out = pipefd[0];
}

bool proc_read_line(struct proc *p, char *buf, size_t size, int timeout_ms) {
        size_t len = 0;
        long long deadline = monotonic_ms() + timeout_ms;
        while (len + 1 < size) {
                long long left = deadline - monotonic_ms();
                if (left <= 0)
                        return false;
                struct pollfd pfd = { .fd = p->out, .events = POLLIN };
                int n = poll(&pfd, 1, (int) left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return false;
                /* One byte at a time: what follows the line stays in the pipe for later. */
                ssize_t k = read(p->out, buf + len, 1);
                if (k <= 0)
                        return false;
                if (buf[len] == '\n') {
                        buf[len] = '\0';
                        return true;
                }
                len++;
        }
        return false;
}

int proc_wait(struct proc *p, int timeout_ms) {
        /* A pidfd becomes readable when the process exits: the event to wait for. */
        int pidfd = (int) syscall(SYS_pidfd_open, p->pid, 0);
        assert_true(pidfd >= 0);
        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
        long long deadline = monotonic_ms() + timeout_ms;
        int n;
        do
                n = poll(&pfd, 1, (int) MAX(deadline - monotonic_ms(), 0));
        while (n < 0 && errno == EINTR);
        close(pidfd);
        int status = 0;
        if (n <= 0) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, &status, 0);
                forget(p->pid);
                p->pid = 0;
                fail_msg("process did not exit within %d ms", timeout_ms);
        }
        assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
        forget(p->pid);
        p->pid = 0;
        if (p->out >= 0)
                close(p->out);
        p->out = -1;
        return status;
}

void proc_kill(struct proc *p) {
        if (p->pid > 0) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, NULL, 0);
                forget(p->pid);
                p->pid = 0;
        }
        if (p->out >= 0)
                close(p->out);
        p->out = -1;
}

void build_path(char *buf, size_t size, const char *rel) {
        const char *b = getenv("SLICELAB_BUILD");
        assert_non_null(b);
        snprintf(buf, size, "%s/%s", b, rel);
}

void server_start(struct test_server *s, const char *const *args) {
        char path[4096];
        build_path(path, sizeof path, "tests/injector/http-test-server");
        char *argv[32] = { path };
        size_t n = 1;
        for (; args && args[n - 1] && n < 31; n++)
                argv[n] = (char *) args[n - 1];
        argv[n] = NULL;
        proc_spawn(&s->p, argv, true);
        char line[64];
        assert_true(proc_read_line(&s->p, line, sizeof line, 10000));
        s->port = (unsigned) strtoul(line, NULL, 10);
        assert_true(s->port > 0);
}

void server_stop(struct test_server *s) {
        proc_kill(&s->p);
}

void tmpdir_make(char *buf, size_t size) {
        _cleanup_free_ char *dir = tmp_dir_new("inject-test");
        assert_true(snprintf(buf, size, "%s", dir) < (int) size);
        for (size_t i = 0; i < ELEMENTSOF(made); i++)
                if (!made[i][0]) {
                        snprintf(made[i], sizeof made[i], "%s", buf);
                        break;
                }
}

void tmpdir_remove(const char *dir) {
        char copy[256];
        snprintf(copy, sizeof copy, "%s", dir);   /* dir may be the registry's own entry */
        for (size_t i = 0; i < ELEMENTSOF(made); i++)
                if (strcmp(made[i], copy) == 0)
                        made[i][0] = '\0';
        assert_int_equal(tmp_dir_remove(copy), 0);
}

void timeline_load(const char *path, struct timeline *t) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        struct stat st;
        assert_int_equal(fstat(fd, &st), 0);
        assert_true((size_t) st.st_size >= sizeof t->h);
        assert_int_equal(read(fd, &t->h, sizeof t->h), (ssize_t) sizeof t->h);
        assert_memory_equal(t->h.magic, TIMELINE_MAGIC, 4);
        assert_int_equal(t->h.version, TIMELINE_VERSION);
        assert_int_equal(t->h.record_size, sizeof(struct timeline_record));
        size_t body = (size_t) st.st_size - sizeof t->h;
        assert_int_equal(body % sizeof(struct timeline_record), 0);
        t->n = body / sizeof(struct timeline_record);
        t->r = malloc(body + 1);
        assert_non_null(t->r);
        size_t got = 0;
        while (got < body) {
                ssize_t k = read(fd, (char *) t->r + got, body - got);
                assert_true(k > 0);
                got += (size_t) k;
        }
        close(fd);
}

void timeline_free(struct timeline *t) {
        free(t->r);
        t->r = NULL;
}

void timeline_check_order(const struct timeline *t) {
        for (size_t i = 0; i < t->n; i++) {
                const struct timeline_record *r = &t->r[i];
                if (i > 0 && r->scheduled_ns < t->r[i - 1].scheduled_ns)
                        fail_msg("record %zu scheduled before record %zu", i, i - 1);
                if (r->submit_ns < r->scheduled_ns)
                        fail_msg("record %zu submitted before it was scheduled", i);
                if (r->done_ns < r->submit_ns)
                        fail_msg("record %zu done before it was submitted", i);
                if (r->scheduled_ns < t->h.start_ns)
                        fail_msg("record %zu scheduled before the start", i);
                bool warm = r->scheduled_ns < t->h.measure_start_ns;
                assert_int_equal(!!(r->flags & TIMELINE_WARMUP), warm);
                assert_true((r->status == 0) == (r->error != TIMELINE_ERR_NONE));
        }
}

size_t timeline_count(const struct timeline *t, bool measured, int status, int error) {
        size_t c = 0;
        for (size_t i = 0; i < t->n; i++) {
                const struct timeline_record *r = &t->r[i];
                if (measured && (r->flags & TIMELINE_WARMUP))
                        continue;
                if ((status < 0 || r->status == status) && (error < 0 || r->error == error))
                        c++;
        }
        return c;
}

cJSON *json_load(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f)
                fail_msg("cannot open %s", path);
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        cJSON *j = cJSON_Parse(buf);
        if (!j)
                fail_msg("%s is not JSON", path);
        return j;
}

static const cJSON *json_at(const cJSON *j, const char *path) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", path);
        const cJSON *cur = j;
        for (char *save = NULL, *tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
                cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
                if (!cur)
                        fail_msg("summary has no %s", path);
        }
        return cur;
}

double json_number(const cJSON *j, const char *path) {
        const cJSON *v = json_at(j, path);
        if (!cJSON_IsNumber(v))
                fail_msg("summary's %s is not a number", path);
        return v->valuedouble;
}

bool json_bool(const cJSON *j, const char *path) {
        const cJSON *v = json_at(j, path);
        if (!cJSON_IsBool(v))
                fail_msg("summary's %s is not a boolean", path);
        return cJSON_IsTrue(v);
}

int inject_run_under(const char *const *wrapper, const char *const *args, int timeout_ms) {
        char path[4096];
        build_path(path, sizeof path, "injector/slicelab-inject");
        char *argv[64];
        size_t n = 0;
        for (size_t i = 0; wrapper && wrapper[i] && n < 62; i++)
                argv[n++] = (char *) wrapper[i];
        argv[n++] = path;
        for (size_t i = 0; args[i] && n < 63; i++)
                argv[n++] = (char *) args[i];
        argv[n] = NULL;
        struct proc p;
        proc_spawn(&p, argv, false);
        return proc_wait(&p, timeout_ms);
}

int inject_run(const char *const *args, int timeout_ms) {
        return inject_run_under(NULL, args, timeout_ms);
}

void test_filter_from_env(void) {
        const char *f = getenv("TEST_FILTER");
        if (f && *f)
                cmocka_set_test_filter(f);
}
