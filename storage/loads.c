/* loads.c: the rows of peer loads (see loads.h). */
#include "storage/loads.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "storage/row-json.h"
#include "storage/run-state.h"

#define HOLDING_SCAN_MAX 256

/* 409 when a run is in progress: a load beside it would disturb what it measures. */
static int check_no_active_run(struct db_conn *c, struct error *err) {
        static const char sql[] = "SELECT id FROM runs WHERE state IN " RUN_STATES_ACTIVE_SQL " LIMIT 1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0 || (r = db_step(s)) <= 0)
                return r;
        error_set(err, 409, "cpus_busy", "cpus", "run %s is in progress on this host", sqlite3_column_text(s, 0));
        return -EBUSY;
}

/* 409 when a queued or running load holds one of cpus. */
static int check_cpus_free(struct db_conn *c, const struct cpulist *cpus, struct error *err) {
        static const char sql[] = "SELECT id, cpus FROM loads WHERE state IN " LOAD_STATES_HOLDING_SQL;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        while ((r = db_step(s)) > 0) {
                struct cpulist held;
                if (cpulist_parse((const char *) sqlite3_column_text(s, 1), &held) < 0 || !cpulist_intersects(&held, cpus))
                        continue;
                error_set(err, 409, "cpus_busy", "cpus", "load %s holds CPUs %s on this host", sqlite3_column_text(s, 0),
                          sqlite3_column_text(s, 1));
                return -EBUSY;
        }
        return r;
}

int loads_insert(struct db_conn *c, const struct load_new *l, struct error *err) {
        static const char sql[] =
                "INSERT INTO loads(id, state, coordinator, coordinator_run, host, cpus, definition, phase_ns, seed,"
                "  start_at_ns, lease_s, lease_expires_ns, created_wall_ns)"
                " VALUES (?1, 'queued', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
        char cpus[CPULIST_MAX * 4];
        int r = cpulist_format(&l->cpus, cpus, sizeof cpus);
        if (r < 0)
                return r;
        struct db_txn t _cleanup_txn_ = { 0 };
        if ((r = db_txn_begin(c, &t)) < 0 || (r = check_no_active_run(c, err)) < 0 ||
            (r = check_cpus_free(c, &l->cpus, err)) < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql, &s)) < 0)
                return r;
        db_bind_text(s, 1, l->id);
        db_bind_text(s, 2, l->coordinator);
        db_bind_text(s, 3, l->coordinator_run);
        db_bind_text(s, 4, l->host);
        db_bind_text(s, 5, cpus);
        db_bind_text(s, 6, l->definition);
        sqlite3_bind_int64(s, 7, l->phase_ns);
        sqlite3_bind_int64(s, 8, (int64_t) l->seed);
        sqlite3_bind_int64(s, 9, l->start_at_ns);
        sqlite3_bind_int64(s, 10, l->lease_s);
        sqlite3_bind_int64(s, 11, l->now_ns + (int64_t) l->lease_s * NSEC_PER_SEC);
        sqlite3_bind_int64(s, 12, now_wall_ns());
        if ((r = db_step(s)) < 0)
                return r;
        return db_txn_commit(&t);
}

int loads_get_json(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] =
                "SELECT id, state, reason, message, coordinator, coordinator_run, host, cpus, start_at_ns, summary"
                "  FROM loads WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        static const char *const names[] = { "id", "state", "reason", "message", "coordinator", "coordinator_run", "host", "cpus" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                row_add_text(o, names[i], s, (int) i);
        row_add_int(o, "start_at_ns", s, 8);
        row_add_json(o, "summary", s, 9);
        *ret = TAKE_PTR(o);
        return 0;
}

int loads_is_finished(struct db_conn *c, const char *id, bool *ret_finished) {
        static const char sql[] = "SELECT state IN " LOAD_STATES_FINISHED_SQL " FROM loads WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        *ret_finished = sqlite3_column_int(s, 0) != 0;
        return 0;
}

void queued_loads_free(struct queued_load *l, size_t n) {
        for (size_t i = 0; l && i < n; i++)
                free(l[i].definition);
        free(l);
}

int loads_next_queued(struct db_conn *c, size_t max, struct queued_load **ret, size_t *ret_n) {
        static const char sql[] =
                "SELECT id, cpus, definition, phase_ns, seed, start_at_ns FROM loads"
                " WHERE state = 'queued' ORDER BY rowid LIMIT ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, (int64_t) max);
        struct queued_load *l = calloc(max ? max : 1, sizeof *l);
        if (!l)
                return -ENOMEM;
        size_t n = 0;
        while (n < max && (r = db_step(s)) > 0) {
                struct queued_load *q = &l[n++];
                snprintf(q->id, sizeof q->id, "%s", (const char *) sqlite3_column_text(s, 0));
                if (cpulist_parse((const char *) sqlite3_column_text(s, 1), &q->cpus) < 0)
                        q->cpus = (struct cpulist){ 0 };
                q->definition = strdup((const char *) sqlite3_column_text(s, 2));
                q->phase_ns = sqlite3_column_int64(s, 3);
                q->seed = (uint64_t) sqlite3_column_int64(s, 4);
                q->start_at_ns = sqlite3_column_int64(s, 5);
                if (!q->definition) {
                        r = -ENOMEM;
                        break;
                }
        }
        if (r < 0) {
                queued_loads_free(l, n);
                return r;
        }
        *ret = l;
        *ret_n = n;
        return 0;
}

