/* cgroup-v1.c: the cgroup v1 driver (also hybrid hosts). Groups are created and processes
 * attached through libcgroup; killing (freezer + SIGKILL), removal and counters use the
 * hierarchies' files directly, because libcgroup's delete moves live tasks to the parent instead
 * of failing, which would hide a survivor in the root. */
#include <libcgroup.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup/cgroup-internal.h"
#include "basic/log.h"

static void v1_cgroup_free(struct cgroup *cg) {
        cgroup_free(&cg);
}
DEFINE_POINTER_CLEANUP(struct cgroup, v1_cgroup_free)

/* libcgroup's ECG* codes carry the OS errno separately. */
static int v1_error(int code, const char *what, const char *cgpath) {
        if (code == 0)
                return 0;
        int e = cgroup_get_last_errno();
        log_debug("cgroup: libcgroup %s %s: %s (errno %d)", what, cgpath, cgroup_strerror(code), e);
        if (code == ECGROUPNOTMOUNTED || code == ECGROUPNOTEXIST)
                return -ENOENT;
        return e > 0 ? -e : -EIO;
}

static const struct {
        const char *name;
        bool required;
} v1_controllers[] = {
        { "cpu", true }, { "cpuacct", true }, { "cpuset", true },
        { "memory", true }, { "freezer", true }, { "pids", false },
};

static int v1_add_hier(struct cgroup_manager *m, const char *controller, const char *mount) {
        for (size_t i = 0; i < m->n_hier; i++)
                if (strcmp(m->hier[i].mount, mount) == 0) {
                        size_t len = strlen(m->hier[i].controllers);
                        return cg_path(m->hier[i].controllers + len, sizeof m->hier[i].controllers - len,
                                       ",%s", controller);
                }
        if (m->n_hier == CG_V1_MAX_HIER)
                return -E2BIG;
        struct cg_hier *h = &m->hier[m->n_hier];
        int r = cg_path(h->controllers, sizeof h->controllers, "%s", controller);
        if (r >= 0)
                r = cg_path(h->mount, sizeof h->mount, "%s", mount);
        if (r >= 0)
                m->n_hier++;
        return r;
}

/* Every controller we use, in one libcgroup group object; values are added by the caller. */
static int v1_new_group(const struct cgroup_manager *m, const char *cgpath, struct cgroup **ret) {
        struct cgroup *cg = cgroup_new_cgroup(cgpath[0] == '/' ? cgpath + 1 : cgpath);
        if (!cg)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(v1_controllers); i++) {
                if (strcmp(v1_controllers[i].name, "pids") == 0 && !m->has_pids)
                        continue;
                if (!cgroup_add_controller(cg, v1_controllers[i].name)) {
                        cgroup_free(&cg);
                        return -ENOMEM;
                }
        }
        *ret = cg;
        return 0;
}

static int v1_dir(const struct cgroup_manager *m, const char *controller, const char *cgpath,
                  char *buf, size_t size) {
        return cgroup_manager_dir(m, controller, cgpath, buf, size);
}

static int add_cpuset(const struct cgroup_manager *m, struct cgroup *cg, const struct cpulist *cpus,
                      const struct cpulist *mems) {
        char c[4096], n[4096];
        int r = cpulist_format(cpulist_count(cpus) ? cpus : &m->root_cpus, c, sizeof c);
        if (r >= 0)
                r = cpulist_format(mems, n, sizeof n);
        if (r < 0)
                return r;
        struct cgroup_controller *ctl = cgroup_get_controller(cg, "cpuset");
        /* mems before cpus does not matter to the kernel, but both before any task arrives */
        if (!ctl || cgroup_add_value_string(ctl, "cpuset.cpus", c) || cgroup_add_value_string(ctl, "cpuset.mems", n))
                return -ENOMEM;
        return 0;
}

