/* commands.h: the client's subcommands (slicelab(1)), each returning its exit status
 * (exit-status.h), and the options they share. Defined in commands.c (the plain reads),
 * run.c, submit.c, wait.c, report.c, bundle.c, load-hosts.c (peers) and bisect.c; what they share to print
 * lives in json-print.h. */
#pragma once

#include <stdbool.h>

#include "client/http.h"

enum timeline_format { TIMELINE_CSV, TIMELINE_NDJSON };

struct client_options {
        bool json;
        bool wait;
        const char *key;
        const char *status;
        char **labels;          /* "k=v", n_labels of them */
        int n_labels;
        const char *baseline;
        const char *cell;       /* series, profile EXP --cell B */
        enum timeline_format format;
        const char *output;
        long tail;              /* 0: the whole log */
        double retry_for_s;     /* how long submit and wait keep trying a daemon they cannot reach */
        const char *metric;     /* series */
        const char *alpha, *min_segment; /* series: passed to the daemon as given */
        double threshold_pct;   /* series: a regression beyond this percent exits 3 */
};

/* The body of a POST from file, or stdin for "-": at most CLIENT_BODY_MAX bytes (-EFBIG beyond). */
#define CLIENT_BODY_MAX (1u << 20)
int client_read_body(const char *file, char **ret);
struct http_response;
/* The answer to a POST that made something (200 or 201 naming its id): *ret the parsed body and
 * *ret_id its id, r done either way; else the error printed and EXIT_DAEMON. */
int client_created(struct http_response *r, const char *noun, struct cJSON **ret, const char **ret_id);
int cmd_submit(struct http *h, const struct client_options *o, const char *file);
int cmd_bisect(struct http *h, const struct client_options *o, const char *file);
int cmd_wait(struct http *h, const struct client_options *o, const char *id);
int cmd_status(struct http *h, const struct client_options *o, const char *id);
int cmd_run(struct http *h, const struct client_options *o, const char *run);
int cmd_runs(struct http *h, const struct client_options *o, const char *id);
int cmd_list(struct http *h, const struct client_options *o);
int cmd_report(struct http *h, const struct client_options *o, const char *id);
int cmd_findings(struct http *h, const struct client_options *o, const char *id);
int cmd_series(struct http *h, const struct client_options *o);
int cmd_compare(struct http *h, const struct client_options *o, const char *a, const char *b);
int cmd_timeline(struct http *h, const struct client_options *o, const char *run);
int cmd_logs(struct http *h, const struct client_options *o, const char *run, const char *stream);
int cmd_profile(struct http *h, const struct client_options *o, const char *id);
int cmd_cancel(struct http *h, const struct client_options *o, const char *id);
int cmd_host(struct http *h, const struct client_options *o);
int cmd_health(struct http *h, const struct client_options *o);
int cmd_peers(struct http *h, const struct client_options *o);
/* GET path into output (a complete file or none: written beside and renamed), or stdout. */
int client_stream_to(struct http *h, const char *path, const char *accept, const char *output);
int cmd_export(struct http *h, const struct client_options *o, const char *id);
int cmd_import(struct http *h, const struct client_options *o, const char *file);
