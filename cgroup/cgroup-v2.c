/* cgroup-v2.c: the cgroup v2 driver, plain cgroupfs writes. Under systemd it keeps to the
 * delegated subtree the daemon was started in (systemd's delegation rules: no processes in inner
 * nodes, nothing written above the delegated cgroup); without systemd it uses a root directly
 * under /sys/fs/cgroup. Every write goes through v2_write(), which refuses paths outside. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "cgroup/cgroup-internal.h"
#include "basic/log.h"

#define V2_CONTROLLERS "+cpu +cpuset +memory +pids"

/* cgpath inside our root (or the root itself)? */
static bool v2_owned(const struct cgroup_manager *m, const char *cgpath) {
        size_t len = strlen(m->root);
        return strncmp(cgpath, m->root, len) == 0 && (cgpath[len] == '\0' || cgpath[len] == '/');
}

static int v2_dir(const struct cgroup_manager *m, const char *cgpath, char *buf, size_t size) {
        return cg_path(buf, size, "%s%s", m->mount, cgpath);
}

static int v2_write(const struct cgroup_manager *m, const char *cgpath, const char *file, const char *value) {
        if (!v2_owned(m, cgpath)) {
                log_error("cgroup: refusing to write %s outside the root %s", cgpath, m->root);
                return -EPERM;
        }
        char dir[PATH_MAX];
        int r = v2_dir(m, cgpath, dir, sizeof dir);
        if (r < 0)
                return r;
        r = cg_write(dir, file, value);
        if (r < 0)
                log_debug("cgroup: writing \"%s\" to %s/%s: %s", value, dir, file, strerror(-r));
        return r;
}

/* The unified line "0::/path" of /proc/self/cgroup. */
static int v2_own_cgroup(char *buf, size_t size) {
        char text[4096];
        int r = cg_read_small("/proc/self", "cgroup", text, sizeof text);
        if (r < 0)
                return r;
        for (char *line = text; line && *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (strncmp(line, "0::/", 4) == 0)
                        return cg_path(buf, size, "%s", line + 3);
                line = nl ? nl + 1 : NULL;
        }
        return -ENOENT;
}

