/* experiments.c: experiments, cells and runs in the store. */
#include "storage/experiments.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "storage/imports.h"
#include "storage/row-json.h"
#include "storage/run-state.h"
#include "storage/runs.h"
#include "basic/time-util.h"
#include "basic/utf8.h"

/* Idempotency keys live a week: "at least 24 h" with room for a scheduler's long retry loop. */
#define IDEMPOTENCY_TTL_NS (INT64_C(7) * 24 * 3600 * NSEC_PER_SEC)

static int bind_all_text(sqlite3_stmt *s, const char *const *values, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = db_bind_text(s, (int) i + 1, values[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* 1 = key unknown, 0 = known for the same definition (*existing filled), -EEXIST = different. */
static int idempotency_lookup(struct db_conn *c, const char *key, const char *definition,
                              char existing[ID_LEN + 1], struct error *err) {
        static const char sql[] =
                "SELECT k.experiment_id, e.definition FROM idempotency_keys k"
                "  JOIN experiments e ON e.id = k.experiment_id WHERE k.key = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0 || (r = db_bind_text(s, 1, key)) < 0 || (r = db_step(s)) < 0)
                return r;
        if (r == 0)
                return 1;
        const char *id = (const char *) sqlite3_column_text(s, 0);
        const char *stored = (const char *) sqlite3_column_text(s, 1);
        if (!id || !stored || strcmp(stored, definition) != 0) {
                error_set(err, 409, "idempotency_conflict", "Idempotency-Key",
                          "Idempotency-Key '%.*s' was used for experiment %s with a different definition",
                          UTF8_PREFIX(key, 64), id ? id : "?");
                return -EEXIST;
        }
        snprintf(existing, ID_LEN + 1, "%s", id);
        return 0;
}

static int insert_experiment(struct db_conn *c, const char *id, const struct experiment_new *e, int64_t now) {
        static const char sql[] =
                "INSERT INTO experiments(id, name, status, definition, run_order, seed, warnings, created_wall_ns)"
                " VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        const char *texts[] = { id, e->name, e->definition_json, e->order };
        if ((r = bind_all_text(s, texts, ELEMENTSOF(texts))) < 0)
                return r;
        if (e->has_seed)
                sqlite3_bind_int64(s, 5, (int64_t) e->seed);
        db_bind_text(s, 6, e->warnings_json ? e->warnings_json : "[]");
        sqlite3_bind_int64(s, 7, now);
        r = db_step(s);
        return r < 0 ? r : 0;
}

int experiments_index_labels(struct db_conn *c, const char *id) {
        static const char sql[] =
                "INSERT INTO experiment_labels(key, value, experiment_rowid, experiment_id)"
                "  SELECT l.key, l.value, e.rowid, e.id FROM experiments e, json_each(e.definition, '$.labels') l"
                "  WHERE e.id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, id, &s);
        if (r < 0)
                return r;
        r = db_step(s);
        return r < 0 ? r : 0;
}

int experiments_adopt_inserted(struct db_conn *c, const char *id) {
        int r = experiments_index_labels(c, id);
        return r < 0 ? r : runs_count_inserted(c, id);
}

static int insert_cells(struct db_conn *c, const char *id, const struct experiment_new *e) {
        static const char sql[] = "INSERT INTO cells(experiment_id, idx, name, definition) VALUES (?, ?, ?, ?)";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        for (size_t i = 0; i < e->n_cells; i++) {
                sqlite3_reset(s);
                db_bind_text(s, 1, id);
                sqlite3_bind_int64(s, 2, (int64_t) i);
                db_bind_text(s, 3, e->cell_names[i]);
                db_bind_text(s, 4, e->cell_json[i]);
                if ((r = db_step(s)) < 0)
                        return r;
        }
        return 0;
}

static int insert_runs(struct db_conn *c, const char *id, const struct experiment_new *e, int64_t now) {
        static const char sql_run[] =
                "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state) VALUES (?, ?, ?, ?, ?, 'queued')";
        static const char sql_event[] =
                "INSERT INTO run_events(run_id, seq, state, wall_ns, mono_ns) VALUES (?, 0, 'queued', ?, ?)";
        sqlite3_stmt *run _cleanup_stmt_ = NULL, *event _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql_run, &run);
        if (r < 0 || (r = db_stmt(c, sql_event, &event)) < 0)
                return r;
        int64_t mono = now_mono_ns();
        for (size_t i = 0; i < e->n_runs; i++) {
                char run_id[ID_LEN + 1];
                if ((r = id_generate(run_id)) < 0)
                        return r;
                sqlite3_reset(run);
                db_bind_text(run, 1, run_id);
                db_bind_text(run, 2, id);
                sqlite3_bind_int64(run, 3, (int64_t) i);
                sqlite3_bind_int64(run, 4, (int64_t) e->run_cell[i]);
                sqlite3_bind_int64(run, 5, (int64_t) e->run_iteration[i]);
                if ((r = db_step(run)) < 0)
                        return r;
                sqlite3_reset(event);
                db_bind_text(event, 1, run_id);
                sqlite3_bind_int64(event, 2, now);
                sqlite3_bind_int64(event, 3, mono);
                if ((r = db_step(event)) < 0)
                        return r;
        }
        return 0;
}

/* The counts by state learn of the runs in their transaction (schema 6: no trigger on insert). */
static int count_queued(struct db_conn *c, size_t n_runs) {
        static const char sql[] = "UPDATE run_state_counts SET runs = runs + ?1 WHERE state = 'queued'";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, (int64_t) n_runs);
        r = db_step(s);
        return r < 0 ? r : 0;
}

static int insert_idempotency_key(struct db_conn *c, const char *key, const char *id, int64_t now) {
        static const char sql_prune[] = "DELETE FROM idempotency_keys WHERE created_wall_ns < ?";
        static const char sql[] =
                "INSERT INTO idempotency_keys(key, body_sha256, experiment_id, created_wall_ns) VALUES (?, '', ?, ?)";
        sqlite3_stmt *prune _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql_prune, &prune);
        if (r < 0)
                return r;
        sqlite3_bind_int64(prune, 1, now - IDEMPOTENCY_TTL_NS);
        if ((r = db_step(prune)) < 0 || (r = db_stmt(c, sql, &s)) < 0)
                return r;
        db_bind_text(s, 1, key);
        db_bind_text(s, 2, id);
        sqlite3_bind_int64(s, 3, now);
        r = db_step(s);
        return r < 0 ? r : 0;
}

