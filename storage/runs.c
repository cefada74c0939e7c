/* runs.c: run states, transitions and reads. */
#include "storage/runs.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "storage/run-state.h"
#include "storage/row-json.h"
#include "basic/time-util.h"

int runs_count_queue(struct db_conn *c, int64_t *ret_queued, int64_t *ret_active) {
        /* The counts schema 6's triggers keep: a few rows, however long the queue (each POST
         * reads them in its write transaction, and so does every wake of the loop). */
        static const char sql[] =
                "SELECT (SELECT runs FROM run_state_counts WHERE state = 'queued'),"
                "       (SELECT sum(runs) FROM run_state_counts WHERE state IN " RUN_STATES_ACTIVE_SQL ")";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        r = db_step(s);
        if (r < 0)
                return r;
        if (r == 0)
                return -EIO;
        *ret_queued = sqlite3_column_int64(s, 0);
        *ret_active = sqlite3_column_int64(s, 1);
        return 0;
}

int runs_count_inserted(struct db_conn *c, const char *experiment_id) {
        static const char sql[] =
                "UPDATE run_state_counts SET runs = runs +"
                " (SELECT count(*) FROM runs r WHERE r.experiment_id = ?1 AND r.state = run_state_counts.state)";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, experiment_id, &s);
        if (r < 0)
                return r;
        r = db_step(s);
        return r < 0 ? r : 0;
}

static void history_row(cJSON *ev, sqlite3_stmt *s) {
        row_add_text(ev, "state", s, 0);
        row_add_time(ev, "at", s, 1);
        row_add_int(ev, "mono_ns", s, 2);
        row_add_text(ev, "message", s, 3);
}

static int add_history(struct db_conn *c, const char *run_id, cJSON *o) {
        static const char sql[] =
                "SELECT state, wall_ns, mono_ns, message FROM run_events WHERE run_id = ? ORDER BY seq";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        return rows_append_json(s, cJSON_AddArrayToObject(o, "states"), history_row);
}