static int add_limits(const struct cgroup_manager *m, struct cgroup *cg, const struct slice_limits *lim) {
        uint64_t period = lim->cpu_period_us ? lim->cpu_period_us : SLICE_CPU_PERIOD_DEFAULT_US;
        int64_t quota = lim->cpu_quota_us ? (int64_t) lim->cpu_quota_us : -1;
        struct cgroup_controller *cpu = cgroup_get_controller(cg, "cpu");
        /* period first: the kernel checks quota against the period in force */
        if (!cpu || cgroup_add_value_uint64(cpu, "cpu.cfs_period_us", period) ||
            cgroup_add_value_int64(cpu, "cpu.cfs_quota_us", quota))
                return -ENOMEM;
        if (lim->cpu_burst_us && m->has_cfs_burst && cgroup_add_value_uint64(cpu, "cpu.cfs_burst_us", lim->cpu_burst_us))
                return -ENOMEM;
        if (lim->memory_max) {
                struct cgroup_controller *mem = cgroup_get_controller(cg, "memory");
                /* limit before memsw: the kernel wants memsw >= limit; equal means no swap */
                if (!mem || cgroup_add_value_uint64(mem, "memory.limit_in_bytes", lim->memory_max))
                        return -ENOMEM;
                if (m->has_memsw && cgroup_add_value_uint64(mem, "memory.memsw.limit_in_bytes", lim->memory_max))
                        return -ENOMEM;
        }
        if (lim->pids_max) {
                if (!m->has_pids)
                        return -EOPNOTSUPP;
                struct cgroup_controller *pids = cgroup_get_controller(cg, "pids");
                if (!pids || cgroup_add_value_uint64(pids, "pids.max", lim->pids_max))
                        return -ENOMEM;
        }
        return 0;
}

static int v1_create_with(struct cgroup_manager *m, const char *cgpath, const struct slice_limits *lim,
                          bool inner, const struct cpulist *mems) {
        _cleanup_(v1_cgroup_freep) struct cgroup *cg = NULL;
        int r = v1_new_group(m, cgpath, &cg);
        if (r >= 0)
                r = add_cpuset(m, cg, &lim->cpus, mems);
        if (r >= 0 && !inner)
                r = add_limits(m, cg, lim);
        if (r < 0)
                return r;
        return v1_error(cgroup_create_cgroup(cg, 1), "create", cgpath);
}

static int v1_create(struct cgroup_manager *m, const char *cgpath, const struct slice_limits *lim,
                     bool inner) {
        for (size_t i = 0; i < m->n_hier; i++) {
                char dir[PATH_MAX];
                int r = cg_path(dir, sizeof dir, "%s%s", m->hier[i].mount, cgpath);
                if (r < 0)
                        return r;
                if (access(dir, F_OK) == 0)
                        return -EEXIST;
        }
        return v1_create_with(m, cgpath, lim, inner, lim->has_mems ? &lim->mems : &m->root_mems);
}

static size_t v1_dirs(const struct cgroup_manager *m, const char *cgpath, char (*buf)[PATH_MAX], size_t max) {
        size_t n = 0;
        for (size_t i = 0; i < m->n_hier && n < max; i++)
                if (cg_path(buf[n], PATH_MAX, "%s%s", m->hier[i].mount, cgpath) >= 0)
                        n++;
        return n;
}

/* The v1 freezer reports FREEZING until every task has stopped and sends no event when it gets
 * there, so poll with a short backoff. A task stuck in the kernel can keep it FREEZING; after a
 * bound we go on: SIGKILL still reaches whatever is not frozen, and the caller's loop repeats. */
static int v1_freeze(const char *dir, bool on) {
        int r = cg_write(dir, "freezer.state", on ? "FROZEN" : "THAWED");
        if (r == -ENOENT)
                return 0; /* a half-made group without a freezer directory */
        if (r < 0 || !on)
                return r;
        char state[32];
        long delay_ns = 50000;
        for (uint64_t deadline = cg_now_usec() + 2000000; cg_now_usec() < deadline;) {
                r = cg_read_small(dir, "freezer.state", state, sizeof state);
                if (r < 0)
                        return r;
                if (strncmp(state, "FROZEN", 6) == 0)
                        return 0;
                nanosleep(&(struct timespec){ .tv_nsec = delay_ns }, NULL);
                delay_ns = MIN(delay_ns * 2, 20000000L);
        }
        log_warning("cgroup: %s did not freeze within 2 s, killing anyway", dir);
        return 0;
}

