/* findings.c: GET /v1/experiments/{id}/findings[?baseline=CELL]: why the cells differ, with the
 * evidence (findings/), computed from the store only, so it answers the same after a restart;
 * strong ETag and a cached body once the experiment is finished. The report carries the same
 * list through api_findings_json(). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "api/handlers.h"
#include "basic/json-util.h"
#include "basic/utf8.h"
#include "findings/findings-load.h"
#include "storage/db.h"

int api_findings_json(struct db_conn *c, const char *state_dir, const char *id, const char *baseline, cJSON **ret_list,
                      char ret_baseline[API_CELL_NAME_MAX], char ret_status[EXPERIMENT_STATUS_SIZE]) {
        _cleanup_findings_ struct findings_loaded *l = NULL;
        int r = findings_load(c, state_dir, id, baseline, &l);
        if (r < 0)
                return r;
        const struct findings_input *in = findings_loaded_input(l);
        *ret_list = findings_compute(in);
        snprintf(ret_baseline, API_CELL_NAME_MAX, "%s", in->cells[in->baseline].name);
        snprintf(ret_status, EXPERIMENT_STATUS_SIZE, "%s", findings_loaded_status(l));
        return 0;
}

enum MHD_Result api_get_findings(struct api_request *req) {
        const char *id = req->path_params[0], *baseline = api_query(req, "baseline");
        cJSON *list = NULL;
        char status[EXPERIMENT_STATUS_SIZE], base[API_CELL_NAME_MAX];
        int r = api_findings_json(req->lease.conn, req->config->state_dir, id, baseline, &list, base, status);
        if (r == -EINVAL)
                return api_reply_unknown_baseline(req, baseline);
        if (r < 0) {
                char what[64];
                snprintf(what, sizeof what, "experiment %s", id);
                return api_reply_errno(req, r, what);
        }
        db_lease_release(&req->lease);
        cJSON *body = cJSON_CreateObject();
        cJSON_AddStringToObject(body, "experiment_id", id);
        cJSON_AddStringToObject(body, "status", status);
        cJSON_AddStringToObject(body, "baseline", base);
        cJSON_AddItemToObject(body, "findings", list);
        return api_reply_json_cached(req, body, experiment_status_finished(status));
}

enum MHD_Result api_reply_unknown_baseline(struct api_request *req, const char *baseline) {
        return api_reply_errorf(req, 400, "invalid_parameter", "baseline",
                                "baseline must name a cell of the experiment, got '%.*s'",
                                UTF8_PREFIX(baseline ? baseline : "", 64));
}
