/* cgroup-spawn.c: starting a child inside a slice before it runs a single instruction of the
 * program: clone3(CLONE_INTO_CGROUP) on v2, attach-then-exec over a pipe on v1. Exec errors come
 * back through a CLOEXEC pipe so the caller sees ENOENT/EACCES synchronously.
 *
 * The child is made by the raw clone3 system call: between it and exec the child only makes
 * system calls (no malloc, no locks, no glibc functions that assume the parent's threads, hence
 * raw setresuid/setresgid/setgroups). A child may be tied to the caller's life: a parent-death
 * signal, and its parent checked once it is set (a death before it sends nothing). */
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cgroup/cgroup-internal.h"
#include "basic/log.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

enum child_step { STEP_SYNC, STEP_SETSID, STEP_STDIO, STEP_USER, STEP_DEATH_SIGNAL, STEP_CWD, STEP_EXEC };
static const char *const step_names[] = {
        [STEP_SYNC] = "waiting for the cgroup", [STEP_SETSID] = "setsid",
        [STEP_STDIO] = "setting up stdio", [STEP_USER] = "dropping privileges",
        [STEP_DEATH_SIGNAL] = "setting the parent-death signal", [STEP_CWD] = "chdir", [STEP_EXEC] = "exec",
};

struct child_report {
        int32_t error;
        int32_t step;
};

struct child_plan {
        const char *exe;
        char *const *argv;
        char *const *envp;
        const char *cwd;
        int stdio[3];
        bool set_user;
        uid_t uid;
        gid_t gid;
        int death_signal;
        pid_t parent;  /* the spawning process, for the child's check that it still lives */
        int sync_fd;   /* v1: read end; one byte once attached. -1 on v2 */
        int sync_peer; /* v1: the parent's write end, closed at once so a dead parent means EOF */
        int report_fd; /* write end, CLOEXEC */
};

static const char *env_lookup(char *const *envp, const char *name) {
        size_t len = strlen(name);
        for (; envp && *envp; envp++)
                if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
                        return *envp + len + 1;
        return NULL;
}

/* argv[0] as execve() wants it: names with a '/' are taken as they are, others are looked up
 * in the child's PATH here in the parent, where we may allocate and report. */
static int find_executable(const char *name, char *const *envp, char *buf, size_t size) {
        if (!name || !*name)
                return -EINVAL;
        if (strchr(name, '/'))
                return cg_path(buf, size, "%s", name);
        const char *path = env_lookup(envp, "PATH");
        if (!path)
                path = DEFAULT_PATH;
        int last = -ENOENT;
        for (const char *p = path;;) {
                size_t len = strcspn(p, ":");
                int r = cg_path(buf, size, "%.*s/%s", (int) len, len ? p : ".", name);
                if (r >= 0 && access(buf, X_OK) == 0)
                        return 0;
                if (r >= 0 && errno == EACCES)
                        last = -EACCES;
                if (!p[len])
                        return last;
                p += len + 1;
        }
}

_Noreturn static void child_fail(const struct child_plan *c, enum child_step step, int error) {
        struct child_report rep = { .error = error > 0 ? error : EIO, .step = step };
        ssize_t k = write(c->report_fd, &rep, sizeof rep);
        (void) k;
        _exit(127);
}

static int child_stdio(const struct child_plan *c) {
        int moved[3];
        /* First lift every source above 2 so no dup2 below clobbers a source still needed. */
        for (int i = 0; i < 3; i++) {
                int src = c->stdio[i] >= 0 ? c->stdio[i] : open("/dev/null", O_RDWR | O_CLOEXEC);
                if (src < 0)
                        return errno;
                moved[i] = fcntl(src, F_DUPFD_CLOEXEC, 3);
                if (moved[i] < 0)
                        return errno;
        }
        for (int i = 0; i < 3; i++)
                if (dup2(moved[i], i) < 0) /* the copy at i is without CLOEXEC */
                        return errno;
        return 0;
}

static void child_reset_signals(void) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        for (int sig = 1; sig < _NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) sigaction(sig, &dfl, NULL);
}

