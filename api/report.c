/* report.c: GET /v1/experiments/{id}/report[?baseline=CELL]: per cell and metric, n, mean,
 * median, stddev, CoV, min, max and a 95% CI over the succeeded iterations (of the geometric
 * mean for positive metrics, so it never goes negative; the method is named); with a baseline,
 * each cell's ratio to it with a 95% interval (geometric means on the log scale for positive
 * metrics, Fieller's for the others; the bootstrap is too narrow for the handful of iterations
 * experiments have); and the findings (findings/). Runs that did not succeed are listed, never
 * averaged in. */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "storage/db.h"
#include "storage/experiments.h"
#include "api/handlers.h"
#include "basic/id.h"
#include "basic/json-util.h"
#include "basic/stats.h"

#define METRIC_KEY_MAX 160

/* Numeric leaves of a run's metrics as dotted keys: {"latency_us":{"scheduled":{"p99":..}}}
 * becomes latency_us.scheduled.p99. Identifiers and clock readings are not figures. */
static void flatten(const cJSON *node, const char *prefix, cJSON *into_values) {
        const cJSON *child;
        cJSON_ArrayForEach(child, node) {
                char key[METRIC_KEY_MAX];
                if (snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", child->string) >= (int) sizeof key)
                        continue;
                if (cJSON_IsObject(child))
                        flatten(child, key, into_values);
                else if (cJSON_IsNumber(child) && isfinite(child->valuedouble) && strcmp(key, "measure_start_ns") != 0) {
                        cJSON *list = cJSON_GetObjectItemCaseSensitive(into_values, key);
                        if (!list)
                                list = cJSON_AddArrayToObject(into_values, key);
                        cJSON_AddItemToArray(list, cJSON_CreateNumber(child->valuedouble));
                }
        }
}

static size_t to_doubles(const cJSON *list, double *out, size_t max) {
        size_t n = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, list) {
                if (n < max)
                        out[n++] = v->valuedouble;
        }
        return n;
}

#define ITERATIONS_MAX 1000

static cJSON *metric_stats(const cJSON *values) {
        cJSON *out = cJSON_CreateObject();
        const cJSON *list;
        double x[ITERATIONS_MAX];
        cJSON_ArrayForEach(list, values) {
                size_t n = to_doubles(list, x, ITERATIONS_MAX);
                struct stats_summary s;
                if (stats_describe(x, n, &s) >= 0)
                        cJSON_AddItemToObject(out, list->string, stats_summary_json(&s));
        }
        return out;
}

static cJSON *metric_ratios(const cJSON *values, const cJSON *baseline) {
        cJSON *out = cJSON_CreateObject();
        const cJSON *list;
        double x[ITERATIONS_MAX], b[ITERATIONS_MAX];
        cJSON_ArrayForEach(list, values) {
                const cJSON *base = cJSON_GetObjectItemCaseSensitive(baseline, list->string);
                if (!base)
                        continue;
                size_t nx = to_doubles(list, x, ITERATIONS_MAX), nb = to_doubles(base, b, ITERATIONS_MAX);
                struct stats_ratio r;
                const char *method;
                if (stats_ratio_best(x, nx, b, nb, &r, &method) < 0)
                        continue;
                cJSON *j = stats_ratio_json(&r);
                cJSON_AddStringToObject(j, "method", method);
                cJSON_AddItemToObject(out, list->string, j);
        }
        return out;
}

static cJSON *run_counts(const cJSON *rows, const char *cell) {
        static const char *const states[] = { "succeeded", "failed", "cancelled", "interrupted" };
        double counts[4] = { 0 }, total = 0;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "cell")), cell) != 0)
                        continue;
                total++;
                const char *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "state"));
                for (size_t i = 0; i < ELEMENTSOF(states); i++)
                        if (strcmp(state, states[i]) == 0)
                                counts[i]++;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "total", total);
        double finished = 0;
        for (size_t i = 0; i < ELEMENTSOF(states); i++) {
                cJSON_AddNumberToObject(o, states[i], counts[i]);
                finished += counts[i];
        }
        cJSON_AddNumberToObject(o, "pending", total - finished);
        return o;
}

