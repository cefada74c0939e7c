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

/* The number at a dotted path of objects ("latency_us.scheduled.p99"); false when absent or null. */
bool json_print_num_at(const cJSON *j, const char *path, double *ret);

/* An experiment's (or a summary's) `progress`: runs done of total (0 where absent), and how many
 * runs are in which phase now ("1 measuring", "" when none is under way). */
struct json_print_progress {
        double done, total;
        char phases[96];
};
struct json_print_progress json_print_progress(const cJSON *exp);

/* Labels {"k": "v", ...} as "k=v, k=v", or "-" when none. free() the result. */
char *json_print_labels(const cJSON *labels);

/* A cJSON string of n bytes of s (a log: not necessarily UTF-8), each byte that is not part of
 * valid UTF-8, and each NUL, replaced by U+FFFD, so that the JSON printed is valid. */
cJSON *json_print_text(const char *s, size_t n);

/* For a report's cells (each with `metrics` of `capacity.*` Stats) that ran a
 * capacity search, a "capacity:" block: per cell the mean highest rate that met every SLA with
 * its 95% interval, the critical rate and each SLA's rate. Nothing when no cell has one. */
void json_print_capacity(const cJSON *cells);

/* An experiment's or report's `sequential` (a stop rule's comparisons): a line saying where the
 * rule stands, then one per comparison ("tenth vs full ops_per_s: different at round 4, ratio
 * 0.382 [0.267-0.545]"). Nothing when it is null. */
void json_print_sequential(const cJSON *sequential);

/* GET path; with json print it as the daemon gave it, else hand it to show. An exit status
 * (exit-status.h). */
int json_print_get(struct http *h, bool json, const char *path, void (*show)(const cJSON *j));