static int v1_kill(struct cgroup_manager *m, const char *cgpath) {
        char dirs[CG_V1_MAX_HIER][PATH_MAX], freezer[PATH_MAX];
        size_t n = v1_dirs(m, cgpath, dirs, ELEMENTSOF(dirs));
        int r = v1_dir(m, "freezer", cgpath, freezer, sizeof freezer);
        if (r < 0)
                return r;
        return cg_kill_dirs(dirs, n, v1_freeze, freezer, CG_KILL_TIMEOUT_USEC);
}

static int v1_remove(struct cgroup_manager *m, const char *cgpath) {
        int r = v1_kill(m, cgpath);
        char dirs[CG_V1_MAX_HIER][PATH_MAX];
        size_t n = v1_dirs(m, cgpath, dirs, ELEMENTSOF(dirs));
        for (size_t i = 0; i < n; i++) {
                int k = cg_rmdir_tree(dirs[i]);
                if (k < 0 && r >= 0)
                        r = k;
        }
        return r;
}

static int v1_attach(struct cgroup_manager *m, const char *cgpath, pid_t pid) {
        _cleanup_(v1_cgroup_freep) struct cgroup *cg = NULL;
        int r = v1_new_group(m, cgpath, &cg);
        if (r < 0)
                return r;
        return v1_error(cgroup_attach_task_pid(cg, pid), "attach", cgpath);
}

static int v1_read_swap(const struct cgroup_manager *m, const char *dir, uint64_t *ret);

static int v1_read_stats(const struct cgroup_manager *m, const char *cgpath, struct slice_stats *ret) {
        char dir[PATH_MAX], buf[1024];
        struct slice_stats s = { 0 };

        int r = v1_dir(m, "cpu", cgpath, dir, sizeof dir);
        if (r >= 0)
                r = cg_read_small(dir, "cpu.stat", buf, sizeof buf);
        if (r < 0)
                return r;
        s.has_throttling = cg_parse_keyed(buf, "nr_periods", &s.nr_periods) >= 0 &&
                           cg_parse_keyed(buf, "nr_throttled", &s.nr_throttled) >= 0 &&
                           cg_parse_keyed(buf, "throttled_time", &s.throttled_ns) >= 0;

        if (v1_dir(m, "cpuacct", cgpath, dir, sizeof dir) >= 0)
                s.has_cpu_usage = cg_read_u64(dir, "cpuacct.usage", &s.cpu_usage_ns) >= 0;

        if (v1_dir(m, "memory", cgpath, dir, sizeof dir) >= 0) {
                s.has_memory_current = cg_read_u64(dir, "memory.usage_in_bytes", &s.memory_current_bytes) >= 0;
                s.has_memory_peak = cg_read_u64(dir, "memory.max_usage_in_bytes", &s.memory_peak_bytes) >= 0;
                if (cg_read_small(dir, "memory.oom_control", buf, sizeof buf) >= 0)
                        s.has_oom_kills = cg_parse_keyed(buf, "oom_kill", &s.oom_kills) >= 0;
                s.has_swap = v1_read_swap(m, dir, &s.swap_bytes) >= 0;
        }
        *ret = s;
        return 0;
}

/* Swap in use by the group: memsw where the kernel accounts it (swapaccount), else memory.stat. */
static int v1_read_swap(const struct cgroup_manager *m, const char *dir, uint64_t *ret) {
        uint64_t memsw = 0, usage = 0;
        bool memsw_ok = m->has_memsw && cg_read_u64(dir, "memory.memsw.usage_in_bytes", &memsw) >= 0 &&
                        cg_read_u64(dir, "memory.usage_in_bytes", &usage) >= 0;
        char stat[4096];
        bool stat_ok = !memsw_ok && cg_read_small(dir, "memory.stat", stat, sizeof stat) >= 0;
        return cg_v1_swap_bytes(memsw_ok, memsw, usage, stat_ok ? stat : NULL, ret);
}

