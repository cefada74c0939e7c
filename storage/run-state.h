/* run-state.h: the run lifecycle as the store keeps it: the state names, the SQL lists of the
 * states between queued and the end, the row that records a transition, and an experiment's
 * status derived from its runs' states. runs.c and experiments.c both build on it, so neither
 * needs the other. */
#pragma once

#include <stdbool.h>

#include "storage/db.h"

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

/* SQL value lists, for "state IN " RUN_STATES_ACTIVE_SQL: a run holds the machine between
 * preparing and collecting; with queued, a run is not finished. */
#define RUN_STATES_ACTIVE_SQL "('preparing','starting','warmup','measuring','collecting')"
#define RUN_STATES_UNFINISHED_SQL "('queued','preparing','starting','warmup','measuring','collecting')"
#define RUN_STATES_FINISHED_SQL "('succeeded','failed','cancelled','interrupted')"

/* Room for an experiment's status ("queued" ... "cancelled", the longest 9 characters) and its NUL. */
#define EXPERIMENT_STATUS_SIZE 16

const char *run_state_to_string(int state);
int run_state_from_string(const char *s);      /* -EINVAL if unknown */
bool run_state_is_terminal(int state);

/* Move a run to state (recording reason and message when given, NULL keeps them) and append
 * the transition to its history. Call inside the caller's transaction, or alone. */
int run_state_transition(struct db_conn *c, const char *run_id, const char *state, const char *reason,
                    const char *message);

/* The experiment's status and finished time from its runs' states (queued, running, then
 * succeeded, partial, failed or cancelled). Call in the transaction that changed a run. */
int run_state_refresh_experiment(struct db_conn *c, const char *id);
