/* commands.h: the client's subcommands (slicelab(1)), each returning its exit status
 * (exit-status.h), and the options they share. */
#pragma once

#include <stdbool.h>

#include "client/http.h"

enum timeline_format { TIMELINE_CSV, TIMELINE_NDJSON };

struct options {
        bool json;
        bool wait;
        const char *key;
        const char *status;
        char **labels;          /* "k=v", n_labels of them */
        int n_labels;
        const char *baseline;
        enum timeline_format format;
        const char *output;
        long tail;              /* 0: the whole log */
        double retry_for_s;     /* how long submit and wait keep trying a daemon they cannot reach */
};

int cmd_submit(struct http *h, const struct options *o, const char *file);
int cmd_wait(struct http *h, const struct options *o, const char *id);
int cmd_status(struct http *h, const struct options *o, const char *id);
int cmd_runs(struct http *h, const struct options *o, const char *id);
int cmd_list(struct http *h, const struct options *o);
int cmd_report(struct http *h, const struct options *o, const char *id);
int cmd_findings(struct http *h, const struct options *o, const char *id);
int cmd_compare(struct http *h, const struct options *o, const char *a, const char *b);
int cmd_timeline(struct http *h, const struct options *o, const char *run);
int cmd_logs(struct http *h, const struct options *o, const char *run, const char *stream);
int cmd_cancel(struct http *h, const struct options *o, const char *id);
int cmd_host(struct http *h, const struct options *o);
int cmd_health(struct http *h, const struct options *o);

/* The exit status an experiment's JSON (or its report's) stands for: not finished 0, succeeded
 * 0 or 3 by `verdict.passed`, anything else finished 1. */
int experiment_outcome(const cJSON *exp);
bool experiment_finished(const cJSON *exp);

/* Prints j to stdout as one JSON document, for --json. */
void print_json(const cJSON *j);
/* GET path; with --json print it as the daemon gave it, else hand it to show. An exit status. */
int get_and_show(struct http *h, const struct options *o, const char *path, void (*show)(const cJSON *j));

/* j's string member, or "-" */
const char *jstr(const cJSON *j, const char *key);
/* j's number member; false when absent or null */
bool jnum(const cJSON *j, const char *key, double *ret);
