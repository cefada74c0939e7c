/* metrics.c: GET /metrics in Prometheus text format: the queue, runs by state, run durations,
 * and the last succeeded run's throughput and p99 per experiment and cell, for the 20 most
 * recent experiments only, so the label sets stay bounded. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "storage/db.h"
#include "api/handlers.h"
#include "storage/runs.h"

#define METRICS_EXPERIMENTS 20
#define METRICS_MAX (256 * 1024)

struct out {
        char *buf;
        size_t len;
};

static void outf(struct out *o, const char *fmt, ...) _printf_(2, 3);
static void outf(struct out *o, const char *fmt, ...) {
        if (o->len >= METRICS_MAX)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, METRICS_MAX - o->len, fmt, ap);
        va_end(ap);
        if (n > 0)
                o->len = MIN(o->len + (size_t) n, (size_t) METRICS_MAX);
}

/* Label values: backslash, double quote and newline escaped, as the text format wants. */
static void escape_label(const char *in, char *out, size_t size) {
        size_t j = 0;
        for (; *in && j + 2 < size; in++) {
                if (*in == '\\' || *in == '"' || *in == '\n') {
                        out[j++] = '\\';
                        out[j++] = *in == '\n' ? 'n' : *in;
                } else
                        out[j++] = *in;
        }
        out[j] = '\0';
}

static void latest_per_cell(struct out *o, const cJSON *rows, const char *metric, const char *key, double scale,
                            const char *help) {
        outf(o, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
                if (!cJSON_IsNumber(v))
                        continue;
                char exp[256], id[32], cell[160];
                escape_label(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "experiment")), exp, sizeof exp);
                escape_label(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "experiment_id")), id, sizeof id);
                escape_label(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "cell")), cell, sizeof cell);
                outf(o, "%s{experiment=\"%s\",experiment_id=\"%s\",cell=\"%s\"} %.17g\n", metric, exp, id, cell,
                     v->valuedouble * scale);
        }
}

enum MHD_Result api_get_metrics(struct api_request *req) {
        struct db_conn *db = req->lease.conn;
        struct runs_overview ov;
        int64_t queued = 0, active = 0;
        cJSON *latest = NULL;
        int r = runs_count_queue(db, &queued, &active);
        if (r >= 0)
                r = runs_overview(db, &ov);
        if (r >= 0)
                r = runs_latest_per_cell(db, METRICS_EXPERIMENTS, &latest);
        if (r < 0)
                return api_reply_errno(req, r, "metrics");
        db_lease_release(&req->lease);

        struct out o = { .buf = malloc(METRICS_MAX + 1) };
        if (!o.buf) {
                cJSON_Delete(latest);
                return MHD_NO;
        }
        outf(&o, "# HELP slicelab_queue_depth Runs waiting to start.\n# TYPE slicelab_queue_depth gauge\nslicelab_queue_depth %lld\n",
             (long long) queued);
        outf(&o, "# HELP slicelab_runs_active Runs between preparing and collecting.\n# TYPE slicelab_runs_active gauge\nslicelab_runs_active %lld\n",
             (long long) active);
        outf(&o, "# HELP slicelab_runs Runs in the store by state.\n# TYPE slicelab_runs gauge\n");
        for (int i = 0; i < _RUN_STATE_MAX; i++)
                outf(&o, "slicelab_runs{state=\"%s\"} %lld\n", run_state_to_string(i), (long long) ov.by_state[i]);
        outf(&o, "# HELP slicelab_run_duration_seconds Duration of finished runs, preparing to their end.\n"
                 "# TYPE slicelab_run_duration_seconds summary\n"
                 "slicelab_run_duration_seconds_sum %.9g\nslicelab_run_duration_seconds_count %lld\n",
             ov.duration_sum_s, (long long) ov.finished);
        latest_per_cell(&o, latest, "slicelab_last_run_throughput_rps", "throughput_rps", 1,
                        "Throughput of the last succeeded run per experiment and cell (requests/s).");
        latest_per_cell(&o, latest, "slicelab_last_run_p99_seconds", "p99_us", 1e-6,
                        "p99 latency from scheduled time of the last succeeded run per experiment and cell.");
        latest_per_cell(&o, latest, "slicelab_last_run_ops_per_second", "ops_per_s", 1,
                        "ops_per_s of the last succeeded run of a SUT without load, per experiment and cell.");
        cJSON_Delete(latest);

        return api_reply_buffer(req, 200, o.buf, o.len, "text/plain; version=0.0.4; charset=utf-8");
}
