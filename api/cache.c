/* cache.c: strong ETags and 304 for things that no longer change (finished runs, experiments
 * and their reports), so dashboards that poll cost one hash and no body; and since they no
 * longer change, their serialized bodies are kept (a small table, replaced round-robin) and
 * served without asking the store again. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <pthread.h>

#include "api/handlers.h"
#include "basic/hash.h"

#define CACHE_SLOTS 128
#define CACHE_KEY_MAX 160
#define CACHE_BODY_MAX (256 * 1024)

struct cached {
        char key[CACHE_KEY_MAX];
        char etag[24];
        char *body;
        size_t len;
};

static struct {
        pthread_mutex_t lock;
        struct cached slots[CACHE_SLOTS];
        size_t next;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The cache key of a request: its path and query string as the client sent them. */
static bool request_key(struct api_request *req, char key[CACHE_KEY_MAX]) {
        const char *baseline = api_query(req, "baseline");
        return snprintf(key, CACHE_KEY_MAX, "%s?%s", req->url, baseline ? baseline : "") < CACHE_KEY_MAX;
}

/* If-None-Match: "*", one tag, or a comma-separated list; weak tags compare by their value. */
bool api_if_none_match(struct api_request *req, const char *etag) {
        const char *h = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
        if (!h)
                return false;
        return strcmp(h, "*") == 0 || strstr(h, etag) != NULL;
}

static void cache_put(const char *key, const char *etag, const char *text, size_t len) {
        if (len > CACHE_BODY_MAX)
                return;
        char *copy = malloc(len);
        if (!copy)
                return;
        memcpy(copy, text, len);
        pthread_mutex_lock(&cache.lock);
        struct cached *c = &cache.slots[cache.next];
        cache.next = (cache.next + 1) % CACHE_SLOTS;
        free(c->body);
        snprintf(c->key, sizeof c->key, "%s", key);
        snprintf(c->etag, sizeof c->etag, "%s", etag);
        c->body = copy;
        c->len = len;
        pthread_mutex_unlock(&cache.lock);
}

/* A copy of the cached body for key, or NULL. */
static char *cache_get(const char *key, char etag[24], size_t *len) {
        char *copy = NULL;
        pthread_mutex_lock(&cache.lock);
        for (size_t i = 0; i < CACHE_SLOTS; i++) {
                struct cached *c = &cache.slots[i];
                if (!c->body || strcmp(c->key, key) != 0)
                        continue;
                copy = malloc(c->len + 1);
                if (copy) {
                        memcpy(copy, c->body, c->len);
                        *len = c->len;
                        memcpy(etag, c->etag, 24);
                }
                break;
        }
        pthread_mutex_unlock(&cache.lock);
        return copy;
}

static enum MHD_Result send_cacheable(struct api_request *req, char *text, size_t len, const char *etag, bool finished,
                                      const char *content_type) {
        const char *cache_control = finished ? "max-age=86400, immutable" : "no-cache";
        struct MHD_Response *resp;
        unsigned status = 200;
        if (api_if_none_match(req, etag)) {
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
                MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache_control);
        enum MHD_Result ret = MHD_queue_response(req->connection, status, resp);
        MHD_destroy_response(resp);
        return ret;
}

bool api_serve_cached(struct api_request *req, enum MHD_Result *ret) {
        char key[CACHE_KEY_MAX], etag[24];
        size_t len;
        if (!request_key(req, key))
                return false;
        char *text = cache_get(key, etag, &len);
        if (!text)
                return false;
        *ret = send_cacheable(req, text, len, etag, true, "application/json");
        return true;
}

enum MHD_Result api_reply_json_cached(struct api_request *req, cJSON *body, bool finished) {
        char *text = api_json_text(body, req->url);
        cJSON_Delete(body);
        if (!text)
                return MHD_NO;
        size_t len = strlen(text);
        char etag[24], key[CACHE_KEY_MAX];
        snprintf(etag, sizeof etag, "\"%016" PRIx64 "\"", fnv1a64(text, len));
        if (finished && request_key(req, key))
                cache_put(key, etag, text, len);
        return send_cacheable(req, text, len, etag, finished, "application/json");
}

/* Bodies whose key is more than the path (pages, buckets: every query parameter counts) are not
 * kept: the tag is their hash, so a poll still costs no body on the wire. */
enum MHD_Result api_reply_buffer_finished(struct api_request *req, char *text, size_t len, const char *content_type,
                                          bool finished) {
        if (!finished)
                return api_reply_buffer(req, 200, text, len, content_type);
        char etag[24];
        snprintf(etag, sizeof etag, "\"%016" PRIx64 "\"", fnv1a64(text, len));
        return send_cacheable(req, text, len, etag, true, content_type);
}

enum MHD_Result api_reply_json_finished(struct api_request *req, cJSON *body, bool finished) {
        char *text = api_json_text(body, req->url);
        cJSON_Delete(body);
        if (!text)
                return MHD_NO;
        return api_reply_buffer_finished(req, text, strlen(text), "application/json", finished);
}
