/* experiments.h: experiments, their cells and runs in the store. Creation is one transaction
 * (experiment, cells, runs, their first events, the idempotency key), so a failure leaves no
 * row behind. Reads return cJSON documents shaped as the API serves them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/db.h"
#include "storage/run-state.h"
#include "basic/error.h"
#include "basic/id.h"

struct cJSON;

struct experiment_new {
        const char *name;
        const char *definition_json;    /* canonical JSON of the whole definition */
        const char *order;              /* "interleaved", "sequential", "random" */
        bool has_seed;
        uint64_t seed;
        const char *warnings_json;      /* JSON array of strings */
        size_t n_cells;
        const char *const *cell_names;
        const char *const *cell_json;   /* canonical JSON of each cell */
        size_t n_runs;
        const size_t *run_cell;         /* per run, in order: cell index and 0-based iteration */
        const unsigned *run_iteration;
        const char *idempotency_key;    /* NULL when the client sent none */
        int64_t queue_max;              /* queued runs of all experiments, these included; 0 = no limit */
};

/* Store a new experiment and answer its id. With an idempotency key already used for the same
 * definition, nothing is stored and *ret_existing is true with that experiment's id; used for a
 * different definition: -EEXIST with err (409). When its runs would take the queue past
 * queue_max: -EBUSY with err (429 queue_full, naming the limit), nothing stored. */
int experiments_create(struct db_conn *c, const struct experiment_new *e, char ret_id[ID_LEN + 1],
                       bool *ret_existing, struct error *err);

/* {"id","name","status","created_at","finished_at","definition","warnings","seed",
 *  "cancel_requested","progress":{"total","queued",...,"done"}}; -ENOENT if absent. */
int experiments_get_json(struct db_conn *c, const char *id, struct cJSON **ret);

/* What a POST answers of the experiment: {"id", "status", "runs" (how many), "warnings"}, in one
 * read (not the whole experiment's, five reads a POST); -ENOENT if absent. */
int experiments_created_json(struct db_conn *c, const char *id, struct cJSON **ret);

/* An experiment's labels into experiment_labels (the list's label filter reads them), from its
 * stored definition so that the two cannot differ: experiments_create() calls it, and so must
 * anything else that inserts an experiment (an import). Within the caller's transaction. */
int experiments_index_labels(struct db_conn *c, const char *id);
/* What the daemon's own insert of an experiment does beside its rows, for one inserted otherwise
 * (an import's rows): its labels indexed and its runs counted (storage/runs.h). Within the
 * caller's transaction. */
int experiments_adopt_inserted(struct db_conn *c, const char *id);

/* Newest first. status NULL = any; labels_json NULL = any, else a JSON array of [key, value]
 * pairs that must all be among the definition's labels; cursor 0 = from the newest. *ret_next
 * is 0 at the end. */
int experiments_list_json(struct db_conn *c, const char *status, const char *labels_json, int64_t limit,
                          int64_t cursor, struct cJSON **ret_items, int64_t *ret_next);

/* Cancel: queued runs become cancelled now, cancel_requested is set so the loop stops the run
 * in progress. *ret_stopping: a new array of the ids of the runs in progress, which the loop
 * must stop, read in the same transaction (read after it, the loop may have stopped them
 * already); empty when none was. Outputs untouched on failure. */
int experiments_cancel(struct db_conn *c, const char *id, int64_t *ret_cancelled, struct cJSON **ret_stopping);
/* Whether the experiment was cancelled (so its run in progress must stop). */
int experiments_cancel_requested(struct db_conn *c, const char *experiment_id, bool *ret);

/* Fail fast: when the experiment's last max_failures runs that ended (succeeded or failed) all
 * failed with the same reason, its queued runs are cancelled (reason "repeated_failure", the
 * message naming the count, the reason and the last failure's first line) in one transaction.
 * *ret_cancelled says how many (0: the streak is shorter or mixed, or max_failures is 0);
 * reason gets the message when it is not 0. */
int experiments_stop_after_failures(struct db_conn *c, const char *id, unsigned max_failures,
                                    int64_t *ret_cancelled, char *reason, size_t reason_size);

/* A page of the experiment's runs in run order, from position `from` (0 = the first), at most
 * limit of them: [{"id","cell","iteration","state","reason","started_at","finished_at","headline"}].
 * *ret_next is the position of the next page, or -1 at the end. */
int experiments_runs_json(struct db_conn *c, const char *id, int64_t from, int64_t limit, struct cJSON **ret,
                          int64_t *ret_next);

/* Every run of the experiment as {"cell","cell_index","id","iteration","state","reason","metrics"},
 * in cell order then iteration, for the report; -ENOENT if there is no such experiment.
 * *ret_status is the experiment's status, *ret_cells its cell names in order. */
int experiments_report_rows(struct db_conn *c, const char *id, struct cJSON **ret_rows, struct cJSON **ret_cells,
                            char ret_status[EXPERIMENT_STATUS_SIZE]);

/* The series of a cell over experiments: the finished experiments (succeeded, partial, failed,
 * cancelled) whose labels include every [key, value] of labels_json (NULL = any) and that have a
 * cell named `cell`, the newest `limit` of them in time order (created, then stored), as
 * [{"id","name","status","created_at","finished_at","values":[...]}] where values holds, per
 * succeeded run of the cell in iteration order, what its metrics hold at the SQLite JSON path
 * json_path (e.g. "$.latency_us.scheduled.p99"; null where nothing). *ret_truncated: older ones
 * were left out. */
int experiments_series_json(struct db_conn *c, const char *labels_json, const char *cell, const char *json_path,
                            int64_t limit, struct cJSON **ret, bool *ret_truncated);

/* The experiment's definition as stored (canonical JSON, parsed); -ENOENT if absent. */
int experiments_definition_json(struct db_conn *c, const char *id, struct cJSON **ret);

/* The host facts (GET /v1/host's shape) recorded when the experiment's latest run started;
 * *ret NULL when none was recorded. */
int experiments_host_snapshot_json(struct db_conn *c, const char *id, struct cJSON **ret);