static bool v2_has_controllers(const char *dir) {
        char buf[512];
        if (cg_read_small(dir, "cgroup.controllers", buf, sizeof buf) < 0)
                return false;
        static const char *const need[] = { "cpu", "cpuset", "memory", "pids" };
        for (size_t i = 0; i < ELEMENTSOF(need); i++) {
                bool found = false;
                char copy[512];
                snprintf(copy, sizeof copy, "%s", buf);
                char *save = NULL;
                for (char *w = strtok_r(copy, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
                        found = found || strcmp(w, need[i]) == 0;
                if (!found) {
                        log_error("cgroup: controller %s is not available in %s", need[i], dir);
                        return false;
                }
        }
        return true;
}

/* systemd marks delegated cgroups with an xattr (trusted. for system, user. for user units). */
static bool v2_is_delegated(const char *dir) {
        if (getenv("INVOCATION_ID"))
                return true;
        char v[8];
        return getxattr(dir, "trusted.delegate", v, sizeof v) > 0 || getxattr(dir, "user.delegate", v, sizeof v) > 0;
}

struct move_ctx {
        const struct cgroup_manager *m;
        const char *to;
        size_t moved;
};

static int move_one(pid_t pid, void *userdata) {
        struct move_ctx *c = userdata;
        char s[32];
        snprintf(s, sizeof s, "%d", (int) pid);
        int r = v2_write(c->m, c->to, "cgroup.procs", s);
        if (r == -ESRCH)
                return 0;
        if (r >= 0)
                c->moved++;
        return r;
}

/* Move every process of the delegated cgroup (us, and whatever started us there) into
 * <own>/supervisor, so the own cgroup becomes an inner node that may enable controllers. */
static int v2_enter_supervisor(struct cgroup_manager *m) {
        char sup[PATH_MAX], own_dir[PATH_MAX], sup_dir[PATH_MAX];
        int r = cg_path(sup, sizeof sup, "%s/supervisor", m->root);
        if (r >= 0)
                r = v2_dir(m, m->root, own_dir, sizeof own_dir);
        if (r >= 0)
                r = v2_dir(m, sup, sup_dir, sizeof sup_dir);
        if (r < 0)
                return r;
        if (mkdir(sup_dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(negative_errno(), "cgroup: mkdir %s", sup_dir);
        /* Processes may fork while we move them; repeat until none are left (bounded). */
        for (int round = 0; round < 100; round++) {
                struct move_ctx c = { .m = m, .to = sup };
                r = cg_for_each_pid_here(own_dir, move_one, &c);
                if (r < 0)
                        return log_error_errno(r, "cgroup: moving processes into %s", sup_dir);
                if (c.moved == 0)
                        return 0;
        }
        return -EBUSY;
}

static int v2_init(struct cgroup_manager *m, const char *root_name) {
        char own[PATH_MAX], own_dir[PATH_MAX];
        int r = cg_path(m->mount, sizeof m->mount, "%s", m->mode.mount);
        if (r >= 0)
                r = v2_own_cgroup(own, sizeof own);
        if (r < 0)
                return log_error_errno(r, "cgroup: cannot find our cgroup in /proc/self/cgroup");
        r = v2_dir(m, own, own_dir, sizeof own_dir);
        if (r < 0)
                return r;
        if (strcmp(own, "/") != 0 && v2_is_delegated(own_dir)) {
                m->delegated = true;
                snprintf(m->root, sizeof m->root, "%s", own);
                if (!v2_has_controllers(own_dir))
                        return -EOPNOTSUPP;
                r = v2_enter_supervisor(m);
                if (r >= 0)
                        r = v2_write(m, m->root, "cgroup.subtree_control", V2_CONTROLLERS);
                if (r < 0)
                        return log_error_errno(r, "cgroup: preparing the delegated subtree %s", own);
                return 0;
        }

        r = cg_path(m->root, sizeof m->root, "/%s", root_name);
        if (r < 0)
                return r;
        if (!v2_has_controllers(m->mount))
                return -EOPNOTSUPP;
        /* Without systemd the top is ours to configure: controllers must be enabled there
         * before the root can use them. This is the one write above the root. */
        r = cg_write(m->mount, "cgroup.subtree_control", V2_CONTROLLERS);
        if (r < 0)
                return log_error_errno(r, "cgroup: enabling controllers in %s", m->mount);
        char root_dir[PATH_MAX];
        r = v2_dir(m, m->root, root_dir, sizeof root_dir);
        if (r < 0)
                return r;
        if (mkdir(root_dir, 0755) < 0) {
                if (errno != EEXIST)
                        return log_error_errno(negative_errno(), "cgroup: mkdir %s", root_dir);
        } else
                m->root_created = true;
        r = v2_write(m, m->root, "cgroup.subtree_control", V2_CONTROLLERS);
        if (r < 0) {
                if (m->root_created)
                        (void) rmdir(root_dir);
                return log_error_errno(r, "cgroup: enabling controllers in %s", root_dir);
        }
        return 0;
}

/* Each controller we need listed in dir's cgroup.subtree_control? */
static bool v2_subtree_enabled(const char *dir) {
        char buf[512];
        if (cg_read_small(dir, "cgroup.subtree_control", buf, sizeof buf) < 0)
                return false;
        static const char *const need[] = { "cpu", "cpuset", "memory", "pids" };
        for (size_t i = 0; i < ELEMENTSOF(need); i++) {
                size_t len = strlen(need[i]);
                const char *p = buf;
                bool found = false;
                while (!found && (p = strstr(p, need[i]))) {
                        found = (p == buf || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\n' || p[len] == '\0');
                        p += len;
                }
                if (!found)
                        return false;
        }
        return true;
}

static int v2_repair(struct cgroup_manager *m, char *msg, size_t size) {
        char dir[PATH_MAX], note[1024] = "";
        int r = v2_dir(m, m->root, dir, sizeof dir);
        if (r < 0)
                return r;
        int repaired = 0;
        if (!m->delegated) {
                if (!v2_subtree_enabled(m->mount)) {
                        r = cg_write_noted(m->mount, "cgroup.subtree_control", V2_CONTROLLERS, msg, size);
                        if (r < 0)
                                return r;
                        cg_note(note, sizeof note, "controllers enabled again in %s", m->mount);
                        repaired = 1;
                }
                r = cg_ensure_dir(dir, msg, size);
                if (r < 0)
                        return r;
                if (r > 0)
                        cg_note(note, sizeof note, "recreated %s", dir);
                repaired |= r;
        }
        if (!v2_subtree_enabled(dir)) {
                r = cg_write_noted(dir, "cgroup.subtree_control", V2_CONTROLLERS, msg, size);
                if (r < 0)
                        return r;
                cg_note(note, sizeof note, "controllers enabled again in %s", dir);
                repaired = 1;
        }
        cg_msg(msg, size, "%s", note);
        return repaired;
}

static void v2_fini(struct cgroup_manager *m) {
        char dir[PATH_MAX];
        /* The delegated cgroup is systemd's to remove; our own root only when empty. */
        if (!m->delegated && v2_dir(m, m->root, dir, sizeof dir) >= 0)
                (void) rmdir(dir);
}

static int v2_write_limits(struct cgroup_manager *m, const char *cgpath, const struct slice_limits *lim) {
        char buf[4096], dir[PATH_MAX];
        int r = v2_dir(m, cgpath, dir, sizeof dir);
        if (r < 0)
                return r;
        if (cpulist_count(&lim->cpus)) {
                r = cpulist_format(&lim->cpus, buf, sizeof buf);
                if (r >= 0)
                        r = v2_write(m, cgpath, "cpuset.cpus", buf);
                if (r < 0)
                        return r;
        }
        if (lim->has_mems) {
                r = cpulist_format(&lim->mems, buf, sizeof buf);
                if (r >= 0)
                        r = v2_write(m, cgpath, "cpuset.mems", buf);
                if (r < 0)
                        return r;
        }
        uint64_t period = lim->cpu_period_us ? lim->cpu_period_us : SLICE_CPU_PERIOD_DEFAULT_US;
        if (lim->cpu_quota_us)
                snprintf(buf, sizeof buf, "%llu %llu", (unsigned long long) lim->cpu_quota_us,
                         (unsigned long long) period);
        else
                snprintf(buf, sizeof buf, "max %llu", (unsigned long long) period);
        r = v2_write(m, cgpath, "cpu.max", buf);
        if (r < 0)
                return r;
        if (lim->cpu_burst_us && cg_file_exists(dir, "cpu.max.burst")) {
                snprintf(buf, sizeof buf, "%llu", (unsigned long long) lim->cpu_burst_us);
                r = v2_write(m, cgpath, "cpu.max.burst", buf);
                if (r < 0)
                        return r;
        }
        if (lim->memory_max) {
                snprintf(buf, sizeof buf, "%llu", (unsigned long long) lim->memory_max);
                r = v2_write(m, cgpath, "memory.max", buf);
                /* no swap file without swap accounting: nothing to turn off then */
                if (r >= 0 && cg_file_exists(dir, "memory.swap.max"))
                        r = v2_write(m, cgpath, "memory.swap.max", "0");
                if (r < 0)
                        return r;
        }
        if (lim->pids_max) {
                snprintf(buf, sizeof buf, "%llu", (unsigned long long) lim->pids_max);
                r = v2_write(m, cgpath, "pids.max", buf);
        }
        return r;
}

static int v2_create(struct cgroup_manager *m, const char *cgpath, const struct slice_limits *lim, bool inner) {
        char dir[PATH_MAX];
        if (!v2_owned(m, cgpath))
                return -EPERM;
        int r = v2_dir(m, cgpath, dir, sizeof dir);
        if (r < 0)
                return r;
        if (mkdir(dir, 0755) < 0)
                return negative_errno();
        if (inner)
                return v2_write(m, cgpath, "cgroup.subtree_control", V2_CONTROLLERS);
        return v2_write_limits(m, cgpath, lim);
}

/* cgroup.events says "populated 0" once no process is left in the subtree; the kernel flags
 * the file with POLLPRI whenever that changes. */
static int v2_wait_empty(const char *dir, uint64_t timeout_usec) {
        char p[PATH_MAX], buf[256];
        int r = cg_path(p, sizeof p, "%s/cgroup.events", dir);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        uint64_t deadline = cg_now_usec() + timeout_usec;
        for (;;) {
                ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
                if (k < 0)
                        return negative_errno();
                buf[k] = '\0';
                uint64_t populated;
                r = cg_parse_keyed(buf, "populated", &populated);
                if (r < 0)
                        return r;
                if (populated == 0)
                        return 0;
                uint64_t now = cg_now_usec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                struct pollfd pfd = { .fd = fd, .events = POLLPRI };
                if (poll(&pfd, 1, (int) MIN((deadline - now + 999) / 1000, (uint64_t) INT_MAX)) < 0 && errno != EINTR)
                        return negative_errno();
        }
}

static int v2_kill(struct cgroup_manager *m, const char *cgpath) {
        char dirs[1][PATH_MAX];
        int r = v2_dir(m, cgpath, dirs[0], sizeof dirs[0]);
        if (r < 0)
                return r;
        if (access(dirs[0], F_OK) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (cg_file_exists(dirs[0], "cgroup.kill")) {
                r = v2_write(m, cgpath, "cgroup.kill", "1");
                if (r < 0)
                        return r;
                return v2_wait_empty(dirs[0], CG_KILL_TIMEOUT_USEC);
        }
        /* kernels before 5.14: signal every process until the subtree stays empty */
        return cg_kill_dirs(dirs, 1, NULL, NULL, CG_KILL_TIMEOUT_USEC);
}

static int v2_remove(struct cgroup_manager *m, const char *cgpath) {
        if (!v2_owned(m, cgpath))
                return -EPERM;
        int r = v2_kill(m, cgpath);
        char dir[PATH_MAX];
        int k = v2_dir(m, cgpath, dir, sizeof dir);
        if (k >= 0)
                k = cg_rmdir_tree(dir);
        return r < 0 ? r : k;
}

static int v2_open_fd(struct cgroup_manager *m, const char *cgpath) {
        char dir[PATH_MAX];
        int r = v2_dir(m, cgpath, dir, sizeof dir);
        if (r < 0)
                return r;
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

static int v2_read_stats(const struct cgroup_manager *m, const char *cgpath, struct slice_stats *ret) {
        char dir[PATH_MAX], buf[1024];
        struct slice_stats s = { 0 };
        int r = v2_dir(m, cgpath, dir, sizeof dir);
        if (r >= 0)
                r = cg_read_small(dir, "cpu.stat", buf, sizeof buf);
        if (r < 0)
                return r;
        uint64_t usec;
        if (cg_parse_keyed(buf, "usage_usec", &usec) >= 0) {
                s.has_cpu_usage = true;
                s.cpu_usage_ns = usec * 1000;
        }
        if (cg_parse_keyed(buf, "nr_periods", &s.nr_periods) >= 0 &&
            cg_parse_keyed(buf, "nr_throttled", &s.nr_throttled) >= 0 &&
            cg_parse_keyed(buf, "throttled_usec", &usec) >= 0) {
                s.has_throttling = true;
                s.throttled_ns = usec * 1000;
        }
        s.has_memory_current = cg_read_u64(dir, "memory.current", &s.memory_current_bytes) >= 0;
        s.has_memory_peak = cg_read_u64(dir, "memory.peak", &s.memory_peak_bytes) >= 0;
        if (cg_read_small(dir, "memory.events", buf, sizeof buf) >= 0)
                s.has_oom_kills = cg_parse_keyed(buf, "oom_kill", &s.oom_kills) >= 0;
        s.has_swap = cg_read_u64(dir, "memory.swap.current", &s.swap_bytes) >= 0;
        s.has_swap_peak = cg_read_u64(dir, "memory.swap.peak", &s.swap_peak_bytes) >= 0;
        cg_read_psi(dir, "cpu.pressure", &s.cpu_some, &s.cpu_full);
        cg_read_psi(dir, "memory.pressure", &s.memory_some, &s.memory_full);
        cg_read_psi(dir, "io.pressure", &s.io_some, &s.io_full);
        *ret = s;
        return 0;
}

/* v2 keeps no per-CPU usage: the total and the cpuset it ran on. */
static int v2_read_cpu_usage(const struct cgroup_manager *m, const char *cgpath, struct slice_cpu_usage *ret) {
        char dir[PATH_MAX], buf[1024];
        struct cpulist cpus;
        uint64_t usec;
        int r = v2_dir(m, cgpath, dir, sizeof dir);
        if (r < 0 || (r = cg_read_small(dir, "cpuset.cpus.effective", buf, sizeof buf)) < 0)
                return r;
        buf[strcspn(buf, "\n")] = '\0';
        if (cpulist_parse(buf, &cpus) < 0)
                return -EBADMSG;
        if ((r = cg_read_small(dir, "cpu.stat", buf, sizeof buf)) < 0 || (r = cg_parse_keyed(buf, "usage_usec", &usec)) < 0)
                return r;
        ret->cpus = cpus;
        ret->total_ns = usec * 1000;
        ret->per_cpu = false;
        return 0;
}

static size_t v2_dirs(const struct cgroup_manager *m, const char *cgpath, char (*buf)[PATH_MAX], size_t max) {
        return max > 0 && v2_dir(m, cgpath, buf[0], PATH_MAX) >= 0 ? 1 : 0;
}

const struct cg_driver cg_driver_v2 = {
        .init = v2_init,
        .fini = v2_fini,
        .create = v2_create,
        .kill = v2_kill,
        .remove = v2_remove,
        .open_fd = v2_open_fd,
        .attach = NULL,
        .read_stats = v2_read_stats,
        .read_cpu_usage = v2_read_cpu_usage,
        .dirs = v2_dirs,
        .repair = v2_repair,
};
