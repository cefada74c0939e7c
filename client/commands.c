/* commands.c: the client's plain reads and cancel: list, status, runs, timeline, logs, cancel,
 * host, health. Each prints a short human form, or the daemon's JSON with --json. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"
#include "client/run-failures.h"
#include "client/table.h"

/* --- list: every page, newest first ----------------------------------------------------- */

#define LIST_CAP 48

static char *list_path(struct http *h, const struct client_options *o) {
        char *p = strdup("/v1/experiments?limit=500");
        if (!p)
                abort();
        p = http_path_add(h, p, "status", o->status);
        for (int i = 0; i < o->n_labels; i++)
                p = http_path_add(h, p, "label", o->labels[i]);
        return p;
}

int cmd_list(struct http *h, const struct client_options *o) {
        _cleanup_free_ char *path = list_path(h, o);
        _cleanup_json_ cJSON *all = NULL;
        struct table t;
        const cJSON *e;

        int k = http_get_json_pages(h, path, "experiments", &all);
        if (k != 0)
                return k;
        if (o->json) {
                _cleanup_json_ cJSON *doc = cJSON_CreateObject();
                cJSON_AddItemToObject(doc, "experiments", TAKE_PTR(all));
                json_print(doc);
                return EXIT_OK;
        }
        table_init(&t, 6, LIST_CAP);
        table_add(&t, "ID", "STATUS", "RUNS", "CREATED", "NAME", "LABELS");
        cJSON_ArrayForEach(e, all) {
                struct json_print_progress p = json_print_progress(e);
                _cleanup_free_ char *labels = json_print_labels(cJSON_GetObjectItemCaseSensitive(e, "labels"));
                char runs[32];
                snprintf(runs, sizeof runs, "%.0f/%.0f", p.done, p.total);
                table_add(&t, json_print_str(e, "id"), json_print_str(e, "status"), runs,
                          json_print_str(e, "created_at"), json_print_str(e, "name"), labels);
        }
        table_print(&t, stdout);
        table_done(&t);
        return EXIT_OK;
}

/* --- status and runs ---------------------------------------------------------------------- */

/* A run's headline: requests or a benchmark's own operations per second. */
static void headline(const cJSON *run, char *buf, size_t size) {
        const cJSON *hl = cJSON_GetObjectItemCaseSensitive(run, "headline");
        double v;
        if (json_print_num(hl, "throughput_rps", &v))
                snprintf(buf, size, "%.0f req/s", v);
        else if (json_print_num(hl, "ops_per_s", &v))
                snprintf(buf, size, "%.0f ops/s", v);
        else
                snprintf(buf, size, "-");
}

static void show_runs(const cJSON *runs) {
        const cJSON *r;
        struct table t;
        table_init(&t, 6, LIST_CAP);
        table_add(&t, "RUN", "CELL", "ITER", "STATE", "REASON", "HEADLINE");
        cJSON_ArrayForEach(r, runs) {
                double it = 0;
                char iteration[16], head[64];
                json_print_num(r, "iteration", &it);
                snprintf(iteration, sizeof iteration, "%.0f", it);
                headline(r, head, sizeof head);
                table_add(&t, json_print_str(r, "id"), json_print_str(r, "cell"), iteration,
                          json_print_str(r, "state"), json_print_str(r, "reason"), head);
        }
        table_print(&t, stdout);
        table_done(&t);
}

/* A capacity search's results so far, from the report (the experiment's own cells carry counts
 * only). */
static int show_capacity(struct http *h, const cJSON *exp) {
        const cJSON *load = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(exp, "definition"), "load");
        if (strcmp(json_print_str(load, "mode"), "capacity") != 0)
                return 0;
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", json_print_str(exp, "id"), "/report");
        _cleanup_json_ cJSON *report = NULL;
        int k = http_get_json(h, path, &report);
        if (k != 0)
                return k;
        json_print_capacity(cJSON_GetObjectItemCaseSensitive(report, "cells"));
        return 0;
}