int runs_get_json(struct db_conn *c, const char *run_id, cJSON **ret) {
        static const char sql[] =
                "SELECT r.id, r.experiment_id, c.name, c.idx, c.definition, r.iteration, r.position, r.state,"
                "       r.reason, r.message, r.sut_slice, r.load_slice, r.exit_status, r.metrics, r.warnings"
                "  FROM runs r JOIN cells c ON c.experiment_id = r.experiment_id AND c.idx = r.cell_idx"
                " WHERE r.id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        row_add_text(o, "id", s, 0);
        row_add_text(o, "experiment_id", s, 1);
        row_add_text(o, "cell", s, 2);
        cJSON_AddNumberToObject(o, "iteration", sqlite3_column_int(s, 5) + 1);
        row_add_text(o, "state", s, 7);
        row_add_text(o, "reason", s, 8);
        row_add_text(o, "message", s, 9);
        row_add_json(o, "parameters", s, 4);
        if (sqlite3_column_type(s, 10) == SQLITE_NULL)
                cJSON_AddNullToObject(o, "slices");
        else {
                cJSON *slices = cJSON_AddObjectToObject(o, "slices");
                row_add_text(slices, "sut", s, 10);
                row_add_text(slices, "load", s, 11);
        }
        cJSON *exit_status = sqlite3_column_type(s, 12) == SQLITE_NULL ? NULL
                             : cJSON_Parse((const char *) sqlite3_column_text(s, 12));
        if (!exit_status) {
                exit_status = cJSON_CreateObject();
                cJSON_AddNullToObject(exit_status, "sut");
                cJSON_AddNullToObject(exit_status, "load");
        }
        cJSON_AddItemToObject(o, "exit", exit_status);
        row_add_json(o, "metrics", s, 13);
        row_add_json(o, "warnings", s, 14);
        if ((r = add_history(c, run_id, o)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

/* Fills element i of rows from the statement's current row; 0 or negative errno, leaving the
 * element for free_rows to free either way. */
typedef int (*queue_row_fn)(void *rows, size_t i, sqlite3_stmt *s);
typedef void (*queue_free_fn)(void *rows, size_t n);

/* One of the scheduler's reads of the queue, sql taking the limit as ?1 and the experiment_seq to
 * start after as ?2: at most max rows into a new array of elements of size bytes, each filled by
 * row. On failure what was read is freed by free_rows and *ret and *ret_n are untouched. */
static int queue_read(struct db_conn *c, const char *sql, int64_t after_seq, size_t max, size_t size,
                      queue_row_fn row, queue_free_fn free_rows, void **ret, size_t *ret_n) {
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, (int64_t) max);
        sqlite3_bind_int64(s, 2, after_seq);
        void *rows = calloc(max ? max : 1, size);
        if (!rows)
                return -ENOMEM;
        size_t n = 0;
        while (n < max && (r = db_step(s)) > 0) {
                r = row(rows, n++, s);
                if (r < 0)
                        break;
        }
        if (r < 0) {
                free_rows(rows, n);
                return r;
        }
        *ret = rows;
        *ret_n = n;
        return 0;
}

void queued_runs_free(struct queued_run *runs, size_t n) {
        for (size_t i = 0; runs && i < n; i++)
                free(runs[i].definition);
        free(runs);
}

static void queued_runs_free_rows(void *rows, size_t n) {
        queued_runs_free(rows, n);
}

static int queued_run_row(void *rows, size_t i, sqlite3_stmt *s) {
        struct queued_run *q = (struct queued_run *) rows + i;
        snprintf(q->id, sizeof q->id, "%s", (const char *) sqlite3_column_text(s, 0));
        snprintf(q->experiment_id, sizeof q->experiment_id, "%s", (const char *) sqlite3_column_text(s, 1));
        q->cell_idx = sqlite3_column_int64(s, 2);
        q->experiment_seq = sqlite3_column_int64(s, 4);
        q->definition = strdup((const char *) sqlite3_column_text(s, 3));
        return q->definition ? 0 : -ENOMEM;
}

/* Queued runs belong to experiments queued or running. Each status read through its index, in
 * rowid order, and the two merged: the head of the queue costs the same with 10 runs queued or
 * 10000 (ordered over runs_by_state, every queued run was sorted on each call). */
#define QUEUED_OF(status) \
        "SELECT r.id, r.experiment_id, r.cell_idx, e.definition, e.rowid AS seq, r.position AS pos" \
        "  FROM experiments e CROSS JOIN runs r ON r.experiment_id = e.id" \
        " WHERE e.status = '" status "' AND e.rowid > ?2 AND r.state = 'queued'"

int runs_next_queued(struct db_conn *c, int64_t after_seq, size_t max, struct queued_run **ret, size_t *ret_n) {
        static const char sql[] =
                QUEUED_OF("running") " UNION ALL " QUEUED_OF("queued") " ORDER BY seq, pos LIMIT ?1";
        void *rows;
        int r = queue_read(c, sql, after_seq, max, sizeof **ret, queued_run_row, queued_runs_free_rows,
                           &rows, ret_n);
        if (r < 0)
                return r;
        *ret = rows;
        return 0;
}

void queued_cells_free(struct queued_cells *q, size_t n) {
        for (size_t i = 0; q && i < n; i++)
                free(q[i].definition);
        free(q);
}

static void queued_cells_free_rows(void *rows, size_t n) {
        queued_cells_free(rows, n);
}

static int queued_cells_row(void *rows, size_t i, sqlite3_stmt *s) {
        struct queued_cells *e = (struct queued_cells *) rows + i;
        snprintf(e->experiment_id, sizeof e->experiment_id, "%s", (const char *) sqlite3_column_text(s, 0));
        e->experiment_seq = sqlite3_column_int64(s, 1);
        e->cells = (uint64_t) sqlite3_column_int64(s, 3);
        e->definition = strdup((const char *) sqlite3_column_text(s, 2));
        return e->definition ? 0 : -ENOMEM;
}

#define QUEUE_EXPERIMENTS_OF(status) \
        "SELECT rowid AS seq, id, definition, status FROM experiments WHERE status = '" status "' AND rowid > ?2"

int runs_queued_cells(struct db_conn *c, int64_t after_seq, size_t max, struct queued_cells **ret, size_t *ret_n) {
        /* The unary + keeps the runs' state index out of a running experiment's subquery: its runs
         * are read through (experiment_id, position), not every queued run of the store. */
        static const char sql[] =
                "SELECT e.id, e.seq, e.definition, CASE e.status"
                "  WHEN 'queued' THEN (SELECT sum(1 << c.idx) FROM cells c"
                "                       WHERE c.experiment_id = e.id AND c.idx BETWEEN 0 AND 63)"
                "  ELSE (SELECT sum(DISTINCT 1 << r.cell_idx) FROM runs r"
                "         WHERE r.experiment_id = e.id AND +r.state = 'queued' AND r.cell_idx BETWEEN 0 AND 63) END"
                "  FROM (" QUEUE_EXPERIMENTS_OF("running") " UNION ALL " QUEUE_EXPERIMENTS_OF("queued")
                "        ORDER BY seq LIMIT ?1) e"
                " ORDER BY e.seq";
        void *rows;
        int r = queue_read(c, sql, after_seq, max, sizeof **ret, queued_cells_row, queued_cells_free_rows,
                           &rows, ret_n);
        if (r < 0)
                return r;
        *ret = rows;
        return 0;
}

int runs_set_slices(struct db_conn *c, const char *run_id, const char *sut, const char *load) {
        static const char sql[] = "UPDATE runs SET sut_slice = ?2, load_slice = ?3 WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        db_bind_text(s, 2, sut);
        db_bind_text(s, 3, load);
        r = db_step(s);
        return r < 0 ? r : 0;
}

int runs_store_host_snapshot(struct db_conn *c, const char *run_id, const char *host_json) {
        static const char sql[] = "INSERT INTO host_snapshots(run_id, taken_wall_ns, data) VALUES (?1, ?2, ?3)";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, now_wall_ns());
        if ((r = db_bind_text(s, 3, host_json)) < 0)
                return r;
        r = db_step(s);
        return r < 0 ? r : 0;
}

int runs_set_measure_start(struct db_conn *c, const char *run_id, int64_t mono_ns) {
        static const char sql[] = "UPDATE runs SET measure_start_ns = ?2 WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, mono_ns);
        r = db_step(s);
        return r < 0 ? r : 0;
}

int runs_advance(struct db_conn *c, const char *run_id, const char *experiment_id, const char *state,
                 const char *reason, const char *message) {
        return runs_finish(c, run_id, experiment_id, state, reason, message, NULL, NULL, NULL);
}

int runs_finish(struct db_conn *c, const char *run_id, const char *experiment_id, const char *state,
                const char *reason, const char *message, const char *exit_json, const char *metrics_json,
                const char *warnings_json) {
        static const char sql[] =
                "UPDATE runs SET exit_status = coalesce(?2, exit_status), metrics = coalesce(?3, metrics),"
                " warnings = coalesce(?4, warnings) WHERE id = ?1";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        if (exit_json || metrics_json || warnings_json) {
                sqlite3_stmt *s _cleanup_stmt_ = NULL;
                if ((r = db_stmt(c, sql, &s)) < 0)
                        return r;
                db_bind_text(s, 1, run_id);
                db_bind_text(s, 2, exit_json);
                db_bind_text(s, 3, metrics_json);
                db_bind_text(s, 4, warnings_json);
                if ((r = db_step(s)) < 0)
                        return r;
        }
        if ((r = run_state_transition(c, run_id, state, reason, message)) < 0 ||
            (r = run_state_refresh_experiment(c, experiment_id)) < 0)
                return r;
        return db_txn_commit(&t);
}

int runs_interrupt_unfinished(struct db_conn *c, const char *message, int64_t *ret_count) {
        static const char sql[] =
                "SELECT id, experiment_id FROM runs WHERE state IN"
                " " RUN_STATES_ACTIVE_SQL;
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql, &s)) < 0)
                return r;
        /* Few rows (at most --max-parallel): collect, then change. */
        char ids[64][2][13];
        size_t n = 0;
        while (n < ELEMENTSOF(ids) && (r = db_step(s)) > 0) {
                snprintf(ids[n][0], 13, "%s", (const char *) sqlite3_column_text(s, 0));
                snprintf(ids[n][1], 13, "%s", (const char *) sqlite3_column_text(s, 1));
                n++;
        }
        if (r < 0)
                return r;
        db_stmt_resetp(&s);
        for (size_t i = 0; i < n; i++)
                if ((r = run_state_transition(c, ids[i][0], "interrupted", "daemon_restart", message)) < 0 ||
                    (r = run_state_refresh_experiment(c, ids[i][1])) < 0)
                        return r;
        if ((r = db_txn_commit(&t)) < 0)
                return r;
        *ret_count = (int64_t) n;
        return 0;
}

