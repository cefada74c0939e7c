/* gc.c: GET /v1/runs/{id}/gc: a run's GC and safepoint pauses in start order, paged like the
 * timeline (limit, opaque cursor) so that no request builds more than one page of events. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/handlers.h"
#include "basic/json-util.h"
#include "basic/utf8.h"
#include "storage/db.h"
#include "storage/runs.h"
#include "storage/timeline-store.h"

#define GC_PAGE_LIMIT_DEFAULT 10000
#define GC_PAGE_LIMIT_MAX 100000
#define GC_CURSOR_LEN 32        /* two 16-digit hex numbers: the last event's start and seq */

static int parse_cursor(struct api_request *req, struct gc_key *ret, bool *ret_given, struct error *err) {
        const char *c = api_query(req, "cursor");
        *ret_given = c != NULL;
        if (!c)
                return 0;
        if (strlen(c) != GC_CURSOR_LEN || strspn(c, "0123456789abcdef") != GC_CURSOR_LEN)
                return error_set(err, 400, "invalid_parameter", "cursor",
                                 "cursor must be a value returned as next_cursor, got '%.*s'", UTF8_PREFIX(c, 40));
        char start[17], seq[17];
        memcpy(start, c, 16);
        memcpy(seq, c + 16, 16);
        start[16] = seq[16] = '\0';
        *ret = (struct gc_key){ .start_ns = (int64_t) strtoull(start, NULL, 16), .seq = (int64_t) strtoull(seq, NULL, 16) };
        return 0;
}

enum MHD_Result api_get_gc(struct api_request *req) {
        const char *id = req->path_params[0];
        struct error err = { 0 };
        int64_t limit;
        struct gc_key after, next;
        bool given, more = false, finished = false;
        if (api_query_int(req, "limit", 1, GC_PAGE_LIMIT_MAX, GC_PAGE_LIMIT_DEFAULT, &limit, &err) < 0 ||
            parse_cursor(req, &after, &given, &err) < 0)
                return api_reply_error(req, &err);

        struct db_conn *db = req->lease.conn;
        _cleanup_json_ cJSON *events = NULL;
        int64_t start;
        int r = runs_is_finished(db, id, &finished);
        if (r >= 0) {
                r = runs_measure_start(db, id, &start);
                if (r == -ENODATA) {
                        start = 0;
                        r = 0;
                }
        }
        if (r >= 0)
                r = gc_events_page_json(db, id, given ? &after : NULL, (size_t) limit, &events, &next, &more);
        if (r < 0)
                return api_reply_errno(req, r, "run");
        db_lease_release(&req->lease);

        cJSON *body = cJSON_CreateObject();
        char text[GC_CURSOR_LEN + 1];
        snprintf(text, sizeof text, "%" PRId64, start);
        cJSON_AddRawToObject(body, "measure_start_ns", text); /* exact: ns exceed a double */
        cJSON_AddItemToObject(body, "events", TAKE_PTR(events));
        if (more) {
                snprintf(text, sizeof text, "%016" PRIx64 "%016" PRIx64, (uint64_t) next.start_ns, (uint64_t) next.seq);
                cJSON_AddStringToObject(body, "next_cursor", text);
        } else
                cJSON_AddNullToObject(body, "next_cursor");
        return api_reply_json_finished(req, body, finished);
}