int loads_holding_cpus(struct db_conn *c, struct cpulist *ret) {
        static const char sql[] = "SELECT cpus FROM loads WHERE state IN " LOAD_STATES_HOLDING_SQL;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        struct cpulist all = { 0 };
        while ((r = db_step(s)) > 0) {
                struct cpulist one;
                if (cpulist_parse((const char *) sqlite3_column_text(s, 0), &one) >= 0)
                        cpulist_union(&all, &one);
        }
        if (r < 0)
                return r;
        *ret = all;
        return 0;
}

/* One UPDATE by id with text parameters ?2.. (NULL binds NULL); -ENOENT when no row changed. */
static int update_text(struct db_conn *c, const char *sql, const char *id, const char *const *params, size_t n) {
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        db_bind_text(s, 1, id);
        for (size_t i = 0; i < n; i++)
                db_bind_text(s, (int) i + 2, params[i]);
        if ((r = db_step(s)) < 0)
                return r;
        return sqlite3_changes(db_handle(c)) == 0 ? -ENOENT : 0;
}

int loads_set_running(struct db_conn *c, const char *id, const char *slice) {
        static const char sql[] = "UPDATE loads SET state = 'running', slice = ?2 WHERE id = ?1 AND state = 'queued'";
        int r = update_text(c, sql, id, (const char *const[]){ slice }, 1);
        return r == -ENOENT ? -ESTALE : r;
}

int loads_finish(struct db_conn *c, const char *id, const char *state, const char *reason, const char *message,
                 const char *summary) {
        static const char sql[] =
                "UPDATE loads SET state = ?2, reason = ?3, message = ?4, summary = ?5, finished_wall_ns = ?6"
                " WHERE id = ?1 AND state IN " LOAD_STATES_HOLDING_SQL;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        db_bind_text(s, 1, id);
        db_bind_text(s, 2, state);
        db_bind_text(s, 3, reason);
        db_bind_text(s, 4, message);
        db_bind_text(s, 5, summary);
        sqlite3_bind_int64(s, 6, now_wall_ns());
        r = db_step(s);
        return r < 0 ? r : 0;
}

/* -ENOENT for no such load, -EALREADY for a finished one, else 0. */
static int check_holding(struct db_conn *c, const char *id) {
        bool finished;
        int r = loads_is_finished(c, id, &finished);
        if (r < 0)
                return r;
        return finished ? -EALREADY : 0;
}

int loads_request_cancel(struct db_conn *c, const char *id) {
        static const char sql[] = "UPDATE loads SET cancel_requested = 1 WHERE id = ?1";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0 || (r = check_holding(c, id)) < 0 || (r = update_text(c, sql, id, NULL, 0)) < 0)
                return r;
        return db_txn_commit(&t);
}

int loads_lease(struct db_conn *c, const char *id, int64_t *ret_expires_ns, bool *ret_cancel) {
        static const char sql[] = "SELECT lease_expires_ns, cancel_requested FROM loads WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        *ret_expires_ns = sqlite3_column_int64(s, 0);
        *ret_cancel = sqlite3_column_int(s, 1) != 0;
        return 0;
}

int loads_renew(struct db_conn *c, const char *id, int64_t now_ns, int64_t *ret_expires_ns) {
        static const char sql[] =
                "UPDATE loads SET lease_expires_ns = ?2 + lease_s * 1000000000 WHERE id = ?1"
                " RETURNING lease_expires_ns";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0 || (r = check_holding(c, id)) < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql, &s)) < 0)
                return r;
        db_bind_text(s, 1, id);
        sqlite3_bind_int64(s, 2, now_ns);
        if ((r = db_step(s)) <= 0)
                return r < 0 ? r : -ENOENT;
        int64_t expires = sqlite3_column_int64(s, 0);
        db_stmt_resetp(&s);
        if ((r = db_txn_commit(&t)) < 0)
                return r;
        *ret_expires_ns = expires;
        return 0;
}

int loads_interrupt_unfinished(struct db_conn *c, const char *message, int64_t *ret_count) {
        static const char sql[] =
                "UPDATE loads SET state = 'interrupted', reason = 'daemon_restart', message = ?1, finished_wall_ns = ?2"
                " WHERE state IN " LOAD_STATES_HOLDING_SQL;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        db_bind_text(s, 1, message);
        sqlite3_bind_int64(s, 2, now_wall_ns());
        if ((r = db_step(s)) < 0)
                return r;
        *ret_count = sqlite3_changes(db_handle(c));
        return 0;
}

int loads_known(struct db_conn *c, const char *id, bool *ret) {
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, "SELECT 1 FROM loads WHERE id = ?1", id, &s);
        if (r < 0 && r != -ENOENT)
                return r;
        *ret = r == 0;
        return 0;
}