static int check_queue_room(struct db_conn *c, const struct experiment_new *e, struct error *err) {
        int64_t queued = 0, active = 0;
        int r = runs_count_queue(c, &queued, &active);
        if (r < 0)
                return r;
        if (queued + (int64_t) e->n_runs <= e->queue_max)
                return 0;
        error_set(err, 429, "queue_full", "",
                  "the queue holds %lld runs; this experiment's %zu would pass the limit of %lld queued runs",
                  (long long) queued, e->n_runs, (long long) e->queue_max);
        return -EBUSY;
}

int experiments_create(struct db_conn *c, const struct experiment_new *e, char ret_id[ID_LEN + 1],
                       bool *ret_existing, struct error *err) {
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        if (e->idempotency_key) {
                char existing[ID_LEN + 1];
                r = idempotency_lookup(c, e->idempotency_key, e->definition_json, existing, err);
                if (r < 0)
                        return r;
                if (r == 0) {
                        memcpy(ret_id, existing, sizeof existing);
                        *ret_existing = true;
                        return 0;
                }
        }
        /* In the same (immediate) transaction as the insert: two POSTs cannot both fit. */
        if (e->queue_max > 0 && (r = check_queue_room(c, e, err)) < 0)
                return r;
        char id[ID_LEN + 1];
        int64_t now = now_wall_ns();
        if ((r = id_generate(id)) < 0 || (r = insert_experiment(c, id, e, now)) < 0 || (r = experiments_index_labels(c, id)) < 0 ||
            (r = insert_cells(c, id, e)) < 0 || (r = insert_runs(c, id, e, now)) < 0 || (r = count_queued(c, e->n_runs)) < 0)
                return r;
        if (e->idempotency_key && (r = insert_idempotency_key(c, e->idempotency_key, id, now)) < 0)
                return r;
        if ((r = db_txn_commit(&t)) < 0)
                return r;
        memcpy(ret_id, id, sizeof id);
        *ret_existing = false;
        return 0;
}