int cmd_status(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "");
        _cleanup_json_ cJSON *exp = NULL;
        int k = http_get_json(h, path, &exp);
        if (k != 0)
                return k;
        if (o->json)
                json_print(exp);
        else {
                const cJSON *st = cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(exp, "progress"), "by_state");
                struct json_print_progress p = json_print_progress(exp);
                const cJSON *s;
                printf("%s %s: %s, %.0f/%.0f runs done", json_print_str(exp, "id"),
                       json_print_str(exp, "name"), json_print_str(exp, "status"), p.done, p.total);
                _cleanup_free_ char *labels = json_print_labels(cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(exp, "definition"), "labels"));
                cJSON_ArrayForEach(s, st)
                        if (cJSON_IsNumber(s) && s->valuedouble > 0)
                                printf(", %s %.0f", s->string, s->valuedouble);
                printf("\n");
                if (strcmp(labels, "-") != 0)
                        printf("labels: %s\n", labels);
                cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(exp, "warnings"))
                        printf("warning: %s\n", str_or(cJSON_GetStringValue(s), "?"));
                if (run_failures_expected(exp) && (k = run_failures_print(h, id, stdout)) != 0)
                        return k;
                if ((k = show_capacity(h, exp)) != 0)
                        return k;
        }
        return exit_status_of_experiment(exp);
}

int cmd_runs(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "/runs?limit=1000");
        _cleanup_json_ cJSON *runs = NULL;
        int k = http_get_json_pages(h, path, "runs", &runs);
        if (k != 0)
                return k;
        if (o->json) {
                /* one page with every run, as the daemon's last page looks */
                _cleanup_json_ cJSON *doc = cJSON_CreateObject();
                cJSON_AddItemToObject(doc, "runs", TAKE_PTR(runs));
                cJSON_AddNullToObject(doc, "next_cursor");
                json_print(doc);
        } else
                show_runs(runs);
        return EXIT_OK;
}

/* --- timeline and logs: streamed, never held whole ---------------------------------------- */

int client_stream_to(struct http *h, const char *path, const char *accept, const char *output) {
        _cleanup_free_ char *tmp = NULL;
        FILE *f = stdout;
        struct http_response r;
        int k;

        if (output) {
                /* A complete file or none: written beside, renamed when the stream ended well. */
                if (asprintf(&tmp, "%s.partial", output) < 0)
                        abort();
                f = fopen(tmp, "we");
                if (!f) {
                        fprintf(stderr, "slicelab: %s: %s\n", tmp, strerror(errno));
                        return EXIT_USAGE;
                }
        }
        k = http_request(h, "GET", path, NULL, NULL, accept, f, &r);
        bool good = k == 0 && r.status / 100 == 2;
        if (k < 0)
                fprintf(stderr, "slicelab: %s\n", h->error);
        else if (!good)
                http_print_error(&r);
        if (k == 0)
                http_response_done(&r);
        if (output) {
                if (fclose(f) != 0 && good) {
                        fprintf(stderr, "slicelab: %s: %s\n", tmp, strerror(errno));
                        good = false;
                }
                if (good && rename(tmp, output) < 0) {
                        fprintf(stderr, "slicelab: %s: %s\n", output, strerror(errno));
                        good = false;
                }
                if (!good)
                        unlink(tmp);
        } else if (fflush(stdout) != 0)
                good = false;
        return good ? EXIT_OK : EXIT_DAEMON;
}

int cmd_timeline(struct http *h, const struct client_options *o, const char *run) {
        _cleanup_free_ char *path = http_path(h, "/v1/runs/", run, "/timeline");
        bool nd = o->format == TIMELINE_NDJSON || o->json;
        return client_stream_to(h, path, nd ? "application/x-ndjson" : "text/csv", o->output);
}

