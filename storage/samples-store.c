/* samples-store.c: a run's 1 s series in the store. */
#include "storage/samples-store.h"

#include <cjson/cJSON.h>

#include "basic/json-util.h"
#include "basic/macro.h"

struct samples_rows {
        const int64_t *t_ms;
        char *const *rows;
        size_t n;
};

static int insert_samples(sqlite3_stmt *st, const char *run_id, void *userdata) {
        const struct samples_rows *s = userdata;
        for (size_t i = 0; i < s->n; i++) {
                sqlite3_reset(st);
                db_bind_text(st, 1, run_id);
                sqlite3_bind_int64(st, 2, s->t_ms[i]);
                db_bind_text(st, 3, s->rows[i]);
                int r = db_step(st);
                if (r < 0)
                        return r;
        }
        return 0;
}

int samples_save(struct db_conn *c, const char *run_id, const int64_t *t_ms, char *const *rows, size_t n) {
        static const char sql_clear[] = "DELETE FROM samples WHERE run_id = ?";
        static const char sql[] = "INSERT OR REPLACE INTO samples(run_id, t_ms, data) VALUES (?, ?, ?)";
        struct samples_rows s = { t_ms, rows, n };
        return db_replace_run_rows(c, sql_clear, sql, run_id, insert_samples, &s);
}

static const char *const series[] = { "t_ms", "requests", "p99_us", "cpu_usage_s", "nr_periods", "nr_throttled",
                                      "throttled_s", "memory_bytes", "load_cpu_usage_s", "freq_mhz", "gc_ms", "compile_ms" };

int samples_json(struct db_conn *c, const char *run_id, cJSON **ret) {
        static const char sql_run[] = "SELECT 1 FROM runs WHERE id = ?";
        static const char sql[] = "SELECT data FROM samples WHERE run_id = ? ORDER BY t_ms";
        sqlite3_stmt *e _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql_run, run_id, &e);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *out = cJSON_CreateObject();
        cJSON_AddNumberToObject(out, "interval_ms", 1000);
        cJSON *cols[ELEMENTSOF(series)];
        for (size_t i = 0; i < ELEMENTSOF(series); i++)
                cols[i] = cJSON_AddArrayToObject(out, series[i]);
        if ((r = db_stmt(c, sql, &s)) < 0)
                return r;
        db_bind_text(s, 1, run_id);
        while ((r = db_step(s)) > 0) {
                _cleanup_json_ cJSON *row = cJSON_Parse((const char *) sqlite3_column_text(s, 0));
                for (size_t i = 0; i < ELEMENTSOF(series); i++) {
                        cJSON *v = cJSON_GetObjectItemCaseSensitive(row, series[i]);
                        cJSON_AddItemToArray(cols[i], v ? cJSON_Duplicate(v, false) : cJSON_CreateNull());
                }
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(out);
        return 0;
}
