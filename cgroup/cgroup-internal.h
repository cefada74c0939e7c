/* cgroup-internal.h: what the cgroup drivers share behind daemon/cgroup.h: the manager's state,
 * the driver operations, and helpers (paths, small reads, killing, stats parsers). Not for use
 * outside daemon/cgroup-*.c and their tests. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"

#define CG_RUN_ID_MAX 64
#define CG_KILL_TIMEOUT_USEC (10 * UINT64_C(1000000))
#define CG_V1_MAX_HIER 8

/* One mounted v1 hierarchy; co-mounted controllers ("cpu,cpuacct") share one entry. */
struct cg_hier {
        char controllers[64]; /* libcgroup controller names joined with ',' */
        char mount[PATH_MAX];
};

struct cgroup_manager;

/* Driver operations. cgpath is a cgroup path as /proc/<pid>/cgroup spells it ("/slicelab/run-x"). */
struct cg_driver {
        int (*init)(struct cgroup_manager *m, const char *root_name);
        void (*fini)(struct cgroup_manager *m);
        /* Make one group; inner groups (the run) get lim->cpus/mems only, as the parent of slices.
         * -EEXIST if it exists. Does not clean up: callers remove the tree on failure. */
        int (*create)(struct cgroup_manager *m, const char *cgpath, const struct slice_limits *lim,
                      bool inner);
        /* Kill everything in the subtree and wait until it is empty. */
        int (*kill)(struct cgroup_manager *m, const char *cgpath);
        /* kill, then rmdir the subtree bottom-up in every hierarchy; 0 if nothing was there. */
        int (*remove)(struct cgroup_manager *m, const char *cgpath);
        /* v2: an O_DIRECTORY fd for CLONE_INTO_CGROUP; v1: NULL. */
        int (*open_fd)(struct cgroup_manager *m, const char *cgpath);
        /* v1: move a (single-threaded, just forked) process into the group; v2: NULL. */
        int (*attach)(struct cgroup_manager *m, const char *cgpath, pid_t pid);
        int (*read_stats)(const struct cgroup_manager *m, const char *cgpath, struct slice_stats *ret);
        int (*read_cpu_usage)(const struct cgroup_manager *m, const char *cgpath, struct slice_cpu_usage *ret);
        /* Directories of cgpath, one per hierarchy (v2: one). */
        size_t (*dirs)(const struct cgroup_manager *m, const char *cgpath, char (*buf)[PATH_MAX],
                       size_t max);
        /* Check the root and remake what is missing (see cgroup_manager_repair()). */
        int (*repair)(struct cgroup_manager *m, char *msg, size_t size);
};

struct cgroup_manager {
        struct cgroup_mode mode;
        const struct cg_driver *driver;
        char root[PATH_MAX];   /* cgroup path of the root, "/slicelab" */
        bool delegated;
        bool root_created;     /* we made the root (so we may remove it when empty) */
        /* v2 */
        char mount[PATH_MAX];  /* "/sys/fs/cgroup" */
        /* v1 */
        struct cg_hier hier[CG_V1_MAX_HIER];
        size_t n_hier;
        bool has_pids, has_cfs_burst, has_memsw;
        struct cpulist root_cpus, root_mems;
};

struct cgroup_run {
        struct cgroup_manager *manager;
        char id[CG_RUN_ID_MAX + 1];
        char path[PATH_MAX];                   /* "<root>/run-<id>" */
        char slice[_SLICE_KIND_MAX][PATH_MAX]; /* "<root>/run-<id>/sut" ... */
};

extern const struct cg_driver cg_driver_v1;
extern const struct cg_driver cg_driver_v2;

/* cgroup-util.c */
bool cg_valid_name(const char *s, size_t max, bool allow_dot);
/* snprintf that fails with -ENAMETOOLONG instead of truncating. */
int cg_path(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
/* Read a small <dir>/<file> into buf (NUL-terminated); -EFBIG if it does not fit. No
 * allocation. */
int cg_read_small(const char *dir, const char *file, char *buf, size_t size);
int cg_read_u64(const char *dir, const char *file, uint64_t *ret);
/* Write a value to <dir>/<file>. */
int cg_write(const char *dir, const char *file, const char *value);
bool cg_file_exists(const char *dir, const char *file);
/* Every pid in the cgroup.procs of dir (0 if dir is gone). */
int cg_for_each_pid_here(const char *dir, int (*fn)(pid_t pid, void *userdata), void *userdata);
/* Every pid in the cgroup.procs of dir and its descendants. */
int cg_for_each_pid(const char *dir, int (*fn)(pid_t pid, void *userdata), void *userdata);
/* SIGKILL every process in the subtrees of dirs (pidfd based, so nothing but the listed
 * processes can be hit), wait for them to exit, repeat until the subtrees stay empty. freeze
 * (may be NULL) is called with true before the pids are read and false after they were
 * signalled, so nothing can fork or exit in between. */
int cg_kill_dirs(char (*dirs)[PATH_MAX], size_t n, int (*freeze)(const char *dir, bool on),
                 const char *freeze_dir, uint64_t timeout_usec);
/* rmdir dir and its subdirectories bottom-up; EBUSY is retried briefly (exiting tasks). 0 when
 * it did not exist. */
int cg_rmdir_tree(const char *dir);
uint64_t cg_now_usec(void);
/* Append "; "-separated text to msg (truncated quietly: it is for people). */
void cg_note(char *msg, size_t size, const char *fmt, ...) _printf_(3, 4);
/* Replace msg with the formatted text (truncated quietly). */
void cg_msg(char *msg, size_t size, const char *fmt, ...) _printf_(3, 4);
/* mkdir dir unless it exists; 1 when made, 0 when it was there, else -errno with msg set to
 * the directory and the error. */
int cg_ensure_dir(const char *dir, char *msg, size_t size);
/* cg_write() that on failure sets msg to the file that refused, the value and the error. */
int cg_write_noted(const char *dir, const char *file, const char *value, char *msg, size_t size);

/* cgroup-stats.c: parsers for cgroupfs text (pure; unit-tested). */
/* Value of "key N" in a "key value" per line text: 0, or -ENOENT if the key is not there. */
int cg_parse_keyed(const char *text, const char *key, uint64_t *ret);
/* "some avg10=.. avg60=.. avg300=.. total=..\nfull ..." */
int cg_parse_psi(const char *text, struct psi_line *some, struct psi_line *full);
/* cpuacct.usage_percpu (v1): ns per possible CPU, space separated, in CPU order, into ns
 * (indexed by CPU, CPULIST_MAX entries); -EBADMSG for anything else or more CPUs than that. */
int cg_parse_percpu(const char *text, uint64_t *ns, size_t *ret_n);
/* v1 swap in use: memsw - usage where memsw is accounted (has_memsw), else memory.stat's
 * "swap" line (memory_stat may be NULL); -ENOENT when neither is there. */
int cg_v1_swap_bytes(bool has_memsw, uint64_t memsw_usage, uint64_t usage, const char *memory_stat, uint64_t *ret);
/* Read PSI of <dir>/<file> into some/full; absent file leaves present=false. */
void cg_read_psi(const char *dir, const char *file, struct psi_line *some, struct psi_line *full);
