/* row-json.h: turning columns of a result row into members of a cJSON object: text, times
 * (RFC 3339), and JSON we stored ourselves. A NULL column becomes JSON null. */
#pragma once

#include <cJSON.h>
#include <sqlite3.h>

void row_add_text(cJSON *o, const char *name, sqlite3_stmt *s, int col);
void row_add_time(cJSON *o, const char *name, sqlite3_stmt *s, int col);
void row_add_json(cJSON *o, const char *name, sqlite3_stmt *s, int col);
void row_add_int(cJSON *o, const char *name, sqlite3_stmt *s, int col);
