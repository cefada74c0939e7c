/* cgroup.h: the cgroup slices of a run. One interface, two drivers: cgroup v1 through libcgroup
 * (also used on hybrid hosts, whose controllers are all on v1) and cgroup v2 by plain cgroupfs
 * writes inside the daemon's own subtree. Per run there are two slices,
 * <root>/run-<id>/sut and <root>/run-<id>/load, each with cpu, cpuset, memory and pids limits.
 *
 * Threading: a manager and its runs belong to one thread (the daemon's main loop). Every call
 * below may block briefly on cgroupfs; slice_kill() and cgroup_run_destroy() wait (bounded) for
 * the killed processes to leave. Kernel >= 5.7 (clone3 with CLONE_PIDFD / CLONE_INTO_CGROUP). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/cpulist.h"
#include "basic/macro.h"

/* ---- mode detection -------------------------------------------------------------------- */

enum cgroup_version {
        CGROUP_V1,     /* legacy: v1 controllers only */
        CGROUP_HYBRID, /* v1 controllers plus an (empty) cgroup2 at /sys/fs/cgroup/unified */
        CGROUP_V2,     /* unified */
};

struct cgroup_mode {
        enum cgroup_version version;
        const char *name;   /* "v1", "hybrid", "v2" (static strings) */
        const char *driver; /* "v1-libcgroup" or "v2-cgroupfs" (static strings) */
        const char *mount;  /* "/sys/fs/cgroup" */
};

/* statfs() on /sys/fs/cgroup (and /sys/fs/cgroup/unified). -ENOMEDIUM when no cgroup fs is
 * mounted there at all. *ret untouched on failure. */
int cgroup_detect(struct cgroup_mode *ret);

/* ---- limits ---------------------------------------------------------------------------- */

enum slice_kind {
        SLICE_SUT,
        SLICE_LOAD,
        _SLICE_KIND_MAX,
};
const char *slice_kind_to_string(enum slice_kind k); /* "sut", "load"; NULL if out of range */

#define SLICE_CPU_PERIOD_DEFAULT_US UINT64_C(100000)

struct slice_limits {
        struct cpulist cpus;    /* empty = every CPU of the root */
        struct cpulist mems;    /* used only when has_mems */
        bool has_mems;          /* false = every memory node of the root */
        uint64_t cpu_quota_us;  /* CPU time per period (2.5 CPUs = 2.5 x period); 0 = unlimited */
        uint64_t cpu_period_us; /* 0 = SLICE_CPU_PERIOD_DEFAULT_US */
        uint64_t cpu_burst_us;  /* 0 = none; ignored where the kernel has no burst */
        uint64_t memory_max;    /* bytes, 0 = unlimited; swap is turned off when set */
        uint64_t pids_max;      /* 0 = unlimited */
};

/* ---- the manager: one per daemon ------------------------------------------------------- */

struct cgroup_manager;

/* Detects the mode and prepares the root the runs live under:
 *  - v1/hybrid: "<mount of each controller>/<root_name>" (cpu, cpuacct, cpuset, memory, pids,
 *    freezer), created through libcgroup with the cpuset of the hierarchy's top copied in.
 *  - v2 under systemd with delegation (INVOCATION_ID set or the cgroup carries systemd's
 *    trusted.delegate xattr, and it is not the root): the daemon's own cgroup from
 *    /proc/self/cgroup is the root; every process in it is moved into "<own>/supervisor" first,
 *    then cpu/cpuset/memory/pids are enabled in "<own>/cgroup.subtree_control". root_name is
 *    not used: the unit is the namespace. Nothing outside <own> is ever written.
 *  - v2 without systemd: "/sys/fs/cgroup/<root_name>", controllers enabled from the top down.
 * root_name: 1..64 of [A-Za-z0-9_.-], not "." or "..". Returns -EINVAL for a bad name,
 * -EOPNOTSUPP when a needed controller is missing, other -errno from cgroupfs/libcgroup. */
