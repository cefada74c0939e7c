/* runs.c: GET /v1/runs/{id}: a run's state and its history so far. */
#include <cjson/cJSON.h>

#include "storage/db.h"
#include "api/handlers.h"
#include "storage/runs.h"
#include "storage/samples-store.h"
#include "storage/steps.h"

enum MHD_Result api_get_run(struct api_request *req) {
        cJSON *run = NULL;
        int r = runs_get_json(req->lease.conn, req->path_params[0], &run);
        if (r < 0)
                return api_reply_errno(req, r, "run");
        const char *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "state"));
        return api_reply_json_cached(req, run, run_state_is_terminal(run_state_from_string(state)));
}

/* GET /v1/runs/{id}/samples: the run's 1 s series, columnar. */
enum MHD_Result api_get_samples(struct api_request *req) {
        cJSON *body = NULL;
        bool finished = false;
        int r = runs_is_finished(req->lease.conn, req->path_params[0], &finished);
        if (r >= 0)
                r = samples_json(req->lease.conn, req->path_params[0], &body);
        if (r < 0)
                return api_reply_errno(req, r, "run");
        return api_reply_json_finished(req, body, finished);
}

/* GET /v1/runs/{id}/steps: a capacity search's steps in order (empty for other runs). */
enum MHD_Result api_get_steps(struct api_request *req) {
        cJSON *steps = NULL;
        int r = steps_json(req->lease.conn, req->path_params[0], &steps);
        if (r < 0)
                return api_reply_errno(req, r, "run");
        cJSON *body = cJSON_CreateObject();
        cJSON_AddStringToObject(body, "run_id", req->path_params[0]);
        cJSON_AddItemToObject(body, "steps", steps);
        return api_reply_json(req, 200, body);
}
