/* run.h: one run, from preparing to its end: slices made from the cell, the SUT started in its
 * slice and probed for readiness, the load started in its slice for warmup and measure, the SUT
 * stopped, raw files collected, slices removed. Every failure ends in a terminal state with a
 * reason and a message, and every path ends with no process of the run alive and no slice left.
 * All of it runs on the daemon's event loop but collection, which runs on a worker thread. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "basic/cpulist.h"
#include "storage/runs.h"

struct cgroup_manager;
struct db_conn;
struct definition_policy;
struct storage;

/* What every run needs from the daemon; owned by the scheduler, outlives the runs. */
struct run_context {
        sd_event *event;
        struct db_conn *db;             /* the loop's own connection */
        struct storage *storage;        /* the pool: collection stores through a connection of its own, */
        struct db_conn *collect_db;     /* this run's (the scheduler's), or NULL: one from the pool */
        struct cgroup_manager *cgroups;
        const char *state_dir;
        const char *injector_path;      /* slicelab-inject */
        bool set_user;                  /* --run-as */
        uid_t uid;
        gid_t gid;
        const struct definition_policy *policy; /* checked again before each run */
        const struct cpulist *housekeeping;     /* --housekeeping-cpus, or NULL: the CPUs runs leave */
        const struct peer_config *peers;        /* --peer-*: lab hosts this daemon may ask for load */
        const char *perf;               /* --perf, or NULL: perf on PATH (profile.cpu) */
};

struct peer_config;
struct run;
/* Called once the run reached a terminal state and is torn down; the callee frees the run. */
typedef void (*run_done_fn)(struct run *r, void *userdata);

/* Starts the run (it moves to preparing at once). A definition that cannot be used any more
 * fails the run, not the call: the call fails only when the run could not be tracked at all. */
int run_start(const struct run_context *ctx, const struct queued_run *q, run_done_fn done, void *userdata,
              struct run **ret);
/* Stop it now: teardown is synchronous (slices killed and removed), then done() is called;
 * while collecting, the worker is told to stop and the teardown follows when it has.
 * state is RUN_CANCELLED or RUN_INTERRUPTED. */
void run_stop(struct run *r, int state, const char *reason, const char *message);
void run_free(struct run *r);

const char *run_get_id(const struct run *r);
const char *run_get_experiment_id(const struct run *r);
/* The definition's max_consecutive_failures (its default when the stored definition did not
 * parse). */
unsigned run_get_max_consecutive_failures(const struct run *r);
/* The CPUs the run uses: run_plan_cpus()'s "all", worked out once at its start. */
const struct cpulist *run_get_cpus(const struct run *r);
/* Where the daemon's own threads run, when that disturbs this run (said once per run, until the
 * run's end is recorded). */
void run_warn_housekeeping(struct run *r, const char *message);
/* The pids the run tracks as direct children (SUT, load), for orphan reaping; 0 = none. */
void run_get_pids(const struct run *r, pid_t pids[2]);
