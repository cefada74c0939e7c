/* runs.h: runs in the store: their states (the lifecycle of the design), transitions recorded
 * as rows with both clocks, and the queries the API and the scheduler share. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "db.h"

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