static int add_progress(struct db_conn *c, const char *id, cJSON *o) {
        static const char sql[] = "SELECT state, count(*) FROM runs WHERE experiment_id = ? GROUP BY state";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, id, &s);
        if (r < 0)
                return r;
        int64_t counts[_RUN_STATE_MAX] = { 0 }, total = 0;
        while ((r = db_step(s)) > 0) {
                int state = run_state_from_string((const char *) sqlite3_column_text(s, 0));
                if (state >= 0)
                        counts[state] = sqlite3_column_int64(s, 1);
                total += sqlite3_column_int64(s, 1);
        }
        if (r < 0)
                return r;
        cJSON *p = cJSON_AddObjectToObject(o, "progress");
        cJSON_AddNumberToObject(p, "total", (double) total);
        cJSON *by_state = cJSON_CreateObject();
        int64_t done = 0;
        for (int i = 0; i < _RUN_STATE_MAX; i++) {
                cJSON_AddNumberToObject(by_state, run_state_to_string(i), (double) counts[i]);
                if (run_state_is_terminal(i))
                        done += counts[i];
        }
        cJSON_AddNumberToObject(p, "done", (double) done);
        cJSON_AddItemToObject(p, "by_state", by_state);
        return 0;
}

#define EXPERIMENT_COLUMNS \
        "id, name, status, created_wall_ns, finished_wall_ns, definition, warnings, seed, rowid," \
        " (SELECT min(ev.wall_ns) FROM run_events ev JOIN runs r ON r.id = ev.run_id" \
        "   WHERE r.experiment_id = experiments.id AND ev.state = 'preparing')," \
        " coalesce(json_extract(definition, '$.labels'), '{}')"

/* SQL: every [key, value] of the JSON array bound at `param` is among the labels of the
 * definition of `table` (NULL binds: any labels). */
#define LABELS_INCLUDE(param, table)                                                                      \
        "NOT EXISTS (SELECT 1 FROM json_each(" param ") f WHERE NOT EXISTS ("                              \
        "   SELECT 1 FROM json_each(" table ".definition, '$.labels') l"                                   \
        "    WHERE l.key = json_extract(f.value, '$[0]') AND l.value = json_extract(f.value, '$[1]')))"

/* One row of EXPERIMENT_COLUMNS as the API's experiment object: the full one (with the
 * definition as stored) or the summary of a list. */
static cJSON *experiment_from_row(sqlite3_stmt *s, bool full) {
        cJSON *o = cJSON_CreateObject();
        row_add_text(o, "id", s, 0);
        row_add_text(o, "name", s, 1);
        row_add_text(o, "status", s, 2);
        row_add_time(o, "created_at", s, 3);
        if (full)
                row_add_time(o, "started_at", s, 9);
        row_add_time(o, "finished_at", s, 4);
        if (!full) {
                row_add_json(o, "labels", s, 10);
                return o;
        }
        row_add_int(o, "seed", s, 7);
        row_add_json(o, "definition", s, 5);
        row_add_json(o, "warnings", s, 6);
        return o;
}

