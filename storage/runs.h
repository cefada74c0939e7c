/* runs.h: runs in the store: their states (the lifecycle of the design), transitions recorded
 * as rows with both clocks, and the queries the API and the scheduler share. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "storage/db.h"

struct cJSON;

enum run_state {
        RUN_QUEUED,
        RUN_PREPARING,
        RUN_STARTING,
        RUN_WARMUP,
        RUN_MEASURING,
        RUN_COLLECTING,
        RUN_SUCCEEDED,
        RUN_FAILED,
        RUN_CANCELLED,
        RUN_INTERRUPTED,
        _RUN_STATE_MAX,
};

const char *run_state_to_string(int state);
int run_state_from_string(const char *s);      /* -EINVAL if unknown */
bool run_state_is_terminal(int state);

/* Runs waiting to start, and runs between preparing and collecting. */
int runs_count_queue(struct db_conn *c, int64_t *ret_queued, int64_t *ret_active);

/* Move a run to state (recording reason and message when given, NULL keeps them) and append
 * the transition to its history. Call inside the caller's transaction, or alone. */
int runs_transition(struct db_conn *c, const char *run_id, const char *state, const char *reason,
                    const char *message);

/* The run as GET /v1/runs/{id} serves it; -ENOENT if absent. */
int runs_get_json(struct db_conn *c, const char *run_id, struct cJSON **ret);

/* The scheduler's view of the queue. */
struct queued_run {
        char id[13];
        char experiment_id[13];
        int64_t cell_idx;
        char *definition;       /* canonical JSON of the experiment (malloc'd) */
};
void queued_runs_free(struct queued_run *runs, size_t n);
/* Up to max queued runs in the order they are due: oldest experiment first, then position. */
int runs_next_queued(struct db_conn *c, size_t max, struct queued_run **ret, size_t *ret_n);

/* Record the run's slices (cgroup paths as /proc/PID/cgroup names them). */
int runs_set_slices(struct db_conn *c, const char *run_id, const char *sut, const char *load);
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

/* Whether the experiment was cancelled (so its run in progress must stop). */
int experiment_cancel_requested(struct db_conn *c, const char *experiment_id, bool *ret);

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
