/* steps.c: a capacity search's steps in the store (see steps.h). */
#include "storage/steps.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "basic/json-util.h"
#include "storage/timeline-store.h"

static int insert_step(struct db_conn *c, const char *run_id, const struct step_row *row) {
        static const char sql[] =
                "INSERT OR REPLACE INTO run_steps(run_id, step, rate, met, measure_start_ns, data)"
                " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int(s, 2, (int) row->step);
        sqlite3_bind_double(s, 3, row->rate);
        sqlite3_bind_int(s, 4, row->met);
        if (row->measure_start_ns > 0)
                sqlite3_bind_int64(s, 5, row->measure_start_ns);
        if ((r = db_bind_text(s, 6, row->data_json)) < 0)
                return r;
        r = db_step(s);
        return r < 0 ? r : 0;
}

int steps_store(struct db_conn *c, const char *run_id, const struct step_row *row,
                const struct timeline_record *records, size_t n) {
        static const char sql_clear[] = "DELETE FROM step_requests WHERE run_id = ?1 AND step = ?2";
        static const char sql[] =
                "INSERT INTO step_requests(run_id, step, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)";
        struct db_txn t _cleanup_txn_ = { 0 };
        sqlite3_stmt *clear _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        int r = db_txn_begin(c, &t);
        if (r < 0 || (r = insert_step(c, run_id, row)) < 0 || (r = db_stmt_text(c, sql_clear, run_id, &clear)) < 0)
                return r;
        sqlite3_bind_int(clear, 2, (int) row->step);
        if ((r = db_step(clear)) < 0 || (r = db_stmt_text(c, sql, run_id, &s)) < 0)
                return r;
        sqlite3_bind_int(s, 2, (int) row->step);
        if ((r = requests_insert_blocks(s, 3, records, n)) < 0)
                return r;
        return db_txn_commit(&t);
}

int steps_json(struct db_conn *c, const char *run_id, cJSON **ret) {
        static const char sql_run[] = "SELECT 1 FROM runs WHERE id = ?";
        static const char sql[] =
                "SELECT step, rate, met, measure_start_ns, data FROM run_steps WHERE run_id = ? ORDER BY step";
        sqlite3_stmt *e _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql_run, run_id, &e);
        if (r < 0 || (r = db_stmt_text(c, sql, run_id, &s)) < 0)
                return r;
        _cleanup_json_ cJSON *steps = cJSON_CreateArray();
        while ((r = db_step(s)) > 0) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddNumberToObject(o, "step", sqlite3_column_int(s, 0));
                cJSON_AddNumberToObject(o, "rate", sqlite3_column_double(s, 1));
                cJSON_AddBoolToObject(o, "met", sqlite3_column_int(s, 2) != 0);
                if (sqlite3_column_type(s, 3) == SQLITE_NULL)
                        cJSON_AddNullToObject(o, "measure_start_ns");
                else
                        cJSON_AddNumberToObject(o, "measure_start_ns", (double) sqlite3_column_int64(s, 3));
                cJSON *data = cJSON_Parse((const char *) sqlite3_column_text(s, 4));
                cJSON *d;
                while (data && (d = data->child)) {
                        cJSON_DetachItemViaPointer(data, d);
                        if (!cJSON_HasObjectItem(o, d->string))
                                cJSON_AddItemToObject(o, d->string, d);
                        else
                                cJSON_Delete(d);
                }
                cJSON_Delete(data);
                cJSON_AddItemToArray(steps, o);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(steps);
        return 0;
}

int steps_measure_start(struct db_conn *c, const char *run_id, unsigned step, int64_t *ret) {
        static const char sql[] = "SELECT measure_start_ns FROM run_steps WHERE run_id = ?1 AND step = ?2";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int(s, 2, (int) step);
        if ((r = db_step(s)) < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        if (sqlite3_column_type(s, 0) == SQLITE_NULL)
                return -ENODATA;
        *ret = sqlite3_column_int64(s, 0);
        return 0;
}
