/* cache.c: strong ETags and 304 for things that no longer change (finished runs, experiments
 * and their reports), so dashboards that poll cost one hash and no body. */
#include <cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "handlers.h"

static uint64_t fnv1a64(const char *s, size_t n) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char) s[i];
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

/* If-None-Match: "*", one tag, or a comma-separated list; weak tags compare by their value. */
static bool if_none_match(struct api_request *req, const char *etag) {
        const char *h = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
        if (!h)
                return false;
        return strcmp(h, "*") == 0 || strstr(h, etag) != NULL;
}

enum MHD_Result api_reply_json_cached(struct api_request *req, cJSON *body, bool finished) {
        char *text = cJSON_PrintUnformatted(body);
        cJSON_Delete(body);
        if (!text)
                return MHD_NO;
        size_t len = strlen(text);
        char etag[24];
        snprintf(etag, sizeof etag, "\"%016" PRIx64 "\"", fnv1a64(text, len));
        const char *cache = finished ? "max-age=86400, immutable" : "no-cache";
        struct MHD_Response *resp;
        unsigned status = 200;
        if (if_none_match(req, etag)) {
                free(text);
                status = 304;
                resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        } else
                resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
        if (!resp) {
                if (status == 200)
                        free(text);
                return MHD_NO;
        }
        if (status == 200)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache);
        enum MHD_Result ret = MHD_queue_response(req->connection, status, resp);
        MHD_destroy_response(resp);
        return ret;
}