/* One line of a cell-against-baseline profile: shares in percent, intervals where there are. */
static void print_profile_line(const char *name, const cJSON *c) {
        const cJSON *cell = cJSON_GetObjectItemCaseSensitive(c, "cell");
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(c, "baseline");
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "difference");
        double v[7];
        const cJSON *from[] = { cell, cell, cell, base, d, d, d };
        const char *keys[] = { "mean", "ci_low", "ci_high", "mean", "value", "ci_low", "ci_high" };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                const cJSON *x = cJSON_GetObjectItemCaseSensitive(from[i], keys[i]);
                v[i] = cJSON_IsNumber(x) ? x->valuedouble * 100 : NAN;
        }
        printf("%6.2f%% [%6.2f, %6.2f]  %6.2f%%  %+7.2f [%+7.2f, %+7.2f]%s  %s\n", v[0], v[1], v[2], v[3], v[4], v[5],
               v[6], cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "excludes_zero")) ? " *" : "  ", name);
}

/* --cell: the experiment's cell against --baseline (default its first cell), groups then the
 * frames that differ most; '*' marks a difference whose 95% interval excludes 0. */
static int profile_cells(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *base = http_path(h, "/v1/experiments/", id, "/profile"), *c = http_escape(h, o->cell);
        _cleanup_free_ char *b = o->baseline ? http_escape(h, o->baseline) : NULL, *path = NULL;
        if (asprintf(&path, "%s?cell=%s%s%s", base, c, b ? "&baseline=" : "", b ? b : "") < 0)
                abort();
        _cleanup_json_ cJSON *j = NULL;
        int k = http_get_json(h, path, &j);
        if (k != EXIT_OK)
                return k;
        if (o->json) {
                json_print(j);
                return EXIT_OK;
        }
        printf("%s (%d runs) against %s (%d runs): share of CPU samples, mean [95%% CI]\n",
               o->cell, cJSON_GetObjectItemCaseSensitive(j, "cell_runs")->valueint,
               cJSON_GetObjectItemCaseSensitive(j, "baseline")->valuestring,
               cJSON_GetObjectItemCaseSensitive(j, "baseline_runs")->valueint);
        printf("%-26s  %-7s  %-27s  %s\n", "cell", "baseline", "difference (points)", "group or frame (total)");
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "groups"))
                print_profile_line(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
                                   cJSON_GetObjectItemCaseSensitive(e, "total"));
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "frames"))
                print_profile_line(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
                                   cJSON_GetObjectItemCaseSensitive(e, "total"));
        return EXIT_OK;
}

/* The folded text as the daemon keeps it, or --json its tree (GET /v1/runs/{id}/profile); with
 * --cell, id is an experiment (profile_cells). */
int cmd_profile(struct http *h, const struct client_options *o, const char *id) {
        if (o->cell)
                return profile_cells(h, o, id);
        _cleanup_free_ char *path = http_path(h, "/v1/runs/", id, o->json ? "/profile?format=json" : "/profile");
        return client_stream_to(h, path, o->json ? "application/json" : "text/plain", o->output);
}

/* --json: {"run", "stream", "tail" (null: the whole log), "text"}; the log is held whole here,
 * which its rotation bounds (64 MiB at most). */
static int print_log_json(struct http *h, const char *path, const char *run, const char *stream, long tail) {
        struct http_response r;
        int k = http_request(h, "GET", path, NULL, NULL, "text/plain", NULL, &r);
        if (k < 0) {
                fprintf(stderr, "slicelab: %s\n", h->error);
                return EXIT_DAEMON;
        }
        if (r.status / 100 != 2) {
                http_print_error(&r);
                http_response_done(&r);
                return EXIT_DAEMON;
        }
        _cleanup_json_ cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "run", run);
        cJSON_AddStringToObject(doc, "stream", stream);
        json_add_number_or_null(doc, "tail", tail > 0, (double) tail);
        cJSON_AddItemToObject(doc, "text", json_print_text(r.body, r.size));
        http_response_done(&r);
        json_print(doc);
        return EXIT_OK;
}