/* Per cell: {"values": {key: [x...]}, "not_succeeded": [...]} */
static cJSON *gather(const cJSON *rows, const char *cell) {
        cJSON *g = cJSON_CreateObject();
        cJSON *values = cJSON_AddObjectToObject(g, "values");
        cJSON *bad = cJSON_AddArrayToObject(g, "not_succeeded");
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "cell")), cell) != 0)
                        continue;
                const char *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "state"));
                if (strcmp(state, "succeeded") == 0) {
                        flatten(cJSON_GetObjectItemCaseSensitive(row, "metrics"), "", values);
                        continue;
                }
                if (strcmp(state, "failed") != 0 && strcmp(state, "cancelled") != 0 && strcmp(state, "interrupted") != 0)
                        continue;
                cJSON *b = cJSON_CreateObject();
                static const char *const keep[] = { "id", "iteration", "state", "reason" };
                for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                        cJSON_AddItemToObject(b, keep[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(row, keep[i]), true));
                cJSON_AddItemToArray(bad, b);
        }
        return g;
}

enum MHD_Result api_get_report(struct api_request *req) {
        const char *id = req->path_params[0];
        if (!id_valid(id))
                return api_reply_errno(req, -ENOENT, "experiment");
        enum MHD_Result cached;
        if (api_serve_cached(req, &cached))
                return cached;
        const char *baseline = api_query(req, "baseline");
        struct db_lease lease _cleanup_lease_ = { 0 };
        cJSON *rows_raw = NULL, *cells_raw = NULL;
        char status[16];
        int r = db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = experiments_report_rows(lease.conn, id, &rows_raw, &cells_raw, status);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        _cleanup_json_ cJSON *rows = rows_raw, *cells = cells_raw;
        /* The findings against the same baseline (or the first cell); an unknown baseline is
         * answered below, as before. */
        cJSON *findings_raw = NULL;
        char findings_base[API_CELL_NAME_MAX], findings_status[16];
        r = api_findings_json(lease.conn, id, baseline, &findings_raw, findings_base, findings_status);
        if (r < 0 && r != -EINVAL)
                return api_reply_errno(req, r, "experiment");
        _cleanup_json_ cJSON *findings = findings_raw;
        db_lease_release(&lease);

        _cleanup_json_ cJSON *base = NULL;
        if (baseline) {
                const cJSON *c;
                cJSON_ArrayForEach(c, cells) {
                        if (!base && strcmp(cJSON_GetStringValue(c), baseline) == 0)
                                base = gather(rows, baseline);
                }
                if (!base)
                        return api_reply_errorf(req, 400, "invalid_parameter", "baseline",
                                                "baseline must name a cell of the experiment, got '%.64s'", baseline);
        }
        cJSON *body = cJSON_CreateObject();
        cJSON_AddStringToObject(body, "experiment_id", id);
        cJSON_AddStringToObject(body, "status", status);
        if (baseline)
                cJSON_AddStringToObject(body, "baseline", baseline);
        else
                cJSON_AddNullToObject(body, "baseline");
        cJSON_AddNumberToObject(body, "confidence", 0.95);
        cJSON *out = cJSON_AddArrayToObject(body, "cells");
        const cJSON *c;
        cJSON_ArrayForEach(c, cells) {
                const char *name = cJSON_GetStringValue(c);
                _cleanup_json_ cJSON *g = gather(rows, name);
                cJSON *cell = cJSON_CreateObject();
                cJSON_AddStringToObject(cell, "name", name);
                cJSON_AddItemToObject(cell, "runs", run_counts(rows, name));
                cJSON_AddItemToObject(cell, "not_succeeded", cJSON_DetachItemFromObject(g, "not_succeeded"));
                const cJSON *values = cJSON_GetObjectItemCaseSensitive(g, "values");
                cJSON_AddItemToObject(cell, "metrics", metric_stats(values));
                if (base && strcmp(name, baseline) != 0)
                        cJSON_AddItemToObject(cell, "ratios", metric_ratios(values, cJSON_GetObjectItemCaseSensitive(base, "values")));
                else
                        cJSON_AddNullToObject(cell, "ratios");
                cJSON_AddItemToArray(out, cell);
        }
        cJSON_AddItemToObject(body, "findings", findings ? TAKE_PTR(findings) : cJSON_CreateArray());
        return api_reply_json_cached(req, body, experiment_status_finished(status));
}
