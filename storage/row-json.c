/* row-json.c: result-row columns as cJSON members. */
#include "storage/row-json.h"

#include <stdio.h>

#include "basic/time-util.h"
#include "storage/db.h"

void row_add_time(cJSON *o, const char *name, sqlite3_stmt *s, int col) {
        if (sqlite3_column_type(s, col) == SQLITE_NULL) {
                cJSON_AddNullToObject(o, name);
                return;
        }
        char buf[40];
        format_rfc3339(sqlite3_column_int64(s, col), buf, sizeof buf);
        cJSON_AddStringToObject(o, name, buf);
}

void row_add_text(cJSON *o, const char *name, sqlite3_stmt *s, int col) {
        const char *v = (const char *) sqlite3_column_text(s, col);
        if (v)
                cJSON_AddStringToObject(o, name, v);
        else
                cJSON_AddNullToObject(o, name);
}

void row_add_json(cJSON *o, const char *name, sqlite3_stmt *s, int col) {
        const char *v = (const char *) sqlite3_column_text(s, col);
        cJSON *j = v ? cJSON_Parse(v) : NULL;
        cJSON_AddItemToObject(o, name, j ? j : cJSON_CreateNull());
}

/* As raw text: a double cannot hold every int64 (CLOCK_MONOTONIC ns pass 2^53 after 104 days). */
void row_add_int(cJSON *o, const char *name, sqlite3_stmt *s, int col) {
        if (sqlite3_column_type(s, col) == SQLITE_NULL) {
                cJSON_AddNullToObject(o, name);
                return;
        }
        char buf[24];
        snprintf(buf, sizeof buf, "%lld", (long long) sqlite3_column_int64(s, col));
        cJSON_AddRawToObject(o, name, buf);
}

int rows_append_json(sqlite3_stmt *s, cJSON *array, row_json_fn fill) {
        int r;
        while ((r = db_step(s)) > 0) {
                cJSON *o = cJSON_CreateObject();
                fill(o, s);
                cJSON_AddItemToArray(array, o);
        }
        return r < 0 ? r : 0;
}
