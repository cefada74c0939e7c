/* profile.h: a run's CPU profile (definition profile.cpu). On the loop: `perf record` attached to
 * the SUT through the measure window, and `jcmd PID Compiler.perfmap` at its end, both spawned
 * into the run's load slice (its teardown kills whatever is left; never the SUT's CPUs or
 * memory). On collection's worker: the JVM's perf map copied into the run directory, `perf
 * script` folded into profile.folded (profile/profile-fold.h) and the counts for metrics.profile.
 *
 * Files of the run directory, each created O_EXCL|O_NOFOLLOW (the directory is the run user's):
 * perf.data (perf's pipe format on perf record's stdout), perf.log, perf.map, perf-script.log,
 * profile.folded. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "storage/run-profile.h"

struct cJSON;
struct cgroup_run;

#define PROFILE_FOLDED_MAX RUN_PROFILE_BYTES_MAX     /* bytes of profile.folded: what readers take */
#define PROFILE_PERF_STOP_US (5 * 1000000ULL)    /* perf's time to write its last buffers after SIGINT */
#define PROFILE_JCMD_WAIT_US (10 * 1000000ULL)   /* jcmd's to attach and have the perf map written */

struct child;

/* perf record -e cpu-clock -F hz -g -p sut -o - > dir/perf.data 2> dir/perf.log, spawned (the run
 * watches it when measure ends: SIGINT, and perf writes what it has and exits). */
int profile_record_start(struct cgroup_run *cg, const char *perf, const char *dir, pid_t sut, unsigned hz,
                         struct child *ret);
/* How perf or jcmd ended (daemon/child.h): 0 when it exited with code 0 (or by the SIGINT that
 * stopped it), -ETIMEDOUT when it outlived its time and was killed, -ECHILD when it failed. */
int profile_child_result(const struct child *c);

/* jcmd PID Compiler.perfmap as the run user (set_user), so that the JVM writes
 * /tmp/perf-PID.map; jcmd is looked up beside the `java` on the daemon's PATH. */
int profile_perfmap_start(struct cgroup_run *cg, pid_t sut, bool set_user, uid_t uid, gid_t gid,
                          struct child *ret);

/* Removes /tmp/perf-PID.map when it is a regular file of owner: what a run that ends before
 * collection read it leaves (collection removes it itself). */
void profile_perfmap_discard(pid_t sut, uid_t owner);

/* What collection needs. */
struct profile_input {
        const char *perf;               /* resolved path */
        const char *dir;
        pid_t sut_pid;
        bool jvm;
        uid_t map_owner;                /* the run user (0 without --run-as) */
        bool recorded;                  /* perf record exited cleanly */
};

/* On the worker: the perf map (when jvm) read from /tmp safely (no links, a regular file owned
 * by map_owner, at most PROFILE_MAP_BYTES_MAX), copied to perf.map and removed from /tmp; perf
 * script folded into profile.folded. *ret: metrics.profile {samples, lost, groups{...},
 * truncated, perf_map}; warnings get what was missing. */
int profile_collect(const struct profile_input *in, struct cJSON **ret, struct cJSON *warnings);
