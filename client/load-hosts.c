/* load-hosts.c: the load hosts of runs, for `run` and `report` (see load-hosts.h), and the
 * lab's hosts for `peers`. */
#include "client/load-hosts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/latency.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/http.h"
#include "client/json-print.h"
#include "client/table.h"

#define LAG_BEHIND_US (LATENCY_LATE_NS / 1000.0)

static const cJSON *hosts_of(const cJSON *run) {
        const cJSON *load = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "metrics"), "load");
        return cJSON_GetObjectItemCaseSensitive(load, "hosts");
}

bool load_host_fell_behind(const cJSON *host) {
        double lag;
        return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(host, "saturated")) ||
               (json_print_num(host, "lag_p99_us", &lag) && lag > LAG_BEHIND_US);
}

/* value times scale to decimals, then unit, or "-" where the host has no such figure */
static const char *number(char *buf, size_t size, const cJSON *o, const char *key, double scale, int decimals,
                          const char *unit) {
        double v;
        if (!json_print_num(o, key, &v))
                return "-";
        snprintf(buf, size, "%.*f%s", decimals, v * scale, unit);
        return buf;
}

/* The clock offset in seconds with its sign: "+700.000016 s" */
static const char *signed_seconds(char *buf, size_t size, const cJSON *o, const char *key) {
        double v;
        if (!json_print_num(o, key, &v))
                return "-";
        snprintf(buf, size, "%+.6f s", v * 1e-9);
        return buf;
}

/* "12 (server 10, stalled 1, injector 1)" from the host's own account of its late requests */
static const char *late_text(char *buf, size_t size, const cJSON *late) {
        double n, server = 0, stalled = 0, injector = 0;
        if (!json_print_num(late, "requests", &n))
                return "-";
        json_print_num(late, "server", &server);
        json_print_num(late, "stalled", &stalled);
        json_print_num(late, "injector", &injector);
        snprintf(buf, size, "%.0f (server %.0f, stalled %.0f, injector %.0f)", n, server, stalled, injector);
        return buf;
}

void load_hosts_print_table(const cJSON *hosts) {
        if (cJSON_GetArraySize(hosts) <= 0)
                return;
        struct table t;
        table_init(&t, 10, 60);
        table_add(&t, "host", "state", "clock offset", "round trip", "error bound", "requests", "achieved",
                  "lag p99", "late requests", "saturated");
        const cJSON *h;
        cJSON_ArrayForEach(h, hosts) {
                char offset[32], rtt[32], error[32], requests[32], achieved[32], lag[32], late[96];
                const cJSON *sat = cJSON_GetObjectItemCaseSensitive(h, "saturated");
                table_add(&t, json_print_str(h, "host"), json_print_str(h, "state"),
                          signed_seconds(offset, sizeof offset, h, "offset_ns"),
                          number(rtt, sizeof rtt, h, "rtt_ns", 1e-3, 0, " us"),
                          number(error, sizeof error, h, "error_ns", 1e-3, 0, " us"),
                          number(requests, sizeof requests, h, "requests", 1, 0, ""),
                          number(achieved, sizeof achieved, h, "achieved_rps", 1, 0, " req/s"),
                          number(lag, sizeof lag, h, "lag_p99_us", 1e-3, 3, " ms"),
                          late_text(late, sizeof late, cJSON_GetObjectItemCaseSensitive(h, "late")),
                          cJSON_IsBool(sat) ? (cJSON_IsTrue(sat) ? "yes" : "no") : "-");
        }
        printf("load hosts (clock offset: the host's CLOCK_MONOTONIC minus this daemon's; error bound: half the round trip):\n");
        table_print(&t, stdout);
        table_done(&t);
}

/* Appends name to a ", "-separated list in buf unless it is there. */
static void list_add(char *buf, size_t size, const char *name) {
        size_t len = strlen(buf), n = strlen(name);
        for (const char *p = buf; (p = strstr(p, name)); p += n)
                if ((p == buf || p[-1] == ' ') && (p[n] == ',' || p[n] == 0))
                        return;
        if (len + n + 3 < size)
                snprintf(buf + len, size - len, "%s%s", len ? ", " : "", name);
}