int runs_measure_start(struct db_conn *c, const char *run_id, int64_t *ret) {
        static const char sql[] = "SELECT measure_start_ns FROM runs WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_value(c, sql, run_id, &s);
        if (r < 0)
                return r;
        *ret = sqlite3_column_int64(s, 0);
        return 0;
}

int runs_wall_offset(struct db_conn *c, const char *run_id, int64_t *ret) {
        static const char sql[] = "SELECT wall_ns - mono_ns FROM run_events WHERE run_id = ?"
                                  " ORDER BY state = 'measuring' DESC, seq LIMIT 1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, run_id, &s);
        if (r < 0)
                return r == -ENOENT ? -ENODATA : r;
        *ret = sqlite3_column_int64(s, 0);
        return 0;
}

int runs_overview(struct db_conn *c, struct runs_overview *ret) {
        static const char sql_states[] = "SELECT state, runs FROM run_state_counts";
        static const char sql_durations[] =
                "SELECT count(*), coalesce(sum(e.end_ns - e.start_ns), 0) FROM ("
                "  SELECT min(CASE WHEN state = 'preparing' THEN mono_ns END) AS start_ns,"
                "         max(CASE WHEN state IN ('succeeded','failed','cancelled','interrupted') THEN mono_ns END) AS end_ns"
                "    FROM run_events GROUP BY run_id) e"
                " WHERE e.start_ns IS NOT NULL AND e.end_ns IS NOT NULL AND e.end_ns >= e.start_ns";
        struct runs_overview o = { 0 };
        sqlite3_stmt *s _cleanup_stmt_ = NULL, *d _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql_states, &s);
        if (r < 0)
                return r;
        while ((r = db_step(s)) > 0) {
                int state = run_state_from_string((const char *) sqlite3_column_text(s, 0));
                if (state >= 0)
                        o.by_state[state] = sqlite3_column_int64(s, 1);
        }
        if (r < 0 || (r = db_stmt(c, sql_durations, &d)) < 0 || (r = db_step(d)) < 0)
                return r;
        if (r > 0) {
                o.finished = sqlite3_column_int64(d, 0);
                o.duration_sum_s = (double) sqlite3_column_int64(d, 1) / NSEC_PER_SEC;
        }
        *ret = o;
        return 0;
}