/* Per cell, its runs counted by outcome; the metric statistics are added by the report. */
static int add_cells(struct db_conn *c, const char *id, cJSON *o) {
        static const char sql[] =
                "SELECT c.name, count(r.id), coalesce(sum(r.state = 'succeeded'), 0),"
                "       coalesce(sum(r.state = 'failed'), 0), coalesce(sum(r.state = 'cancelled'), 0),"
                "       coalesce(sum(r.state = 'interrupted'), 0)"
                "  FROM cells c LEFT JOIN runs r ON r.experiment_id = c.experiment_id AND r.cell_idx = c.idx"
                " WHERE c.experiment_id = ? GROUP BY c.idx ORDER BY c.idx";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, id, &s);
        if (r < 0)
                return r;
        cJSON *cells = cJSON_AddArrayToObject(o, "cells");
        while ((r = db_step(s)) > 0) {
                cJSON *cell = cJSON_CreateObject();
                row_add_text(cell, "name", s, 0);
                cJSON *runs = cJSON_AddObjectToObject(cell, "runs");
                static const char *const names[] = { "total", "succeeded", "failed", "cancelled", "interrupted" };
                int64_t finished = 0;
                for (int i = 0; i < 5; i++) {
                        cJSON_AddNumberToObject(runs, names[i], (double) sqlite3_column_int64(s, i + 1));
                        if (i > 0)
                                finished += sqlite3_column_int64(s, i + 1);
                }
                cJSON_AddNumberToObject(runs, "pending", (double) (sqlite3_column_int64(s, 1) - finished));
                cJSON_AddObjectToObject(cell, "metrics");
                cJSON_AddItemToArray(cells, cell);
        }
        return r < 0 ? r : 0;
}

int experiments_get_json(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] = "SELECT " EXPERIMENT_COLUMNS " FROM experiments WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *o = experiment_from_row(s, true);
        if ((r = add_progress(c, id, o)) < 0 || (r = add_cells(c, id, o)) < 0 || (r = imports_add_origin(c, id, o)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int experiments_created_json(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] =
                "SELECT id, status, (SELECT count(*) FROM runs WHERE experiment_id = ?1), warnings FROM experiments"
                " WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        if (!o)
                return -ENOMEM;
        row_add_text(o, "id", s, 0);
        row_add_text(o, "status", s, 1);
        cJSON_AddNumberToObject(o, "runs", (double) sqlite3_column_int64(s, 2));
        row_add_json(o, "warnings", s, 3);
        *ret = TAKE_PTR(o);
        return 0;
}

/* Pages start below the cursor (a rowid; 0 = from the newest) through the index, not by
 * skipping the newer rows one by one. */
#define BELOW_CURSOR "iif(?2 = 0, 9223372036854775807, ?2)"

int experiments_list_json(struct db_conn *c, const char *status, const char *labels_json, int64_t limit,
                          int64_t cursor, cJSON **ret_items, int64_t *ret_next) {
        static const char sql_all[] =
                "SELECT " EXPERIMENT_COLUMNS " FROM experiments"
                " WHERE (?1 IS NULL OR status = ?1) AND rowid < " BELOW_CURSOR
                " ORDER BY rowid DESC LIMIT ?3";
        /* Newest first along the first [key, value] of ?4 in experiment_labels; every other
         * pair of ?4 must be among the experiment's labels too. */
        static const char sql_labelled[] =
                "SELECT " EXPERIMENT_COLUMNS " FROM experiment_labels k"
                "  CROSS JOIN experiments ON experiments.rowid = k.experiment_rowid"
                " WHERE k.key = json_extract(?4, '$[0][0]') AND k.value = json_extract(?4, '$[0][1]')"
                "   AND k.experiment_rowid < " BELOW_CURSOR " AND (?1 IS NULL OR status = ?1)"
                "   AND NOT EXISTS (SELECT 1 FROM json_each(?4) f WHERE NOT EXISTS ("
                "         SELECT 1 FROM experiment_labels l WHERE l.experiment_rowid = experiments.rowid"
                "            AND l.key = json_extract(f.value, '$[0]') AND l.value = json_extract(f.value, '$[1]')))"
                " ORDER BY k.experiment_rowid DESC LIMIT ?3";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, labels_json ? sql_labelled : sql_all, status, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, cursor);
        sqlite3_bind_int64(s, 3, limit + 1); /* one more tells whether a next page exists */
        if (labels_json && (r = db_bind_text(s, 4, labels_json)) < 0)
                return r;
        _cleanup_json_ cJSON *items = cJSON_CreateArray();
        int64_t n = 0, last_rowid = 0, next = 0;
        while ((r = db_step(s)) > 0) {
                if (n == limit) {
                        next = last_rowid;
                        break;
                }
                cJSON *o = experiment_from_row(s, false);
                const char *id = (const char *) sqlite3_column_text(s, 0);
                int k = add_progress(c, id, o);
                if (k < 0) {
                        cJSON_Delete(o);
                        return k;
                }
                cJSON_AddItemToArray(items, o);
                last_rowid = sqlite3_column_int64(s, 8);
                n++;
        }
        if (r < 0)
                return r;
        *ret_items = TAKE_PTR(items);
        *ret_next = next;
        return 0;
}

