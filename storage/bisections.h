/* bisections.h: bisections in the store (issue 38): the request, the range still open, each
 * step's experiment and decision, the result. What a step decides is the caller's
 * (api/bisections.c); the store keeps it so that a restarted daemon goes on where it was. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "basic/id.h"
#include "storage/db.h"
#include "storage/run-state.h"

#define BISECTION_STATUS_SIZE 16
#define BISECTION_DECISION_SIZE 16

struct bisection_row {
        char id[ID_LEN + 1];
        char status[BISECTION_STATUS_SIZE];     /* queued, running, succeeded, failed, cancelled */
        char *request;                          /* its canonical JSON, for free() */
        unsigned n_versions, lo, hi;            /* the range still open */
};
void bisection_row_done(struct bisection_row *r);

struct bisection_step_row {
        unsigned step, lo, mid, attempt;
        char experiment_id[ID_LEN + 1];
        char decision[BISECTION_DECISION_SIZE]; /* "" while its experiment runs */
};

/* A new bisection, queued, over versions 0..n_versions-1. */
int bisections_create(struct db_conn *c, const char *name, const char *request_json, unsigned n_versions,
                      char ret_id[ID_LEN + 1]);
/* -ENOENT when there is no such bisection. */
int bisections_get(struct db_conn *c, const char *id, struct bisection_row *ret);
/* The ids of the bisections queued or running, oldest first, at most max; *ret_n how many. */
int bisections_open(struct db_conn *c, char (*ret)[ID_LEN + 1], size_t max, size_t *ret_n);
/* The newest step; -ENOENT before the first. */
int bisections_last_step(struct db_conn *c, const char *id, struct bisection_step_row *ret);
/* A step whose experiment was queued; the bisection is running from then on. */
int bisections_add_step(struct db_conn *c, const char *id, const struct bisection_step_row *step);
/* A step's decision (its ratio and interval when it has one: NaN otherwise) and the range it
 * leaves open, in one transaction. */
int bisections_decide(struct db_conn *c, const char *id, unsigned step, const char *decision, double ratio,
                      double ci_low, double ci_high, unsigned lo, unsigned hi);
/* The end: status succeeded (outcome found, no_change or undecided), failed or cancelled (outcome
 * NULL), with a message for people. Only an open bisection ends: -ESTALE when it had already. */
int bisections_finish(struct db_conn *c, const char *id, const char *status, const char *outcome, const char *message);
/* The status of an experiment (a step's); -ENOENT when it was deleted. */
int bisections_experiment_status(struct db_conn *c, const char *experiment_id, char ret[EXPERIMENT_STATUS_SIZE]);
/* GET /v1/bisections/{id}'s body; -ENOENT. */
int bisections_json(struct db_conn *c, const char *id, cJSON **ret);
/* GET /v1/bisections's: {"bisections": [{id, name, status, created_at, finished_at, outcome}]},
 * newest first, at most limit. */
int bisections_list_json(struct db_conn *c, int64_t limit, cJSON **ret);