/* The runs' full records (the list has headline metrics only), in the list's order. */
static cJSON *fetch_runs(struct http *h, const cJSON *runs) {
        cJSON *all = cJSON_CreateArray();
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(runs, "runs")) {
                _cleanup_free_ char *path = http_path(h, "/v1/runs/", json_print_str(r, "id"), "");
                cJSON *run = NULL;
                if (!all || http_get_json(h, path, &run) != 0 || !cJSON_AddItemToArray(all, run))
                        cJSON_Delete(run);
        }
        return all;
}

static void print_fell_behind(const cJSON *run) {
        const cJSON *h;
        double it = 0;
        json_print_num(run, "iteration", &it);
        cJSON_ArrayForEach(h, hosts_of(run)) {
                if (!load_host_fell_behind(h))
                        continue;
                char lag[32];
                printf("  load host %s fell behind in run %s (cell %s, iteration %.0f): %slag p99 %s\n",
                       json_print_str(h, "host"), json_print_str(run, "id"), json_print_str(run, "cell"), it,
                       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "saturated")) ? "saturated, " : "",
                       number(lag, sizeof lag, h, "lag_p99_us", 1e-3, 3, " ms"));
        }
}

void load_hosts_print_summary(struct http *h, const cJSON *runs) {
        char cells[512] = "", hosts[512] = "";
        _cleanup_json_ cJSON *full = fetch_runs(h, runs);
        const cJSON *run;
        cJSON_ArrayForEach(run, full) {
                const cJSON *host;
                if (cJSON_GetArraySize(hosts_of(run)) <= 0)
                        continue;
                list_add(cells, sizeof cells, json_print_str(run, "cell"));
                cJSON_ArrayForEach(host, hosts_of(run))
                        list_add(hosts, sizeof hosts, json_print_str(host, "host"));
        }
        if (!cells[0])
                return;
        printf("\nload from load hosts (%s) in cells %s\n", hosts, cells);
        cJSON_ArrayForEach(run, full)
                print_fell_behind(run);
}

/* `slicelab peers`: GET /v1/peers as a table, a row per host. */
static void show_peers(const cJSON *list) {
        const cJSON *peers = cJSON_GetObjectItemCaseSensitive(list, "peers");
        if (cJSON_GetArraySize(peers) <= 0) {
                printf("no load host used (of those --peer-allow names)\n");
                return;
        }
        struct table t;
        table_init(&t, 9, 60);
        table_add(&t, "host", "answers", "clock offset", "round trip", "error bound", "version", "last used",
                  "last run", "why not");
        const cJSON *p;
        cJSON_ArrayForEach(p, peers) {
                const cJSON *clock = cJSON_GetObjectItemCaseSensitive(p, "clock");
                char offset[32], rtt[32], error[32];
                bool answers = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "answers"));
                table_add(&t, json_print_str(p, "host"), answers ? "yes" : "no",
                          signed_seconds(offset, sizeof offset, clock, "offset_ns"),
                          number(rtt, sizeof rtt, clock, "rtt_ns", 1e-3, 0, " us"),
                          number(error, sizeof error, clock, "error_ns", 1e-3, 0, " us"), json_print_str(p, "version"),
                          json_print_str(p, "last_used"), json_print_str(p, "last_run"),
                          answers ? "-" : json_print_str(p, "error"));
        }
        printf("load hosts used (clock offset: as their last run measured it; answers: at %s)\n",
               json_print_str(list, "checked_at"));
        table_print(&t, stdout);
        table_done(&t);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(list, "truncated")))
                printf("(more hosts were used: the least recently used are not listed)\n");
}

int cmd_peers(struct http *h, const struct client_options *o) {
        return json_print_get(h, o->json, "/v1/peers", show_peers);
}