int cgroup_manager_new(const char *root_name, struct cgroup_manager **ret);
/* Frees the manager; the root is removed when it is empty (never the delegated own cgroup). */
void cgroup_manager_free(struct cgroup_manager *m);
DEFINE_POINTER_CLEANUP(struct cgroup_manager, cgroup_manager_free)

/* Before each run: is the root still there, in every hierarchy, with cpus and mems on v1 and
 * its controllers enabled on v2? Someone may have removed it (another daemon's clean-up, a
 * person) since the start. What is missing is made again: on v1 the cpuset is copied from the
 * root's parent. Returns 0 when intact, 1 when repaired (msg says what was done), or -errno with
 * msg naming the cgroup directory and the file that refused. */
int cgroup_manager_repair(struct cgroup_manager *m, char *msg, size_t size);

const struct cgroup_mode *cgroup_manager_mode(const struct cgroup_manager *m);
/* The root as /proc/<pid>/cgroup names it, e.g. "/slicelab" or "/system.slice/slicelabd.service". */
const char *cgroup_manager_root(const struct cgroup_manager *m);
/* True when running in a systemd-delegated subtree (v2). */
bool cgroup_manager_delegated(const struct cgroup_manager *m);
/* Absolute directory of a cgroup path (as cgroup_manager_root() spells it) in the hierarchy of
 * controller ("cpu", "memory", ...; ignored on v2). Returns -ENOENT for an unknown controller,
 * -ENAMETOOLONG if it does not fit. For tests and diagnostics. */
int cgroup_manager_dir(const struct cgroup_manager *m, const char *controller, const char *cgpath,
                       char *buf, size_t size);

/* ---- runs and their slices ------------------------------------------------------------- */

struct cgroup_run;

/* run_id: 1..64 of [A-Za-z0-9_-]. Creates <root>/run-<id> (on v1 with cpuset.cpus/mems set to
 * the union of both slices first, so its children can be populated), then the sut and load
 * slices with their limits. On any failure everything made so far is removed again and a
 * negative errno returned (-EEXIST when the run group already exists). */
int cgroup_run_create(struct cgroup_manager *m, const char *run_id, const struct slice_limits *sut,
                      const struct slice_limits *load, struct cgroup_run **ret);
/* A load run for another host (issue 25): <root>/load-<id> with one slice, load (limits), the
 * same rules as a run's otherwise; destroyed, freed and spawned into (SLICE_LOAD) as a run. */
int cgroup_load_create(struct cgroup_manager *m, const char *load_id, const struct slice_limits *limits,
                       struct cgroup_run **ret);
/* Kills every process in both slices and removes sut, load and run-<id> in every hierarchy.
 * Idempotent; returns the first error but always tries every step. Does not free r. */
int cgroup_run_destroy(struct cgroup_run *r);
/* Frees the handle only; the cgroups stay (cgroup_reconcile() finds them at the next start). */
void cgroup_run_free(struct cgroup_run *r);
DEFINE_POINTER_CLEANUP(struct cgroup_run, cgroup_run_free)

const char *cgroup_run_id(const struct cgroup_run *r);
/* The slice's cgroup as /proc/<pid>/cgroup names it: "<root>/run-<id>/sut". */
const char *slice_cgroup_path(const struct cgroup_run *r, enum slice_kind kind);

struct spawn_params {
        char *const *argv; /* argv[0] without '/' is searched in envp's PATH (default
                            * /usr/local/bin:/usr/bin:/bin); never through a shell */
        char *const *envp; /* NULL = empty environment */
        const char *cwd;   /* NULL = the daemon's */
        int stdin_fd;      /* -1 = /dev/null; the same for stdout_fd and stderr_fd */
        int stdout_fd;
        int stderr_fd;
        bool set_user;     /* drop to uid/gid (supplementary groups cleared) before exec */
        uid_t uid;
        gid_t gid;
        int death_signal;  /* 0, or the signal the child gets when the spawning process dies
                            * (PR_SET_PDEATHSIG, set after the user drop, which would clear it);
                            * the kernel sends it when the spawning *thread* ends, so only the
                            * main thread may ask for it (-EINVAL otherwise) */
};