/* Every queued run of the experiment becomes cancelled with this reason and message; inside
 * the caller's transaction. */
static int cancel_queued(struct db_conn *c, const char *id, const char *reason, const char *message,
                         int64_t *ret_n) {
        static const char sql_queued[] = "SELECT id FROM runs WHERE experiment_id = ? AND state = 'queued'";
        int r;
        /* Collect first, then transition: a statement must not read rows it is changing. */
        sqlite3_stmt *queued _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql_queued, &queued)) < 0)
                return r;
        db_bind_text(queued, 1, id);
        size_t n = 0, cap = 0;
        _cleanup_free_ char (*ids)[ID_LEN + 1] = NULL;
        while ((r = db_step(queued)) > 0) {
                if (n == cap) {
                        cap = cap ? cap * 2 : 64;
                        void *p = realloc(ids, cap * sizeof *ids);
                        if (!p)
                                return -ENOMEM;
                        ids = p;
                }
                snprintf(ids[n++], ID_LEN + 1, "%s", (const char *) sqlite3_column_text(queued, 0));
        }
        if (r < 0)
                return r;
        db_stmt_resetp(&queued);
        for (size_t i = 0; i < n; i++)
                if ((r = run_state_transition(c, ids[i], "cancelled", reason, message)) < 0)
                        return r;
        *ret_n = (int64_t) n;
        return 0;
}

/* The ids of experiment id's runs in progress, into a new array. */
static int active_run_ids(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] =
                "SELECT id FROM runs WHERE experiment_id = ? AND state IN " RUN_STATES_ACTIVE_SQL " ORDER BY id";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        db_bind_text(s, 1, id);
        _cleanup_json_ cJSON *ids = cJSON_CreateArray();
        if (!ids)
                return -ENOMEM;
        while ((r = db_step(s)) > 0)
                if (!cJSON_AddItemToArray(ids, cJSON_CreateString((const char *) sqlite3_column_text(s, 0))))
                        return -ENOMEM;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ids);
        return 0;
}

int experiments_cancel_requested(struct db_conn *c, const char *experiment_id, bool *ret) {
        static const char sql[] = "SELECT cancel_requested FROM experiments WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, experiment_id, &s);
        if (r < 0)
                return r;
        *ret = sqlite3_column_int(s, 0) != 0;
        return 0;
}

int experiments_cancel(struct db_conn *c, const char *id, int64_t *ret_cancelled, cJSON **ret_stopping) {
        /* A finished experiment stays as it ended: cancelling it again changes nothing. */
        static const char sql_flag[] =
                "UPDATE experiments SET cancel_requested = 1 WHERE id = ? AND status IN ('queued','running')";
        static const char sql_exists[] = "SELECT 1 FROM experiments WHERE id = ?";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        sqlite3_stmt *flag _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql_flag, &flag)) < 0)
                return r;
        db_bind_text(flag, 1, id);
        if ((r = db_step(flag)) < 0)
                return r;
        if (sqlite3_changes(db_handle(c)) == 0) {
                sqlite3_stmt *e _cleanup_stmt_ = NULL;
                if ((r = db_stmt(c, sql_exists, &e)) < 0)
                        return r;
                db_bind_text(e, 1, id);
                if ((r = db_step(e)) < 0)
                        return r;
                if (r == 0)
                        return -ENOENT;
                cJSON *none = cJSON_CreateArray();
                if (!none)
                        return -ENOMEM;
                *ret_cancelled = 0;
                *ret_stopping = none;
                return 0;
        }

        int64_t n = 0;
        if ((r = cancel_queued(c, id, "cancelled", "cancelled before it started", &n)) < 0)
                return r;
        _cleanup_json_ cJSON *stopping = NULL;
        if ((r = active_run_ids(c, id, &stopping)) < 0)
                return r;
        if ((r = run_state_refresh_experiment(c, id)) < 0 || (r = db_txn_commit(&t)) < 0)
                return r;
        *ret_cancelled = n;
        *ret_stopping = TAKE_PTR(stopping);
        return 0;
}

