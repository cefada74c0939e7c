/* commands.c: the client's plain reads and cancel: list, status, runs, timeline, logs, cancel,
 * host, health. Each prints a short human form, or the daemon's JSON with --json. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"

/* --- list: every page, newest first ----------------------------------------------------- */

static char *list_path(struct http *h, const struct client_options *o, const char *cursor) {
        char *p = strdup("/v1/experiments?limit=500");
        if (!p)
                abort();
        for (int i = -2; i < o->n_labels; i++) {
                const char *name = i == -2 ? "status" : i == -1 ? "cursor" : "label";
                const char *v = i == -2 ? o->status : i == -1 ? cursor : o->labels[i];
                if (!v)
                        continue;
                _cleanup_free_ char *e = http_escape(h, v), *old = p;
                if (asprintf(&p, "%s&%s=%s", old, name, e) < 0)
                        abort();
        }
        return p;
}

int cmd_list(struct http *h, const struct client_options *o) {
        _cleanup_json_ cJSON *all = cJSON_CreateArray();
        _cleanup_free_ char *cursor = NULL;

        do {
                _cleanup_free_ char *path = list_path(h, o, cursor);
                _cleanup_json_ cJSON *page = NULL;
                int k = http_get_json(h, path, &page);
                if (k != 0)
                        return k;
                cJSON *e, *next;
                cJSON *list = cJSON_GetObjectItemCaseSensitive(page, "experiments");
                while ((e = cJSON_DetachItemFromArray(list, 0)))
                        cJSON_AddItemToArray(all, e);
                free(cursor);
                next = cJSON_GetObjectItemCaseSensitive(page, "next_cursor");
                cursor = cJSON_IsString(next) ? strdup(next->valuestring) : NULL;
        } while (cursor);

        if (o->json) {
                _cleanup_json_ cJSON *doc = cJSON_CreateObject();
                cJSON_AddItemToObject(doc, "experiments", TAKE_PTR(all));
                json_print(doc);
                return EXIT_OK;
        }
        printf("%-26s %-10s %-9s %-20s %s\n", "ID", "STATUS", "RUNS", "CREATED", "NAME");
        const cJSON *e;
        cJSON_ArrayForEach(e, all) {
                struct json_print_progress p = json_print_progress(e);
                char runs[32];
                snprintf(runs, sizeof runs, "%.0f/%.0f", p.done, p.total);
                printf("%-26s %-10s %-9s %-20s %s\n", json_print_str(e, "id"), json_print_str(e, "status"),
                       runs, json_print_str(e, "created_at"), json_print_str(e, "name"));
        }
        return EXIT_OK;
}

/* --- status and runs ---------------------------------------------------------------------- */

static void show_runs(const cJSON *list) {
        const cJSON *r;
        printf("%-26s %-20s %4s %-11s %-12s %s\n", "RUN", "CELL", "ITER", "STATE", "REASON", "HEADLINE");
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(list, "runs")) {
                const cJSON *hl = cJSON_GetObjectItemCaseSensitive(r, "headline");
                double it = 0, v;
                char head[64] = "-";
                json_print_num(r, "iteration", &it);
                if (json_print_num(hl, "throughput_rps", &v))
                        snprintf(head, sizeof head, "%.0f req/s", v);
                else if (json_print_num(hl, "ops_per_s", &v))
                        snprintf(head, sizeof head, "%.0f ops/s", v);
                printf("%-26s %-20s %4.0f %-11s %-12s %s\n", json_print_str(r, "id"),
                       json_print_str(r, "cell"), it, json_print_str(r, "state"), json_print_str(r, "reason"),
                       head);
        }
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
                cJSON_ArrayForEach(s, st)
                        if (cJSON_IsNumber(s) && s->valuedouble > 0)
                                printf(", %s %.0f", s->string, s->valuedouble);
                printf("\n");
                cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(exp, "warnings"))
                        printf("warning: %s\n", str_or(cJSON_GetStringValue(s), "?"));
        }
        return exit_status_of_experiment(exp);
}

int cmd_runs(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "/runs");
        return json_print_get(h, o->json, path, show_runs);
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

int cmd_logs(struct http *h, const struct client_options *o, const char *run, const char *stream) {
        _cleanup_free_ char *path = http_path(h, "/v1/runs/", run,
                                              strcmp(stream, "sut") == 0 ? "/logs/sut" : "/logs/load");
        if (o->tail > 0) {
                _cleanup_free_ char *old = path;
                if (asprintf(&path, "%s?tail=%ld", old, o->tail) < 0)
                        abort();
        }
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