/* Starts a process that is in the slice before its first instruction: clone3(CLONE_INTO_CGROUP)
 * on v2; on v1 the child waits on a pipe until the parent has attached it to the slice in every
 * hierarchy. The child gets its own session, an empty signal mask, default signal dispositions,
 * only fds 0-2; with p->death_signal it gets that signal when the caller dies, even before it was
 * set (it checks its parent then). If exec fails, its errno comes back here synchronously
 * (-ENOENT, -EACCES, ...) and the child is already reaped. On success the caller owns
 * *ret_pidfd (CLOEXEC) and must reap the child (waitid(P_PIDFD, ...)). */
int slice_spawn(struct cgroup_run *r, enum slice_kind kind, const struct spawn_params *p,
                pid_t *ret_pid, int *ret_pidfd);

struct psi_line {
        bool present;
        double avg10, avg60, avg300; /* percent */
        uint64_t total_us;
};

struct slice_stats {
        bool has_cpu_usage;
        uint64_t cpu_usage_ns;  /* usage_usec (v2) or cpuacct.usage (v1) */
        bool has_throttling;
        uint64_t nr_periods;
        uint64_t nr_throttled;
        uint64_t throttled_ns;  /* throttled_usec (v2) or throttled_time (v1), in ns */
        bool has_memory_current;
        uint64_t memory_current_bytes;
        bool has_memory_peak;
        uint64_t memory_peak_bytes; /* memory.peak (v2, >= 5.19) or max_usage_in_bytes (v1) */
        bool has_oom_kills;
        uint64_t oom_kills;     /* memory.events oom_kill (v2) or memory.oom_control (v1) */
        bool has_swap;          /* false where swap is not accounted (v1 without memsw) */
        uint64_t swap_bytes;    /* memory.swap.current (v2); memsw.usage - usage, else memory.stat swap (v1) */
        bool has_swap_peak;
        uint64_t swap_peak_bytes; /* memory.swap.peak (v2, >= 6.5); v1 has none */
        struct psi_line cpu_some, cpu_full, memory_some, memory_full, io_some, io_full;
};

/* Reads the slice's counters; a figure the kernel does not offer has its has_ flag false. No
 * allocation. -ENOENT when the slice is gone. */
int slice_read_stats(const struct cgroup_run *r, enum slice_kind kind, struct slice_stats *ret);

/* The slice's CPU time by CPU, for telling its use of a CPU from other work there. v1 has it
 * per CPU (cpuacct.usage_percpu); v2 has only the total (cpu.stat usage_usec), so per_cpu is
 * false and a caller can only attribute it through the cpuset. */
struct slice_cpu_usage {
        struct cpulist cpus;            /* the slice's effective cpuset */
        uint64_t total_ns;
        bool per_cpu;
        uint64_t percpu_ns[CPULIST_MAX]; /* by CPU number, when per_cpu */
};
/* -ENOENT when the slice is gone, -EBADMSG for unreadable counters; *ret untouched on failure. */
int slice_read_cpu_usage(const struct cgroup_run *r, enum slice_kind kind, struct slice_cpu_usage *ret);

/* Kills every process in the slice (cgroup.kill on v2; freeze, SIGKILL, thaw on v1) and waits
 * until it is empty, at most 10 s (-ETIMEDOUT). Processes are not reaped: that stays with their
 * parent. */
int slice_kill(struct cgroup_run *r, enum slice_kind kind);

/* At daemon start: every run-<id> group under the root for which keep(id) is false is emptied
 * (processes killed) and removed in every hierarchy, each logged with its run id. Returns the
 * number of groups removed, or the first error after trying all of them. */
int cgroup_reconcile(struct cgroup_manager *m,
                     bool (*keep)(const char *run_id, void *userdata), void *userdata);
/* The same for load-<id> groups (cgroup_load_create()). */
int cgroup_reconcile_loads(struct cgroup_manager *m,
                           bool (*keep)(const char *load_id, void *userdata), void *userdata);