int experiments_runs_json(struct db_conn *c, const char *id, int64_t from, int64_t limit, cJSON **ret,
                          int64_t *ret_next) {
        static const char sql_exists[] = "SELECT 1 FROM experiments WHERE id = ?";
        static const char sql[] =
                "SELECT r.id, c.name, r.iteration, r.state, r.reason,"
                "       (SELECT min(wall_ns) FROM run_events WHERE run_id = r.id AND state = 'preparing'),"
                "       (SELECT max(wall_ns) FROM run_events WHERE run_id = r.id AND state IN"
                "          ('succeeded','failed','cancelled','interrupted')),"
                "       CASE WHEN r.metrics IS NULL THEN NULL ELSE json_object('throughput_rps', json_extract(r.metrics, '$.throughput_rps'),"
                "                   'requests', json_extract(r.metrics, '$.requests'),"
                "                   'errors', json_extract(r.metrics, '$.errors'),"
                "                   'p99_us', json_extract(r.metrics, '$.latency_us.scheduled.p99'),"
                "                   'ops_per_s', json_extract(r.metrics, '$.ops_per_s')) END"
                "  FROM runs r JOIN cells c ON c.experiment_id = r.experiment_id AND c.idx = r.cell_idx"
                " WHERE r.experiment_id = ?1 AND r.position >= ?2 ORDER BY r.position LIMIT ?3";
        sqlite3_stmt *e _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql_exists, id, &e);
        if (r < 0)
                return r;
        if ((r = db_stmt(c, sql, &s)) < 0)
                return r;
        db_bind_text(s, 1, id);
        sqlite3_bind_int64(s, 2, from);
        sqlite3_bind_int64(s, 3, limit + 1); /* one more tells whether a next page exists */
        _cleanup_json_ cJSON *items = cJSON_CreateArray();
        int64_t n = 0, next = -1;
        while ((r = db_step(s)) > 0) {
                if (n++ == limit) {
                        next = from + limit;
                        break;
                }
                cJSON *o = cJSON_CreateObject();
                row_add_text(o, "id", s, 0);
                row_add_text(o, "cell", s, 1);
                cJSON_AddNumberToObject(o, "iteration", sqlite3_column_int(s, 2) + 1);
                row_add_text(o, "state", s, 3);
                row_add_text(o, "reason", s, 4);
                row_add_time(o, "started_at", s, 5);
                row_add_time(o, "finished_at", s, 6);
                row_add_json(o, "headline", s, 7);
                cJSON_AddItemToArray(items, o);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(items);
        *ret_next = next;
        return 0;
}

/* A report row out of 7 columns from col: cell name and index, run id, iteration, state, reason,
 * metrics. */
static void report_row_at(cJSON *o, sqlite3_stmt *s, int col) {
        row_add_text(o, "cell", s, col);
        row_add_int(o, "cell_index", s, col + 1);
        row_add_text(o, "id", s, col + 2);
        cJSON_AddNumberToObject(o, "iteration", sqlite3_column_int(s, col + 3) + 1);
        row_add_text(o, "state", s, col + 4);
        row_add_text(o, "reason", s, col + 5);
        row_add_json(o, "metrics", s, col + 6);
}

static void report_row(cJSON *o, sqlite3_stmt *s) {
        report_row_at(o, s, 0);
}