static int v1_read_cpu_usage(const struct cgroup_manager *m, const char *cgpath, struct slice_cpu_usage *ret) {
        char dir[PATH_MAX], buf[1024];
        size_t n;
        int r = v1_dir(m, "cpuset", cgpath, dir, sizeof dir);
        if (r < 0)
                return r;
        if (cg_read_small(dir, "cpuset.effective_cpus", buf, sizeof buf) < 0 &&
            (r = cg_read_small(dir, "cpuset.cpus", buf, sizeof buf)) < 0)
                return r;
        buf[strcspn(buf, "\n")] = '\0';
        _cleanup_free_ struct slice_cpu_usage *u = calloc(1, sizeof *u);
        /* one number of up to 20 digits and a space per CPU */
        _cleanup_free_ char *percpu = malloc(CPULIST_MAX * 21 + 2);
        if (!u || !percpu)
                return -ENOMEM;
        if (cpulist_parse(buf, &u->cpus) < 0)
                return -EBADMSG;
        if ((r = v1_dir(m, "cpuacct", cgpath, dir, sizeof dir)) < 0 || (r = cg_read_u64(dir, "cpuacct.usage", &u->total_ns)) < 0 ||
            (r = cg_read_small(dir, "cpuacct.usage_percpu", percpu, CPULIST_MAX * 21 + 2)) < 0 ||
            (r = cg_parse_percpu(percpu, u->percpu_ns, &n)) < 0)
                return r;
        u->per_cpu = true;
        *ret = *u;
        return 0;
}

static int v1_read_cpuset_root(struct cgroup_manager *m) {
        char dir[PATH_MAX], p[PATH_MAX];
        int r = v1_dir(m, "cpuset", "", dir, sizeof dir);
        if (r >= 0)
                r = cg_path(p, sizeof p, "%s/cpuset.effective_cpus", dir);
        if (r >= 0)
                r = cpulist_read_file(p, &m->root_cpus);
        if (r >= 0)
                r = cg_path(p, sizeof p, "%s/cpuset.effective_mems", dir);
        if (r >= 0)
                r = cpulist_read_file(p, &m->root_mems);
        return r;
}

static int v1_init(struct cgroup_manager *m, const char *root_name) {
        int r = v1_error(cgroup_init(), "init", "");
        if (r < 0)
                return log_error_errno(r, "cgroup: libcgroup initialisation failed");
        for (size_t i = 0; i < ELEMENTSOF(v1_controllers); i++) {
                _cleanup_free_ char *mount = NULL;
                if (cgroup_get_subsys_mount_point(v1_controllers[i].name, &mount) != 0 || !mount) {
                        if (!v1_controllers[i].required)
                                continue;
                        log_error("cgroup: v1 controller %s is not mounted", v1_controllers[i].name);
                        return -EOPNOTSUPP;
                }
                r = v1_add_hier(m, v1_controllers[i].name, mount);
                if (r < 0)
                        return r;
                if (strcmp(v1_controllers[i].name, "pids") == 0)
                        m->has_pids = true;
        }
        char dir[PATH_MAX];
        r = v1_dir(m, "cpu", "", dir, sizeof dir);
        if (r < 0)
                return r;
        m->has_cfs_burst = cg_file_exists(dir, "cpu.cfs_burst_us");
        r = v1_dir(m, "memory", "", dir, sizeof dir);
        if (r < 0)
                return r;
        m->has_memsw = cg_file_exists(dir, "memory.memsw.limit_in_bytes");
        r = v1_read_cpuset_root(m);
        if (r < 0)
                return log_error_errno(r, "cgroup: reading the top cpuset");

        r = cg_path(m->root, sizeof m->root, "/%s", root_name);
        if (r < 0)
                return r;
        /* The root must carry cpus and mems before run groups below it can have any. An existing
         * root (a previous daemon's) is reused as it is. */
        struct slice_limits all = { .cpus = m->root_cpus };
        r = v1_create_with(m, m->root, &all, true, &m->root_mems);
        if (r < 0)
                return log_error_errno(r, "cgroup: creating the root %s", m->root);
        return 0;
}

