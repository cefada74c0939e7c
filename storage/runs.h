/* runs.h: runs in the store: the queries the API and the scheduler share (the lifecycle
 * itself, states and transitions, is run-state.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "storage/db.h"
#include "storage/run-state.h"

struct cJSON;

/* Runs waiting to start, and runs between preparing and collecting. */
int runs_count_queue(struct db_conn *c, int64_t *ret_queued, int64_t *ret_active);

/* Adds the experiment's runs, as stored, to the counts by state: after rows inserted other than
 * by experiments_create() (an import's), inside their transaction. */
int runs_count_inserted(struct db_conn *c, const char *experiment_id);

/* The run as GET /v1/runs/{id} serves it; -ENOENT if absent. */
int runs_get_json(struct db_conn *c, const char *run_id, struct cJSON **ret);

/* Whether the run reached a terminal state (its data no longer changes); -ENOENT if absent. */
int runs_is_finished(struct db_conn *c, const char *run_id, bool *ret);

/* The scheduler's view of the queue. */
struct queued_run {
        char id[13];
        char experiment_id[13];
        int64_t cell_idx;
        int64_t experiment_seq; /* the experiment's place in the queue (its rowid) */
        char *definition;       /* canonical JSON of the experiment (malloc'd) */
};
void queued_runs_free(struct queued_run *runs, size_t n);
/* Up to max queued runs in the order they are due: oldest experiment first, then position; only
 * those of experiments after experiment_seq after_seq (0: all). */
int runs_next_queued(struct db_conn *c, int64_t after_seq, size_t max, struct queued_run **ret, size_t *ret_n);

/* The experiments with runs in the queue (queued or running), oldest first, at most max, only
 * those after experiment_seq after_seq (0: all); each with a bit per cell (index 0-63) that has
 * queued runs: where the queue's runs will need CPUs, read per experiment, not per run (a queued
 * experiment's cells all have queued runs, and only a running one's runs are read). */
struct queued_cells {
        char experiment_id[13];
        int64_t experiment_seq;
        uint64_t cells;
        char *definition;       /* canonical JSON of the experiment (malloc'd) */
};
void queued_cells_free(struct queued_cells *q, size_t n);
int runs_queued_cells(struct db_conn *c, int64_t after_seq, size_t max, struct queued_cells **ret, size_t *ret_n);

/* Record the run's slices (cgroup paths as /proc/PID/cgroup names them). */
int runs_set_slices(struct db_conn *c, const char *run_id, const char *sut, const char *load);
/* The host facts (JSON, GET /v1/host's shape) as the run starts, for comparisons across experiments. */
int runs_store_host_snapshot(struct db_conn *c, const char *run_id, const char *host_json);
int runs_set_measure_start(struct db_conn *c, const char *run_id, int64_t mono_ns);

/* Move a run (and its experiment's status) to a state in one transaction. */
int runs_advance(struct db_conn *c, const char *run_id, const char *experiment_id, const char *state,
                 const char *reason, const char *message);

/* A run's end: exit statuses, metrics (NULL = none) and warnings (JSON) stored together with the
 * final transition and the experiment's status, in one transaction. */
int runs_finish(struct db_conn *c, const char *run_id, const char *experiment_id, const char *state,
                const char *reason, const char *message, const char *exit_json, const char *metrics_json,
                const char *warnings_json);

/* At start: every run caught between preparing and collecting becomes interrupted (reason
 * daemon_restart); returns how many. */
int runs_interrupt_unfinished(struct db_conn *c, const char *message, int64_t *ret_count);

/* Whether this store has a run with this id (reconciliation touches only its own runs). */
int runs_known(struct db_conn *c, const char *run_id, bool *ret);

/* The run's measure start (the timeline's clock), -ENOENT for no such run, -ENODATA before it is known. */
int runs_measure_start(struct db_conn *c, const char *run_id, int64_t *ret);
/* CLOCK_REALTIME - CLOCK_MONOTONIC as the run saw them (at its measuring transition, else its
 * first): turns the timeline's clock into wall time. -ENODATA without any transition. */
int runs_wall_offset(struct db_conn *c, const char *run_id, int64_t *ret);

/* Figures for GET /metrics. */
struct runs_overview {
        int64_t by_state[_RUN_STATE_MAX];
        int64_t finished;               /* runs with a duration (preparing to their end) */
        double duration_sum_s;
};
int runs_overview(struct db_conn *c, struct runs_overview *ret);
/* The last succeeded run per (experiment, cell) of the `experiments` most recent experiments:
 * {"experiment","cell","throughput_rps","p99_us","ops_per_s"} each. */
int runs_latest_per_cell(struct db_conn *c, int experiments, struct cJSON **ret);