static void latest_row(cJSON *o, sqlite3_stmt *s) {
        row_add_text(o, "experiment", s, 0);
        row_add_text(o, "experiment_id", s, 1);
        row_add_text(o, "cell", s, 2);
        static const char *const nums[] = { "throughput_rps", "p99_us", "ops_per_s" };
        for (int i = 0; i < 3; i++) {
                if (sqlite3_column_type(s, 3 + i) == SQLITE_NULL)
                        cJSON_AddNullToObject(o, nums[i]);
                else
                        cJSON_AddNumberToObject(o, nums[i], sqlite3_column_double(s, 3 + i));
        }
}

int runs_latest_per_cell(struct db_conn *c, int experiments, cJSON **ret) {
        static const char sql[] =
                "SELECT e.name, e.id, c.name,"
                "       json_extract(r.metrics, '$.throughput_rps'),"
                "       json_extract(r.metrics, '$.latency_us.scheduled.p99'),"
                "       json_extract(r.metrics, '$.ops_per_s')"
                "  FROM (SELECT id, name, rowid AS rid FROM experiments ORDER BY rowid DESC LIMIT ?) e"
                "  JOIN cells c ON c.experiment_id = e.id"
                "  JOIN runs r ON r.id = (SELECT r2.id FROM runs r2 WHERE r2.experiment_id = e.id AND r2.cell_idx = c.idx"
                "                          AND r2.state = 'succeeded' ORDER BY r2.position DESC LIMIT 1)"
                " ORDER BY e.rid DESC, c.idx";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int(s, 1, experiments);
        cJSON *a = cJSON_CreateArray();
        r = rows_append_json(s, a, latest_row);
        if (r < 0) {
                cJSON_Delete(a);
                return r;
        }
        *ret = a;
        return 0;
}

int runs_is_finished(struct db_conn *c, const char *run_id, bool *ret) {
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, "SELECT state FROM runs WHERE id = ?", run_id, &s);
        if (r < 0)
                return r;
        *ret = run_state_is_terminal(run_state_from_string((const char *) sqlite3_column_text(s, 0)));
        return 0;
}

int runs_known(struct db_conn *c, const char *run_id, bool *ret) {
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, "SELECT 1 FROM runs WHERE id = ?1", run_id, &s);
        if (r < 0 && r != -ENOENT)
                return r;
        *ret = r == 0;
        return 0;
}
