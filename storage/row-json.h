/* row-json.h: turning columns of a result row into members of a cJSON object: text, times
 * (RFC 3339), and JSON we stored ourselves. A NULL column becomes JSON null. */
#pragma once

#include <cjson/cJSON.h>
#include <sqlite3.h>

void row_add_text(cJSON *o, const char *name, sqlite3_stmt *s, int col);
void row_add_time(cJSON *o, const char *name, sqlite3_stmt *s, int col);
void row_add_json(cJSON *o, const char *name, sqlite3_stmt *s, int col);
void row_add_int(cJSON *o, const char *name, sqlite3_stmt *s, int col);

/* Fills one object from the statement's current row. */
typedef void (*row_json_fn)(cJSON *o, sqlite3_stmt *s);
/* Steps s to its end, appending to array an object per row filled by fill; 0 or negative errno
 * (array keeps the rows read before a failure, for its owner to free). */
int rows_append_json(sqlite3_stmt *s, cJSON *array, row_json_fn fill);