_Noreturn static void child_run(const struct child_plan *c) {
        if (c->sync_fd >= 0) {
                close(c->sync_peer);
                char b;
                ssize_t k;
                do
                        k = read(c->sync_fd, &b, 1);
                while (k < 0 && errno == EINTR);
                if (k != 1)
                        _exit(127); /* the parent gave up on us and reaps us */
        }
        if (setsid() < 0)
                child_fail(c, STEP_SETSID, errno);
        child_reset_signals();
        int e = child_stdio(c);
        if (e)
                child_fail(c, STEP_STDIO, e);
        /* Nothing of the daemon's but the report pipe survives (which exec closes). */
        if (c->report_fd > 3)
                (void) close_range(3, (unsigned) c->report_fd - 1, 0);
        (void) close_range((unsigned) c->report_fd + 1, ~0U, 0);
        if (c->set_user) {
                if (syscall(SYS_setgroups, 0, NULL) < 0 ||
                    syscall(SYS_setresgid, c->gid, c->gid, c->gid) < 0 ||
                    syscall(SYS_setresuid, c->uid, c->uid, c->uid) < 0)
                        child_fail(c, STEP_USER, errno);
        }
        /* After the user drop, which clears it. A parent that died before this line sent no
         * signal: then we are someone else's child already, and go as the signal would have
         * made us (the report pipe has no reader left). */
        if (c->death_signal) {
                if (prctl(PR_SET_PDEATHSIG, (unsigned long) c->death_signal) < 0)
                        child_fail(c, STEP_DEATH_SIGNAL, errno);
                if (getppid() != c->parent)
                        _exit(127);
        }
        /* The daemon's threads are confined to its housekeeping CPUs; a child must not inherit
         * that: all CPUs, which the kernel narrows to the slice's cpuset. */
        cpu_set_t all;
        memset(&all, 0xff, sizeof all);
        (void) sched_setaffinity(0, sizeof all, &all);
        if (c->cwd && chdir(c->cwd) < 0)
                child_fail(c, STEP_CWD, errno);
        static char *const empty_env[] = { NULL };
        execve(c->exe, c->argv, c->envp ? c->envp : empty_env);
        child_fail(c, STEP_EXEC, errno);
}

static int clone_child(int cgroup_fd, int *ret_pidfd, pid_t *ret_pid) {
        int pidfd = -1;
        struct clone_args args = {
                .flags = CLONE_PIDFD | (cgroup_fd >= 0 ? CLONE_INTO_CGROUP : 0),
                .pidfd = (uint64_t) (uintptr_t) &pidfd,
                .exit_signal = SIGCHLD,
                .cgroup = cgroup_fd >= 0 ? (uint64_t) cgroup_fd : 0,
        };
        long pid = syscall(SYS_clone3, &args, sizeof args);
        if (pid < 0)
                return negative_errno();
        if (pid > 0) {
                *ret_pidfd = pidfd;
                *ret_pid = (pid_t) pid;
        }
        return (int) (pid > 0);
}

/* Where clone3 is refused (ENOSYS: container seccomp profiles such as Docker's default,
 * valgrind), a plain fork: the child then waits on the sync pipe until the parent has moved it
 * into the slice, as on v1. */
static int fork_child(int *ret_pidfd, pid_t *ret_pid) {
        pid_t pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid == 0)
                return 0;
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) {
                int e = negative_errno();
                kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                return e;
        }
        *ret_pidfd = pidfd;
        *ret_pid = pid;
        return 1;
}

/* v2 attach without a driver hook: the pid into the slice's cgroup.procs, by its directory fd. */
static int attach_by_fd(int cgroup_fd, pid_t pid) {
        _cleanup_close_ int fd = openat(cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        char buf[24];
        int n = snprintf(buf, sizeof buf, "%d", (int) pid);
        return write(fd, buf, (size_t) n) == n ? 0 : negative_errno();
}

/* A CLOEXEC pipe whose ends are not 0-2 (a daemon started with closed stdio could get those),
 * so the child's stdio setup cannot clobber them. */
static int pipe_above_stdio(int ret[2]) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return negative_errno();
        for (int i = 0; i < 2; i++) {
                if (fds[i] > 2)
                        continue;
                int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
                int e = negative_errno();
                close(fds[i]);
                fds[i] = moved;
                if (moved < 0) {
                        if (fds[1 - i] >= 0)
                                close(fds[1 - i]);
                        return e;
                }
        }
        ret[0] = fds[0];
        ret[1] = fds[1];
        return 0;
}

static void kill_and_reap(int pidfd) {
        (void) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        siginfo_t si;
        while (waitid(P_PIDFD, (id_t) pidfd, &si, WEXITED) < 0 && errno == EINTR)
                ;
}

