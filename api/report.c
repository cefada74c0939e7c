/* report.c: GET /v1/experiments/{id}/report[?baseline=CELL]: per cell and metric, n, mean,
 * median, geometric mean, stddev, CoV, min, max and a 95% CI over the succeeded iterations (of
 * the geometric mean for positive metrics, so it never goes negative; the method and the mean it
 * belongs to are named); with a baseline, each cell's ratio to it with a 95% interval (geometric
 * means on the log scale for positive metrics, Fieller's for the others; the bootstrap is too
 * narrow for the handful of iterations experiments have), marked approximate for few, unequal
 * iterations; the warmup the runs had (metrics.warmup_s) and, with warmup "auto", how many were
 * steady; and the findings (findings/). Runs that did not succeed are listed, never averaged in. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "storage/db.h"
#include "storage/experiments.h"
#include "api/handlers.h"
#include "basic/json-util.h"
#include "basic/stats.h"
#include "api/cell-stats.h"
#include "api/report-sequential.h"
#include "api/verdict.h"

/* The definition's load.warmup_s is "auto": its canonical JSON (definition-format.c) keeps the
 * word, so the stored definition says it without being parsed again. */
static bool definition_warmup_auto(const cJSON *definition) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(definition, "load"), "warmup_s");
        return cJSON_IsString(w) && strcmp(w->valuestring, "auto") == 0;
}

int api_report_json(struct db_conn *db, const char *state_dir, const char *id, const char *baseline, cJSON **ret, bool *ret_finished) {
        cJSON *rows_raw = NULL, *cells_raw = NULL;
        char status[EXPERIMENT_STATUS_SIZE];
        cJSON *definition_raw = NULL;
        int r = experiments_report_rows(db, id, &rows_raw, &cells_raw, status);
        if (r >= 0)
                r = experiments_definition_json(db, id, &definition_raw);
        _cleanup_json_ cJSON *rows = rows_raw, *cells = cells_raw, *definition = definition_raw;
        if (r < 0)
                return r;
        /* The findings against the same baseline (or the first cell); an unknown baseline is
         * answered below, as before. */
        cJSON *findings_raw = NULL;
        char findings_base[API_CELL_NAME_MAX], findings_status[EXPERIMENT_STATUS_SIZE];
        r = api_findings_json(db, state_dir, id, baseline, &findings_raw, findings_base, findings_status);
        if (r < 0 && r != -EINVAL)
                return r;
        _cleanup_json_ cJSON *findings = findings_raw;

        _cleanup_json_ cJSON *base = NULL;
        if (baseline) {
                const cJSON *c;
                cJSON_ArrayForEach(c, cells) {
                        if (!base && strcmp(cJSON_GetStringValue(c), baseline) == 0)
                                base = cell_gather(rows, baseline);
                }
                if (!base)
                        return -EINVAL;
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
        bool warmup_auto = definition_warmup_auto(definition);
        const cJSON *c;
        cJSON_ArrayForEach(c, cells) {
                const char *name = cJSON_GetStringValue(c);
                _cleanup_json_ cJSON *g = cell_gather(rows, name);
                cJSON *cell = cJSON_CreateObject();
                cJSON_AddStringToObject(cell, "name", name);
                cJSON_AddItemToObject(cell, "runs", cell_run_counts(rows, name));
                cJSON_AddItemToObject(cell, "not_succeeded", cJSON_DetachItemFromObject(g, "not_succeeded"));
                const cJSON *values = cJSON_GetObjectItemCaseSensitive(g, "values");
                cJSON_AddItemToObject(cell, "metrics", cell_metric_stats(values));
                cJSON_AddItemToObject(cell, "steady_state", cell_steady_states(rows, name));
                cJSON_AddItemToObject(cell, "warmup", cell_warmup(rows, name, values, warmup_auto));
                if (base && strcmp(name, baseline) != 0)
                        cJSON_AddItemToObject(cell, "ratios", cell_metric_ratios(values, cJSON_GetObjectItemCaseSensitive(base, "values")));
                else
                        cJSON_AddNullToObject(cell, "ratios");
                cJSON_AddItemToArray(out, cell);
        }
        cJSON_AddItemToObject(body, "findings", findings ? TAKE_PTR(findings) : cJSON_CreateArray());
        cJSON *sequential = NULL;
        if ((r = report_sequential_json(db, id, definition, experiment_status_finished(status), &sequential)) < 0) {
                cJSON_Delete(body);
                return r;
        }
        cJSON *verdict = verdict_json(definition, rows, sequential, experiment_status_finished(status));
        if (verdict)
                cJSON_AddItemToObject(body, "verdict", verdict);
        else
                cJSON_AddNullToObject(body, "verdict");
        cJSON_AddItemToObject(body, "sequential", sequential ? sequential : cJSON_CreateNull());
        *ret_finished = experiment_status_finished(status);
        *ret = body;
        return 0;
}

enum MHD_Result api_get_report(struct api_request *req) {
        const char *id = req->path_params[0], *baseline = api_query(req, "baseline");
        cJSON *body = NULL;
        bool finished = false;
        int r = api_report_json(req->lease.conn, req->config->state_dir, id, baseline, &body, &finished);
        if (r == -EINVAL)
                return api_reply_unknown_baseline(req, baseline);
        if (r < 0) {
                char what[64];
                snprintf(what, sizeof what, "experiment %s", id);
                return api_reply_errno(req, r, what);
        }
        db_lease_release(&req->lease);
        return api_reply_json_cached(req, body, finished);
}
