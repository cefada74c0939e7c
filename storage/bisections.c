/* bisections.c: bisections in the store (see bisections.h). */
#include "storage/bisections.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "storage/row-json.h"

void bisection_row_done(struct bisection_row *r) {
        free(r->request);
        r->request = NULL;
}

static void copy_column(char *buf, size_t size, sqlite3_stmt *s, int col) {
        const unsigned char *t = sqlite3_column_text(s, col);
        snprintf(buf, size, "%s", t ? (const char *) t : "");
}

int bisections_create(struct db_conn *c, const char *name, const char *request_json, unsigned n_versions,
                      char ret_id[ID_LEN + 1]) {
        static const char sql[] = "INSERT INTO bisections(id, name, created_wall_ns, status, request, n_versions, lo, hi)"
                                  " VALUES (?1, ?2, ?3, 'queued', ?4, ?5, 0, ?5 - 1)";
        char id[ID_LEN + 1];
        int r = id_generate(id);
        if (r < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt_text(c, sql, id, &s)) < 0 || (r = db_bind_text(s, 2, name)) < 0 ||
            (r = db_bind_text(s, 4, request_json)) < 0)
                return r;
        sqlite3_bind_int64(s, 3, now_wall_ns());
        sqlite3_bind_int(s, 5, (int) n_versions);
        if ((r = db_step(s)) < 0)
                return r;
        memcpy(ret_id, id, sizeof id);
        return 0;
}

int bisections_get(struct db_conn *c, const char *id, struct bisection_row *ret) {
        static const char sql[] = "SELECT status, request, n_versions, lo, hi FROM bisections WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        char *request = strdup((const char *) sqlite3_column_text(s, 1));
        if (!request)
                return -ENOMEM;
        *ret = (struct bisection_row){ .request = request,
                                       .n_versions = (unsigned) sqlite3_column_int(s, 2),
                                       .lo = (unsigned) sqlite3_column_int(s, 3),
                                       .hi = (unsigned) sqlite3_column_int(s, 4) };
        snprintf(ret->id, sizeof ret->id, "%s", id);
        copy_column(ret->status, sizeof ret->status, s, 0);
        return 0;
}

int bisections_open(struct db_conn *c, char (*ret)[ID_LEN + 1], size_t max, size_t *ret_n) {
        static const char sql[] = "SELECT id FROM bisections WHERE status IN ('queued','running') ORDER BY created_wall_ns, id";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        size_t n = 0;
        while (n < max && (r = db_step(s)) > 0)
                copy_column(ret[n++], ID_LEN + 1, s, 0);
        if (r < 0)
                return r;
        *ret_n = n;
        return 0;
}

static void step_from_row(sqlite3_stmt *s, struct bisection_step_row *ret) {
        *ret = (struct bisection_step_row){ .step = (unsigned) sqlite3_column_int(s, 0),
                                            .lo = (unsigned) sqlite3_column_int(s, 1),
                                            .mid = (unsigned) sqlite3_column_int(s, 2),
                                            .attempt = (unsigned) sqlite3_column_int(s, 3) };
        copy_column(ret->experiment_id, sizeof ret->experiment_id, s, 4);
        copy_column(ret->decision, sizeof ret->decision, s, 5);
}

int bisections_last_step(struct db_conn *c, const char *id, struct bisection_step_row *ret) {
        static const char sql[] = "SELECT step, lo, mid, attempt, experiment_id, decision FROM bisection_steps"
                                  " WHERE bisection_id = ? ORDER BY step DESC LIMIT 1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, id, &s);
        if (r < 0)
                return r;
        step_from_row(s, ret);
        return 0;
}

int bisections_add_step(struct db_conn *c, const char *id, const struct bisection_step_row *step) {
        static const char sql[] = "INSERT INTO bisection_steps(bisection_id, step, lo, mid, attempt, experiment_id)"
                                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
        static const char sql_running[] = "UPDATE bisections SET status = 'running' WHERE id = ? AND status = 'queued'";
        struct db_txn t _cleanup_txn_ = { 0 };
        sqlite3_stmt *s _cleanup_stmt_ = NULL, *u _cleanup_stmt_ = NULL;
        int r = db_txn_begin(c, &t);
        if (r < 0 || (r = db_stmt_text(c, sql, id, &s)) < 0 || (r = db_bind_text(s, 6, step->experiment_id)) < 0)
                return r;
        sqlite3_bind_int(s, 2, (int) step->step);
        sqlite3_bind_int(s, 3, (int) step->lo);
        sqlite3_bind_int(s, 4, (int) step->mid);
        sqlite3_bind_int(s, 5, (int) step->attempt);
        if ((r = db_step(s)) < 0 || (r = db_stmt_text(c, sql_running, id, &u)) < 0 || (r = db_step(u)) < 0)
                return r;
        return db_txn_commit(&t);
}