/* An empty cpuset file (a root remade by a bare mkdir) takes the parent's value; mems first,
 * the kernel wants both before cpus can be used. */
static int v1_repair_cpuset(struct cgroup_manager *m, const char *dir, char *msg, size_t size) {
        static const char *const files[] = { "cpuset.mems", "cpuset.cpus" };
        char parent[PATH_MAX];
        int r = v1_dir(m, "cpuset", "", parent, sizeof parent);
        if (r < 0)
                return r;
        int repaired = 0;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char have[4096], want[4096];
                r = cg_read_small(dir, files[i], have, sizeof have);
                if (r < 0) {
                        cg_msg(msg, size, "reading %s/%s: %s", dir, files[i], strerror(-r));
                        return r;
                }
                if (have[strspn(have, " \n")] != '\0')
                        continue;
                r = cg_read_small(parent, files[i], want, sizeof want);
                if (r < 0) {
                        cg_msg(msg, size, "reading %s/%s: %s", parent, files[i], strerror(-r));
                        return r;
                }
                want[strcspn(want, "\n")] = '\0';
                r = cg_write_noted(dir, files[i], want, msg, size);
                if (r < 0)
                        return r;
                repaired = 1;
        }
        if (repaired)
                cg_note(msg, size, "cpuset.cpus and cpuset.mems of %s copied from %s", dir, parent);
        return repaired;
}

static int v1_repair(struct cgroup_manager *m, char *msg, size_t size) {
        /* The top's CPUs may have changed too (hotplug): runs take the whole root from these. */
        int r = v1_read_cpuset_root(m);
        if (r < 0) {
                cg_msg(msg, size, "reading the top cpuset's effective_cpus/effective_mems: %s", strerror(-r));
                return r;
        }
        int repaired = 0;
        char dirs[CG_V1_MAX_HIER][PATH_MAX], note[1024] = "";
        size_t n = v1_dirs(m, m->root, dirs, ELEMENTSOF(dirs));
        for (size_t i = 0; i < n; i++) {
                r = cg_ensure_dir(dirs[i], msg, size);
                if (r < 0)
                        return r;
                if (r > 0)
                        cg_note(note, sizeof note, "recreated %s", dirs[i]);
                repaired |= r;
        }
        char cpuset[PATH_MAX];
        r = v1_dir(m, "cpuset", m->root, cpuset, sizeof cpuset);
        if (r >= 0)
                r = v1_repair_cpuset(m, cpuset, note, sizeof note);
        if (r < 0) {
                cg_msg(msg, size, "%s", note);
                return r;
        }
        cg_msg(msg, size, "%s", note);
        return repaired | r;
}

static void v1_fini(struct cgroup_manager *m) {
        char dirs[CG_V1_MAX_HIER][PATH_MAX];
        size_t n = v1_dirs(m, m->root, dirs, ELEMENTSOF(dirs));
        /* Only an empty root goes; runs still inside are found by the next reconcile. */
        for (size_t i = 0; i < n; i++)
                (void) rmdir(dirs[i]);
}

const struct cg_driver cg_driver_v1 = {
        .init = v1_init,
        .fini = v1_fini,
        .create = v1_create,
        .kill = v1_kill,
        .remove = v1_remove,
        .open_fd = NULL,
        .attach = v1_attach,
        .read_stats = v1_read_stats,
        .read_cpu_usage = v1_read_cpu_usage,
        .dirs = v1_dirs,
        .repair = v1_repair,
};