/* 0 once the child exec'd (the CLOEXEC pipe closed empty), or the child's -errno. */
static int read_report(int fd, struct child_report *rep) {
        ssize_t k;
        do
                k = read(fd, rep, sizeof *rep);
        while (k < 0 && errno == EINTR);
        if (k == 0)
                return 0;
        if (k != (ssize_t) sizeof *rep)
                return k < 0 ? negative_errno() : -EIO;
        return -abs(rep->error ? rep->error : EIO);
}

int slice_spawn(struct cgroup_run *r, enum slice_kind kind, const struct spawn_params *p,
                pid_t *ret_pid, int *ret_pidfd) {
        if ((unsigned) kind >= _SLICE_KIND_MAX || !p || !p->argv || !p->argv[0])
                return -EINVAL;
        /* The kernel sends the parent-death signal when the thread that forked ends: only the
         * main thread's end is the process's. */
        if (p->death_signal && gettid() != getpid()) {
                log_run(LOG_ERR, NULL, r->id, "spawn: a parent-death signal asked for from a thread other than the main one");
                return -EINVAL;
        }
        struct cgroup_manager *m = r->manager;
        const char *slice = r->slice[kind];
        char exe[PATH_MAX];
        int k = find_executable(p->argv[0], p->envp, exe, sizeof exe);
        if (k < 0) {
                log_run(LOG_ERR, NULL, r->id, "spawn: executable not found: %s %s", strerror(-k), p->argv[0]);
                return k;
        }

        _cleanup_close_ int cgroup_fd = -1, sync_r = -1, sync_w = -1, rep_r = -1, rep_w = -1;
        int fds[2];
        k = pipe_above_stdio(fds);
        if (k < 0)
                return k;
        rep_r = fds[0];
        rep_w = fds[1];
        if (m->driver->open_fd) {
                cgroup_fd = m->driver->open_fd(m, slice);
                if (cgroup_fd < 0)
                        return cgroup_fd;
        }
        /* The sync pipe serves attach-then-exec: v1 always, v2 only if clone3 is refused. */
        k = pipe_above_stdio(fds);
        if (k < 0)
                return k;
        sync_r = fds[0];
        sync_w = fds[1];
        struct child_plan plan = {
                .exe = exe, .argv = p->argv, .envp = p->envp, .cwd = p->cwd,
                .stdio = { p->stdin_fd, p->stdout_fd, p->stderr_fd },
                .set_user = p->set_user, .uid = p->uid, .gid = p->gid,
                .death_signal = p->death_signal, .parent = getpid(),
                .sync_fd = cgroup_fd >= 0 ? -1 : sync_r, .sync_peer = sync_w, .report_fd = rep_w,
        };
        pid_t pid = 0;
        _cleanup_close_ int pidfd = -1;
        k = clone_child(cgroup_fd, &pidfd, &pid);
        bool attach_after = cgroup_fd < 0;
        if (k == -ENOSYS) {
                plan.sync_fd = sync_r;
                attach_after = true;
                k = fork_child(&pidfd, &pid);
        }
        if (k < 0)
                return log_error_errno(k, "spawn: clone3 into %s", slice);
        if (k == 0)
                child_run(&plan);

        /* only the child may hold the write end now, so exec or exit closes the pipe */
        close(TAKE_FD(rep_w));
        if (attach_after) {
                k = m->driver->attach ? m->driver->attach(m, slice, pid) : attach_by_fd(cgroup_fd, pid);
                if (k < 0) {
                        kill_and_reap(pidfd);
                        return log_error_errno(k, "spawn: attaching %d to %s", (int) pid, slice);
                }
                if (write(sync_w, "x", 1) != 1) {
                        k = negative_errno();
                        kill_and_reap(pidfd);
                        return k;
                }
        }
        struct child_report rep = { 0 };
        k = read_report(rep_r, &rep);
        if (k < 0) {
                kill_and_reap(pidfd);
                const char *step = (unsigned) rep.step < ELEMENTSOF(step_names) ? step_names[rep.step] : "?";
                log_run(LOG_ERR, NULL, r->id, "spawn: %s failed: %s %s", step, strerror(-k),
                        rep.step == STEP_CWD && p->cwd ? p->cwd : exe);
                return k;
        }
        *ret_pid = pid;
        *ret_pidfd = TAKE_FD(pidfd);
        return 0;
}