static void bind_real_or_null(sqlite3_stmt *s, int idx, double v) {
        if (isfinite(v))
                sqlite3_bind_double(s, idx, v);
        else
                sqlite3_bind_null(s, idx);
}

int bisections_decide(struct db_conn *c, const char *id, unsigned step, const char *decision, double ratio,
                      double ci_low, double ci_high, unsigned lo, unsigned hi) {
        static const char sql_step[] = "UPDATE bisection_steps SET decision = ?2, ratio = ?3, ci_low = ?4, ci_high = ?5"
                                       " WHERE bisection_id = ?1 AND step = ?6";
        static const char sql_range[] = "UPDATE bisections SET lo = ?2, hi = ?3 WHERE id = ?1";
        struct db_txn t _cleanup_txn_ = { 0 };
        sqlite3_stmt *s _cleanup_stmt_ = NULL, *u _cleanup_stmt_ = NULL;
        int r = db_txn_begin(c, &t);
        if (r < 0 || (r = db_stmt_text(c, sql_step, id, &s)) < 0 || (r = db_bind_text(s, 2, decision)) < 0)
                return r;
        bind_real_or_null(s, 3, ratio);
        bind_real_or_null(s, 4, ci_low);
        bind_real_or_null(s, 5, ci_high);
        sqlite3_bind_int(s, 6, (int) step);
        if ((r = db_step(s)) < 0 || (r = db_stmt_text(c, sql_range, id, &u)) < 0)
                return r;
        sqlite3_bind_int(u, 2, (int) lo);
        sqlite3_bind_int(u, 3, (int) hi);
        if ((r = db_step(u)) < 0)
                return r;
        return db_txn_commit(&t);
}

int bisections_finish(struct db_conn *c, const char *id, const char *status, const char *outcome, const char *message) {
        static const char sql[] = "UPDATE bisections SET status = ?2, outcome = ?3, message = ?4, finished_wall_ns = ?5"
                                  " WHERE id = ?1 AND status IN ('queued','running')";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, id, &s);
        if (r < 0 || (r = db_bind_text(s, 2, status)) < 0 || (r = db_bind_text(s, 3, outcome)) < 0 ||
            (r = db_bind_text(s, 4, message)) < 0)
                return r;
        sqlite3_bind_int64(s, 5, now_wall_ns());
        if ((r = db_step(s)) < 0)
                return r;
        return sqlite3_changes(db_handle(c)) > 0 ? 0 : -ESTALE;
}

int bisections_experiment_status(struct db_conn *c, const char *experiment_id, char ret[EXPERIMENT_STATUS_SIZE]) {
        static const char sql[] = "SELECT status FROM experiments WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, experiment_id, &s);
        if (r < 0)
                return r;
        copy_column(ret, EXPERIMENT_STATUS_SIZE, s, 0);
        return 0;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* The name of version i of request's versions ("?" if the stored request lacks it). */
static const char *version_name(const cJSON *versions, int i) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(versions, i), "name"));
        return name ? name : "?";
}

static void add_version(cJSON *o, const char *key, const cJSON *versions, int i) {
        if (i >= 0)
                cJSON_AddStringToObject(o, key, version_name(versions, i));
        else
                cJSON_AddNullToObject(o, key);
}