int experiments_report_rows(struct db_conn *c, const char *id, cJSON **ret_rows, cJSON **ret_cells, char ret_status[EXPERIMENT_STATUS_SIZE]) {
        static const char sql_exp[] = "SELECT status FROM experiments WHERE id = ?";
        static const char sql_cells[] = "SELECT name FROM cells WHERE experiment_id = ? ORDER BY idx";
        static const char sql[] =
                "SELECT c.name, c.idx, r.id, r.iteration, r.state, r.reason, r.metrics"
                "  FROM runs r JOIN cells c ON c.experiment_id = r.experiment_id AND c.idx = r.cell_idx"
                " WHERE r.experiment_id = ? ORDER BY c.idx, r.iteration";
        sqlite3_stmt *e _cleanup_stmt_ = NULL, *cs _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql_exp, id, &e);
        if (r < 0)
                return r;
        char status[EXPERIMENT_STATUS_SIZE];
        snprintf(status, sizeof status, "%s", (const char *) sqlite3_column_text(e, 0));
        if ((r = db_stmt(c, sql_cells, &cs)) < 0 || (r = db_stmt(c, sql, &s)) < 0)
                return r;
        db_bind_text(cs, 1, id);
        db_bind_text(s, 1, id);
        _cleanup_json_ cJSON *cells = cJSON_CreateArray(), *rows = cJSON_CreateArray();
        while ((r = db_step(cs)) > 0)
                cJSON_AddItemToArray(cells, cJSON_CreateString((const char *) sqlite3_column_text(cs, 0)));
        if (r < 0)
                return r;
        if ((r = rows_append_json(s, rows, report_row)) < 0)
                return r;
        *ret_rows = TAKE_PTR(rows);
        *ret_cells = TAKE_PTR(cells);
        memcpy(ret_status, status, sizeof status);
        return 0;
}

int experiments_series_json(struct db_conn *c, const char *labels_json, const char *cell, const char *json_path,
                            int64_t limit, cJSON **ret, bool *ret_truncated) {
        /* The newest limit + 1 (one more tells whether older ones were left out), then what their
         * succeeded runs of the cell hold at json_path, oldest experiment first. SQLite picks the
         * one value out of each run's metrics: parsing whole metrics into cJSON was most of the
         * time of a series (issue 29). "->" gives the value's text as stored, so that cJSON reads
         * the same double as the report does; a run whose metrics are not JSON (an imported
         * bundle's bytes are checked, not parsed) has no value rather than failing the query. The
         * unary + keeps the runs' state index out of the join: the experiment's runs are few. */
        static const char sql[] =
                "WITH chosen AS ("
                "  SELECT e.rowid AS rid, e.id, e.name, e.status, e.created_wall_ns, e.finished_wall_ns, c.idx"
                "    FROM experiments e JOIN cells c ON c.experiment_id = e.id AND c.name = ?1"
                "   WHERE e.status IN ('succeeded','partial','failed','cancelled')"
                "     AND " LABELS_INCLUDE("?2", "e")
                "   ORDER BY e.created_wall_ns DESC, e.rowid DESC LIMIT ?3)"
                " SELECT ch.id, ch.name, ch.status, ch.created_wall_ns, ch.finished_wall_ns,"
                "        CASE WHEN json_valid(r.metrics) THEN r.metrics -> ?4 END, r.id"
                "   FROM chosen ch LEFT JOIN runs r"
                "     ON r.experiment_id = ch.id AND r.cell_idx = ch.idx AND +r.state = 'succeeded'"
                "  ORDER BY ch.created_wall_ns, ch.rid, r.iteration";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, cell, &s);
        if (r < 0)
                return r;
        if ((r = db_bind_text(s, 2, labels_json)) < 0 || (r = db_bind_text(s, 4, json_path)) < 0)
                return r;
        sqlite3_bind_int64(s, 3, limit + 1);
        _cleanup_json_ cJSON *list = cJSON_CreateArray();
        cJSON *current = NULL, *values = NULL;
        while ((r = db_step(s)) > 0) {
                const char *id = (const char *) sqlite3_column_text(s, 0);
                if (!current || strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(current, "id")), id) != 0) {
                        current = cJSON_CreateObject();
                        cJSON_AddItemToArray(list, current);
                        row_add_text(current, "id", s, 0);
                        row_add_text(current, "name", s, 1);
                        row_add_text(current, "status", s, 2);
                        row_add_time(current, "created_at", s, 3);
                        row_add_time(current, "finished_at", s, 4);
                        values = cJSON_AddArrayToObject(current, "values");
                }
                if (sqlite3_column_type(s, 6) == SQLITE_NULL)
                        continue;
                const char *v = (const char *) sqlite3_column_text(s, 5);
                cJSON *j = v ? cJSON_Parse(v) : NULL;
                cJSON_AddItemToArray(values, j ? j : cJSON_CreateNull());
        }
        if (r < 0)
                return r;
        bool truncated = cJSON_GetArraySize(list) > limit;
        if (truncated)
                cJSON_DeleteItemFromArray(list, 0);
        *ret = TAKE_PTR(list);
        *ret_truncated = truncated;
        return 0;
}