int cmd_logs(struct http *h, const struct client_options *o, const char *run, const char *stream) {
        _cleanup_free_ char *path = http_path(h, "/v1/runs/", run,
                                              strcmp(stream, "sut") == 0 ? "/logs/sut" : "/logs/load");
        if (o->tail > 0) {
                _cleanup_free_ char *old = path;
                if (asprintf(&path, "%s?tail=%ld", old, o->tail) < 0)
                        abort();
        }
        if (o->json)
                return print_log_json(h, path, run, stream, o->tail);
        return client_stream_to(h, path, "text/plain", NULL);
}

/* --- cancel --------------------------------------------------------------------------------- */

int cmd_cancel(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "");
        _cleanup_json_ cJSON *j = NULL;
        struct http_response r;
        int k = http_request(h, "DELETE", path, NULL, NULL, NULL, NULL, &r);
        if (k < 0) {
                fprintf(stderr, "slicelab: %s\n", h->error);
                return EXIT_DAEMON;
        }
        if (r.status != 200 && r.status != 202) {
                http_print_error(&r);
                http_response_done(&r);
                return EXIT_DAEMON;
        }
        j = cJSON_Parse(r.body);
        http_response_done(&r);
        if (o->json) {
                json_print(j);
                return EXIT_OK;
        }
        double n = 0;
        const cJSON *s;
        json_print_num(j, "runs_cancelled", &n);
        printf("%s %s: %.0f queued run%s cancelled", id, json_print_str(j, "status"), n, n == 1 ? "" : "s");
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(j, "stopping"))
                printf(", stopping %s", str_or(cJSON_GetStringValue(s), "?"));
        printf("\n");
        return EXIT_OK;
}

/* --- host and health ----------------------------------------------------------------------- */

static void show_host(const cJSON *host) {
        const cJSON *topo = cJSON_GetObjectItemCaseSensitive(host, "topology");
        const cJSON *smt = cJSON_GetObjectItemCaseSensitive(topo, "smt");
        const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(host, "kernel");
        const cJSON *java = cJSON_GetObjectItemCaseSensitive(host, "java");
        double n = 0, cores = 0, sockets = 0;
        int numa = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(topo, "numa_nodes"));

        json_print_num(host, "cpu_count", &n);
        printf("cpu model:  %s\n", json_print_str(host, "cpu_model"));
        printf("cpus:       %.0f online (%s)", n, json_print_str(host, "cpus_online"));
        if (json_print_num(topo, "cores", &cores) && json_print_num(topo, "sockets", &sockets))
                printf(", %.0f cores on %.0f socket%s", cores, sockets, sockets == 1 ? "" : "s");
        printf("\nsmt:        %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(smt, "active")) ? "on" :
               cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(smt, "active")) ? "off" : "unknown");
        printf("numa nodes: %d\n", numa);
        printf("cgroup:     %s\n", json_print_str(cJSON_GetObjectItemCaseSensitive(host, "cgroup"), "mode"));
        printf("kernel:     %s\n", json_print_str(kernel, "release"));
        printf("java:       %s\n", cJSON_IsObject(java) ? json_print_str(java, "version") : "not found");
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(host, "warnings"))
                printf("warning:    %s\n", str_or(cJSON_GetStringValue(w), "?"));
}

static void show_health(const cJSON *j) {
        const cJSON *cg = cJSON_GetObjectItemCaseSensitive(j, "cgroup");
        const cJSON *queue = cJSON_GetObjectItemCaseSensitive(j, "queue");
        double depth = 0, running = 0;
        json_print_num(queue, "depth", &depth);
        json_print_num(queue, "running", &running);
        printf("%s, slicelabd %s, cgroup %s (%s), %.0f queued, %.0f running\n",
               json_print_str(j, "status"), json_print_str(j, "version"), json_print_str(cg, "mode"),
               json_print_str(cg, "driver"), depth, running);
}

int cmd_host(struct http *h, const struct client_options *o) {
        return json_print_get(h, o->json, "/v1/host", show_host);
}

int cmd_health(struct http *h, const struct client_options *o) {
        return json_print_get(h, o->json, "/v1/health", show_health);
}
