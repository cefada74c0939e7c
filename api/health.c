/* health.c: GET /v1/health: is the daemon up, which version, which cgroup mode, how deep the queue. */
#include <cjson/cJSON.h>

#include "storage/db.h"
#include "api/handlers.h"
#include "storage/runs.h"

enum MHD_Result api_get_health(struct api_request *req) {
        int64_t queued = 0, active = 0;
        int r = runs_count_queue(req->lease.conn, &queued, &active);
        if (r < 0)
                return api_reply_errno(req, r, "queue");

        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "status", "ok");
        cJSON_AddStringToObject(root, "version", SLICELAB_VERSION);
        cJSON *cg = cJSON_AddObjectToObject(root, "cgroup");
        cJSON_AddStringToObject(cg, "mode", req->config->cgroup_mode);
        if (req->config->cgroup_driver)
                cJSON_AddStringToObject(cg, "driver", req->config->cgroup_driver);
        else
                cJSON_AddNullToObject(cg, "driver");
        if (req->config->cgroup_root)
                cJSON_AddStringToObject(cg, "root", req->config->cgroup_root);
        else
                cJSON_AddNullToObject(cg, "root");
        cJSON *q = cJSON_AddObjectToObject(root, "queue");
        cJSON_AddNumberToObject(q, "depth", (double) queued);
        cJSON_AddNumberToObject(q, "running", (double) active);
        return api_reply_json(req, 200, root);
}
