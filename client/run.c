/* run.c: `slicelab run RUN`: one run as a person reads it: where it stands and why (state,
 * reason and message), every state it went through with its time, how its processes ended, its
 * warnings and its headline metrics, a capacity search's result among them, and its load hosts.
 * --json gives the daemon's JSON. */
#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"
#include "client/load-hosts.h"

static void print_states(const cJSON *run) {
        const cJSON *s, *states = cJSON_GetObjectItemCaseSensitive(run, "states");
        double t0 = 0, t;
        json_print_num(cJSON_GetArrayItem(states, 0), "mono_ns", &t0);
        printf("states:\n");
        cJSON_ArrayForEach(s, states) {
                const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "message"));
                char since[32] = "";
                if (json_print_num(s, "mono_ns", &t))
                        snprintf(since, sizeof since, "+%.1fs", (t - t0) / 1e9);
                printf("  %-24s %10s  %-11s%s%s\n", json_print_str(s, "at"), since, json_print_str(s, "state"),
                       message ? " " : "", str_or(message, ""));
        }
}

/* "exited 0", "killed by signal 9", or "-" (still running, or never started) */
static const char *describe_exit(const cJSON *e, char *buf, size_t size) {
        double v;
        if (json_print_num(e, "code", &v))
                snprintf(buf, size, "exited %.0f", v);
        else if (json_print_num(e, "signal", &v))
                snprintf(buf, size, "killed by signal %.0f", v);
        else
                snprintf(buf, size, "-");
        return buf;
}

/* One line of metrics when the figure is there: "  LABEL  VALUE UNIT". */
static void print_metric(const cJSON *metrics, const char *label, const char *path, double scale, int decimals,
                         const char *unit) {
        double v;
        if (json_print_num_at(metrics, path, &v))
                printf("  %-24s %.*f%s\n", label, decimals, v * scale, unit);
}

static void print_capacity(const cJSON *capacity) {
        const cJSON *s;
        double v, pct, max_ms;
        if (!cJSON_IsObject(capacity))
                return;
        printf("  %-24s %s", "capacity", json_print_str(capacity, "outcome"));
        if (json_print_num(capacity, "max_rps", &v))
                printf(", max %.0f req/s", v);
        if (json_print_num(capacity, "critical_rps", &v))
                printf(", critical %.0f req/s", v);
        printf("\n");
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(capacity, "per_sla")) {
                if (!json_print_num(s, "percentile", &pct) || !json_print_num(s, "max_ms", &max_ms))
                        continue;
                printf("    p%g <= %g ms: ", pct, max_ms);
                if (json_print_num(s, "rps", &v))
                        printf("%.0f req/s\n", v);
                else
                        printf("never met\n");
        }
}

static void print_metrics(const cJSON *m) {
        if (!cJSON_IsObject(m)) {
                printf("metrics: none yet\n");
                return;
        }
        printf("metrics (measure phase):\n");
        print_capacity(cJSON_GetObjectItemCaseSensitive(m, "capacity"));
        print_metric(m, "throughput", "throughput_rps", 1, 0, " req/s");
        print_metric(m, "requests", "requests", 1, 0, "");
        print_metric(m, "errors", "errors", 1, 0, "");
        print_metric(m, "latency p50 (scheduled)", "latency_us.scheduled.p50", 1e-3, 3, " ms");
        print_metric(m, "latency p99 (scheduled)", "latency_us.scheduled.p99", 1e-3, 3, " ms");
        print_metric(m, "latency max (scheduled)", "latency_us.scheduled.max", 1e-3, 3, " ms");
        print_metric(m, "ops/s", "ops_per_s", 1, 0, "");
        print_metric(m, "GC pauses", "gc.pauses", 1, 0, "");
        print_metric(m, "GC pause total", "gc.pause_total_ms", 1, 1, " ms");
        print_metric(m, "JIT compile time", "jit.compile_time_s", 1, 2, " s");
        print_metric(m, "CPU throttled", "cgroup.throttled_s", 1, 3, " s");
}

static void show_run(const cJSON *run) {
        const cJSON *w, *exit = cJSON_GetObjectItemCaseSensitive(run, "exit");
        const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "message"));
        double it = 0;
        char sut[48], load[48];

        json_print_num(run, "iteration", &it);
        printf("run %s: cell %s, iteration %.0f of experiment %s\n", json_print_str(run, "id"),
               json_print_str(run, "cell"), it, json_print_str(run, "experiment_id"));
        printf("state:   %s", json_print_str(run, "state"));
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(run, "reason")))
                printf(" (%s)", json_print_str(run, "reason"));
        printf("\n");
        if (message)
                printf("message: %s\n", message);
        printf("exit:    sut %s, load %s\n", describe_exit(cJSON_GetObjectItemCaseSensitive(exit, "sut"), sut, sizeof sut),
               describe_exit(cJSON_GetObjectItemCaseSensitive(exit, "load"), load, sizeof load));
        print_states(run);
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(run, "warnings"))
                printf("warning: %s\n", str_or(cJSON_GetStringValue(w), "?"));
        print_metrics(cJSON_GetObjectItemCaseSensitive(run, "metrics"));
        load_hosts_print_table(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "metrics"), "load"), "hosts"));
}

int cmd_run(struct http *h, const struct client_options *o, const char *run) {
        _cleanup_free_ char *path = http_path(h, "/v1/runs/", run, "");
        return json_print_get(h, o->json, path, show_run);
}
