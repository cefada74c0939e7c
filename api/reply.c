/* reply.c: JSON replies and the design's error body {"error":{"code","field","message"}}. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/utf8.h"
#include "api/server.h"
#include "storage/db.h"

static enum MHD_Result queue_buffer(struct MHD_Connection *c, unsigned status, char *text, size_t len,
                                    const char *content_type, const char *const *headers) {
        struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
        if (!r) {
                free(text);
                return MHD_NO;
        }
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
        for (const char *const *h = headers; h && h[0] && h[1]; h += 2)
                MHD_add_response_header(r, h[0], h[1]);
        enum MHD_Result ret = MHD_queue_response(c, status, r);
        MHD_destroy_response(r);
        return ret;
}

enum MHD_Result api_reply_buffer(struct api_request *req, unsigned status, char *text, size_t len,
                                 const char *content_type) {
        return queue_buffer(req->connection, status, text, len, content_type, NULL);
}

char *api_json_text(const cJSON *body, const char *url) {
        bool replaced;
        char *text = json_print_utf8(body, &replaced);
        /* The sanitising is the last line: a string that needs it came from somewhere that let
         * invalid UTF-8 in, which is worth finding. */
        if (replaced)
                log_warning("the answer to %s held bytes that are not UTF-8: sent as U+FFFD", url ? url : "a request");
        return text;
}

static enum MHD_Result queue_json(struct MHD_Connection *c, const char *url, unsigned status, cJSON *body,
                                  const char *const *headers) {
        _cleanup_json_ cJSON *owned = body;
        char *text = body ? api_json_text(body, url) : strdup("{}");
        if (!text)
                return MHD_NO;
        return queue_buffer(c, status, text, strlen(text), "application/json", headers);
}

enum MHD_Result api_reply_json(struct api_request *req, unsigned status, cJSON *body) {
        return queue_json(req->connection, req->url, status, body, NULL);
}

enum MHD_Result api_reply_json_headers(struct api_request *req, unsigned status, cJSON *body,
                                       const char *const *headers) {
        return queue_json(req->connection, req->url, status, body, headers);
}

static cJSON *error_body(const struct error *err) {
        cJSON *root = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(root, "error");
        if (!e) {
                cJSON_Delete(root);
                return NULL;
        }
        cJSON_AddStringToObject(e, "code", err->code[0] ? err->code : "error");
        if (err->field[0])
                cJSON_AddStringToObject(e, "field", err->field);
        else
                cJSON_AddNullToObject(e, "field");
        cJSON_AddStringToObject(e, "message", err->message);
        return root;
}

/* Every 503 says when to come back: the conditions behind it (an exhausted pool, the stream
 * cap, a busy store) clear within seconds. */
#define RETRY_AFTER_S "1"

enum MHD_Result api_reply_error_on(struct MHD_Connection *c, const struct error *err,
                                   const char *const *headers) {
        static const char *const retry_after[] = { "Retry-After", RETRY_AFTER_S, NULL };
        unsigned status = err->status ? (unsigned) err->status : 500;
        return queue_json(c, NULL, status, error_body(err), status == 503 && !headers ? retry_after : headers);
}

int api_error_pool_exhausted(struct error *err) {
        error_set(err, 503, "pool_exhausted", NULL,
                  "all %u database connections stayed in use for %u ms; retry after " RETRY_AFTER_S " s",
                  storage_pool_size(), (unsigned) DB_LEASE_WAIT_MS);
        return -EAGAIN;
}

enum MHD_Result api_reply_error(struct api_request *req, const struct error *err) {
        return api_reply_error_on(req->connection, err, NULL);
}

enum MHD_Result api_reply_errorf(struct api_request *req, unsigned status, const char *code,
                                 const char *field, const char *fmt, ...) {
        struct error err = { 0 };
        va_list ap;
        va_start(ap, fmt);
        error_setv(&err, (int) status, code, field, fmt, ap);
        va_end(ap);
        return api_reply_error(req, &err);
}

int api_error_inconsistent(struct error *err, const char *what) {
        error_set(err, 500, "stored_data_inconsistent", NULL,
                  "%s: the stored data is inconsistent (figures no slicelabd writes); the daemon's log names the rows",
                  what);
        return -EUCLEAN;
}

enum MHD_Result api_reply_errno(struct api_request *req, int r, const char *what) {
        switch (r) {
        case -EUCLEAN: {
                struct error err = { 0 };
                api_error_inconsistent(&err, what);
                return api_reply_error(req, &err);
        }
        case -ENOENT:
                return api_reply_errorf(req, 404, "not_found", NULL, "%s not found", what);
        case -EBUSY:
                return api_reply_errorf(req, 503, "busy", NULL, "%s: the store is busy, retry", what);
        case -EAGAIN: {
                struct error err = { 0 };
                api_error_pool_exhausted(&err);
                return api_reply_error(req, &err);
        }
        default:
                log_error_errno(r, "%s %s: %s", req->method, req->url, what);
                return api_reply_errorf(req, 500, "internal", NULL, "%s: %s", what, strerror(-r));
        }
}

const char *api_query(struct api_request *req, const char *name) {
        return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, name);
}

int api_query_int(struct api_request *req, const char *name, int64_t min, int64_t max, int64_t def,
                  int64_t *ret, struct error *err) {
        const char *v = api_query(req, name);
        if (!v) {
                *ret = def;
                return 0;
        }
        char *end;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || n < min || n > max)
                return error_set(err, 400, "invalid_parameter", name,
                                 "query parameter '%s' must be an integer from %" PRId64 " to %" PRId64 ", got '%.*s'",
                                 name, min, max, UTF8_PREFIX(v, 64));
        *ret = n;
        return 0;
}

int api_query_cursor(struct api_request *req, int64_t *ret, struct error *err) {
        const char *c = api_query(req, "cursor");
        if (!c) {
                *ret = 0;
                return 0;
        }
        size_t n = strlen(c);
        if (n == 0 || n > 16 || strspn(c, "0123456789abcdef") != n)
                return error_set(err, 400, "invalid_parameter", "cursor",
                                 "cursor must be a value returned as next_cursor, got '%.*s'", UTF8_PREFIX(c, 32));
        *ret = (int64_t) strtoull(c, NULL, 16);
        return 0;
}

void api_wake_loop(struct api_request *req) {
        uint64_t one = 1;
        if (write(req->config->wake_fd, &one, sizeof one) < 0)
                log_warning_errno(negative_errno(), "cannot wake the event loop");
}

enum MHD_Result api_reply_not_modified_fd(struct api_request *req, int fd, const char *etag) {
        close(fd);
        return api_reply_not_modified(req, etag);
}

enum MHD_Result api_reply_not_modified(struct api_request *req, const char *etag) {
        struct MHD_Response *resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "max-age=86400, immutable");
        enum MHD_Result ret = MHD_queue_response(req->connection, 304, resp);
        MHD_destroy_response(resp);
        return ret;
}

enum MHD_Result api_reply_fd(struct api_request *req, unsigned status, int fd, uint64_t off, uint64_t len,
                             const char *content_type, const char *const *headers) {
        struct MHD_Response *resp = MHD_create_response_from_fd_at_offset64(len, fd, off);
        if (!resp) {
                close(fd);
                return MHD_NO;
        }
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
        for (const char *const *h = headers; h && h[0] && h[1]; h += 2)
                MHD_add_response_header(resp, h[0], h[1]);
        enum MHD_Result ret = MHD_queue_response(req->connection, status, resp);
        MHD_destroy_response(resp);
        return ret;
}
