/* json-print.h: what the client's commands share to show the daemon's JSON: a document printed
 * whole (--json), a member read for a human line, an experiment's progress, and "GET it, then
 * print it raw or through a show function". Nothing here knows a subcommand. */
#pragma once

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "client/http.h"

/* Prints j to stdout as one JSON document, for --json. */
void json_print(const cJSON *j);

/* j's string member, or "-" */
const char *json_print_str(const cJSON *j, const char *key);
/* j's number member; false when absent or null (*ret then untouched) */
bool json_print_num(const cJSON *j, const char *key, double *ret);

/* An experiment's (or a summary's) `progress`: runs done of total, 0 where absent. */
struct json_print_progress {
        double done, total;
};
struct json_print_progress json_print_progress(const cJSON *exp);

/* GET path; with json print it as the daemon gave it, else hand it to show. An exit status
 * (exit-status.h). */
int json_print_get(struct http *h, bool json, const char *path, void (*show)(const cJSON *j));