static int steps_json(struct db_conn *c, const char *id, const cJSON *versions, cJSON *steps) {
        static const char sql[] = "SELECT step, lo, mid, attempt, experiment_id, decision, ratio, ci_low, ci_high"
                                  " FROM bisection_steps WHERE bisection_id = ? ORDER BY step";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, id, &s);
        if (r < 0)
                return r;
        while ((r = db_step(s)) > 0) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddItemToArray(steps, o);
                cJSON_AddNumberToObject(o, "step", sqlite3_column_int(s, 0));
                cJSON *pair = cJSON_AddArrayToObject(o, "versions");
                for (int k = 1; k <= 2; k++)
                        cJSON_AddItemToArray(pair, cJSON_CreateString(version_name(versions, sqlite3_column_int(s, k))));
                cJSON_AddNumberToObject(o, "attempt", sqlite3_column_int(s, 3));
                row_add_text(o, "experiment_id", s, 4);
                row_add_text(o, "decision", s, 5);
                if (sqlite3_column_type(s, 6) == SQLITE_NULL)
                        cJSON_AddNullToObject(o, "ratio");
                else
                        cJSON_AddNumberToObject(o, "ratio", sqlite3_column_double(s, 6));
                if (sqlite3_column_type(s, 7) == SQLITE_NULL || sqlite3_column_type(s, 8) == SQLITE_NULL)
                        cJSON_AddNullToObject(o, "interval");
                else {
                        cJSON *iv = cJSON_AddArrayToObject(o, "interval");
                        cJSON_AddItemToArray(iv, cJSON_CreateNumber(sqlite3_column_double(s, 7)));
                        cJSON_AddItemToArray(iv, cJSON_CreateNumber(sqlite3_column_double(s, 8)));
                }
        }
        return r < 0 ? r : 0;
}

/* {outcome, first_changed, last_unchanged, range}: the versions named once found; the range
 * still open otherwise. */
static cJSON *result_json(const char *outcome, const cJSON *versions, int lo, int hi) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "outcome", outcome);
        bool found = strcmp(outcome, "found") == 0;
        add_version(o, "first_changed", versions, found ? hi : -1);
        add_version(o, "last_unchanged", versions, found ? lo : -1);
        cJSON *range = cJSON_AddArrayToObject(o, "range");
        cJSON_AddItemToArray(range, cJSON_CreateString(version_name(versions, lo)));
        cJSON_AddItemToArray(range, cJSON_CreateString(version_name(versions, hi)));
        return o;
}

int bisections_json(struct db_conn *c, const char *id, cJSON **ret) {
        static const char sql[] = "SELECT name, status, created_wall_ns, finished_wall_ns, request, lo, hi, outcome, message"
                                  " FROM bisections WHERE id = ?";
        struct db_txn snapshot _cleanup_txn_ = { 0 };
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_read_begin(c, &snapshot);
        if (r < 0 || (r = db_row_text(c, sql, id, &s)) < 0)
                return r;
        _cleanup_json_ cJSON *request = cJSON_Parse((const char *) sqlite3_column_text(s, 4));
        if (!request)
                return -EBADMSG;
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(request, "versions");
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", id);
        row_add_text(o, "name", s, 0);
        row_add_text(o, "status", s, 1);
        row_add_time(o, "created_at", s, 2);
        row_add_time(o, "finished_at", s, 3);
        cJSON *names = cJSON_AddArrayToObject(o, "versions");
        for (int i = 0; i < cJSON_GetArraySize(versions); i++)
                cJSON_AddItemToArray(names, cJSON_CreateString(version_name(versions, i)));
        cJSON_AddItemToObject(o, "metric", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "metric"), true));
        cJSON_AddItemToObject(o, "difference_pct", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "difference_pct"), true));
        cJSON *steps = cJSON_AddArrayToObject(o, "steps");
        if ((r = steps_json(c, id, versions, steps)) < 0)
                return r;
        const char *outcome = (const char *) sqlite3_column_text(s, 7);
        if (outcome)
                cJSON_AddItemToObject(o, "result", result_json(outcome, versions, sqlite3_column_int(s, 5), sqlite3_column_int(s, 6)));
        else
                cJSON_AddNullToObject(o, "result");
        row_add_text(o, "message", s, 8);
        cJSON_AddItemToObject(o, "request", TAKE_PTR(request));
        *ret = TAKE_PTR(o);
        return 0;
}

static void fill_list_row(cJSON *o, sqlite3_stmt *s) {
        row_add_text(o, "id", s, 0);
        row_add_text(o, "name", s, 1);
        row_add_text(o, "status", s, 2);
        row_add_time(o, "created_at", s, 3);
        row_add_time(o, "finished_at", s, 4);
        row_add_text(o, "outcome", s, 5);
}

int bisections_list_json(struct db_conn *c, int64_t limit, cJSON **ret) {
        static const char sql[] = "SELECT id, name, status, created_wall_ns, finished_wall_ns, outcome FROM bisections"
                                  " ORDER BY created_wall_ns DESC, id LIMIT ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, limit);
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        cJSON *list = cJSON_AddArrayToObject(o, "bisections");
        if ((r = rows_append_json(s, list, fill_list_row)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}