int experiments_stop_after_failures(struct db_conn *c, const char *id, unsigned max_failures,
                                    int64_t *ret_cancelled, char *reason, size_t reason_size) {
        /* The runs that ran to an end, latest end first: a cancelled or interrupted run says
         * nothing about the definition and neither breaks nor extends a streak. */
        static const char sql[] =
                "SELECT r.state, r.reason, r.message FROM runs r"
                " WHERE r.experiment_id = ?1 AND r.state IN ('succeeded','failed')"
                " ORDER BY (SELECT max(e.wall_ns) FROM run_events e WHERE e.run_id = r.id) DESC, r.position DESC"
                " LIMIT ?2";
        *ret_cancelled = 0;
        if (max_failures == 0)
                return 0;
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt_text(c, sql, id, &s)) < 0)
                return r;
        sqlite3_bind_int64(s, 2, max_failures);
        char first[48] = "", message[512] = "";
        unsigned n = 0;
        while ((r = db_step(s)) > 0) {
                const char *state = (const char *) sqlite3_column_text(s, 0);
                const char *why = (const char *) sqlite3_column_text(s, 1);
                if (strcmp(state, "failed") != 0 || !why || (n > 0 && strcmp(why, first) != 0))
                        return 0;
                if (n++ == 0) {
                        snprintf(first, sizeof first, "%s", why);
                        const char *m = (const char *) sqlite3_column_text(s, 2);
                        /* The first line is enough to say why: the rest is the SUT's stderr tail. */
                        snprintf(message, sizeof message, "%.*s", m ? (int) strcspn(m, "\n") : 0, m ? m : "");
                }
        }
        if (r < 0 || n < max_failures)
                return r < 0 ? r : 0;
        db_stmt_resetp(&s);
        char text[1024];
        snprintf(text, sizeof text, "cancelled: the last %u runs of the experiment failed with the same reason (%s): %s",
                 max_failures, first, message);
        int64_t cancelled = 0;
        if ((r = cancel_queued(c, id, "repeated_failure", text, &cancelled)) < 0 ||
            (r = run_state_refresh_experiment(c, id)) < 0 || (r = db_txn_commit(&t)) < 0)
                return r;
        *ret_cancelled = cancelled;
        snprintf(reason, reason_size, "%s", text);
        return 0;
}

int experiments_definition_json(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] = "SELECT definition FROM experiments WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        cJSON *d = cJSON_Parse((const char *) sqlite3_column_text(s, 0));
        if (!d)
                return -EBADMSG;
        *ret = d;
        return 0;
}

int experiments_host_snapshot_json(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] =
                "SELECT h.data FROM host_snapshots h JOIN runs r ON r.id = h.run_id"
                " WHERE r.experiment_id = ? ORDER BY h.taken_wall_ns DESC, h.id DESC LIMIT 1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        *ret = cJSON_Parse((const char *) sqlite3_column_text(s, 0));
        return 0;
}
