/* host.c: GET /v1/host: the host's CPUs, topology, cpufreq, THP, kernel, memory, java, and the
 * cgroup mode the daemon drives. */
#include <cjson/cJSON.h>

#include "api/handlers.h"
#include "host/host-info.h"

enum MHD_Result api_get_host(struct api_request *req) {
        cJSON *host = NULL;
        int r = host_info_json("", NULL, &host);
        if (r < 0)
                return api_reply_errno(req, r, "host");
        cJSON *cg = cJSON_AddObjectToObject(host, "cgroup");
        cJSON_AddStringToObject(cg, "mode", req->config->cgroup_mode);
        cJSON_AddStringToObject(cg, "driver", req->config->cgroup_driver ? req->config->cgroup_driver : "");
        cJSON_AddStringToObject(cg, "root", req->config->cgroup_root ? req->config->cgroup_root : "");
        return api_reply_json(req, 200, host);
}
