/* timeline.c: GET /v1/runs/{id}/timeline: per-request records, in scheduled order. Columnar JSON
 * pages (limit, opaque cursor, from_ms/to_ms relative to the measure start, phase), or the whole
 * of it streamed as CSV or NDJSON by Accept, block by block from the store, with memory that
 * does not grow with the timeline and no allocation per record. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "api/handlers.h"
#include "basic/log.h"
#include "storage/runs.h"
#include "storage/timeline-store.h"
#include "api/timeline-cursor.h"
#include "storage/steps.h"
#include "basic/capacity-search.h"

#define PAGE_LIMIT_DEFAULT 10000
#define PAGE_LIMIT_MAX 100000
#define STREAM_CHUNK (64 * 1024)
#define RECORD_TEXT_MAX 256

/* ---- number formatting without printf: the stream's hot path ------------------------------ */

static char *put_u64(char *p, uint64_t v) {
        char tmp[20];
        size_t n = 0;
        do {
                tmp[n++] = (char) ('0' + v % 10);
                v /= 10;
        } while (v);
        while (n)
                *p++ = tmp[--n];
        return p;
}

static char *put_i64(char *p, int64_t v) {
        if (v < 0) {
                *p++ = '-';
                return put_u64(p, (uint64_t) 0 - (uint64_t) v);
        }
        return put_u64(p, (uint64_t) v);
}

static char *put_str(char *p, const char *s) {
        size_t n = strlen(s);
        memcpy(p, s, n);
        return p + n;
}

static const char *const field_names[] = { "scheduled_ns", "submit_ns", "done_ns", "status", "error", "bytes", "conn", "flags" };

static int64_t field_value(const struct timeline_record *r, size_t i) {
        switch (i) {
        case 0: return r->scheduled_ns;
        case 1: return r->submit_ns;
        case 2: return r->done_ns;
        case 3: return r->status;
        case 4: return r->error;
        case 5: return r->bytes;
        case 6: return r->conn;
        default: return r->flags;
        }
}

static size_t format_csv(const struct timeline_record *r, char *buf) {
        char *p = buf;
        for (size_t i = 0; i < ELEMENTSOF(field_names); i++) {
                if (i)
                        *p++ = ',';
                p = put_i64(p, field_value(r, i));
        }
        *p++ = '\n';
        return (size_t) (p - buf);
}

static size_t format_ndjson(const struct timeline_record *r, char *buf) {
        char *p = buf;
        *p++ = '{';
        for (size_t i = 0; i < ELEMENTSOF(field_names); i++) {
                p = put_str(p, i ? ",\"" : "\"");
                p = put_str(p, field_names[i]);
                p = put_str(p, "\":");
                p = put_i64(p, field_value(r, i));
        }
        p = put_str(p, "}\n");
        return (size_t) (p - buf);
}

/* ---- the query ----------------------------------------------------------------------------- */

static int parse_query(struct api_request *req, struct timeline_cursor *c, int64_t *limit, struct error *err) {
        int64_t from_ms, to_ms, cursor = 0, step;
        if (api_query_int(req, "step", 0, CAPACITY_STEPS_MAX - 1, -1, &step, err) < 0 ||
            api_query_int(req, "limit", 1, PAGE_LIMIT_MAX, PAGE_LIMIT_DEFAULT, limit, err) < 0 ||
            api_query_int(req, "from_ms", -(INT64_C(1) << 40), INT64_C(1) << 40, INT64_MIN, &from_ms, err) < 0 ||
            api_query_int(req, "to_ms", -(INT64_C(1) << 40), INT64_C(1) << 40, INT64_MAX, &to_ms, err) < 0)
                return -EINVAL;
        if (api_query_cursor(req, &cursor, err) < 0)
                return -EINVAL;
        if (timeline_query_phase(req, &c->phases, err) < 0)
                return -EINVAL;
        if (from_ms != INT64_MIN && to_ms != INT64_MAX && from_ms > to_ms)
                return error_set(err, 400, "invalid_parameter", "from_ms", "from_ms (%" PRId64 ") is after to_ms (%" PRId64 ")", from_ms, to_ms);
        c->step = (int) step;
        c->next_seq = cursor;
        /* Relative to the measure start for now; made absolute once the run's clock is known. */
        c->from_ns = from_ms;
        c->to_ns = to_ms;
        return 0;
}

static int open_cursor(struct api_request *req, struct timeline_cursor *c, struct error *err, int64_t *limit) {
        const char *id = req->path_params[0];
        timeline_cursor_attach(req, c);
        if (parse_query(req, c, limit, err) < 0)
                return -EINVAL;
        int64_t start;
        int r = runs_measure_start(c->lease.conn, id, &start);
        if (r == -ENOENT)
                return error_set(err, 404, "not_found", NULL, "run not found");
        if (c->step >= 0 && (r >= 0 || r == -ENODATA)) {
                r = steps_measure_start(c->lease.conn, id, (unsigned) c->step, &start);
                if (r == -ENOENT || r == -ENODATA)
                        return error_set(err, 404, "not_found", NULL, "run %s has no step %d (yet)", id, c->step);
        }
        if (r == -ENODATA)
                return error_set(err, 404, "not_found", NULL, "run %s has no timeline (yet)", id);
        if (r < 0)
                return error_set(err, 500, "internal", NULL, "cannot read run %s", id);
        c->measure_start_ns = start;
        if (runs_is_finished(c->lease.conn, id, &c->finished) < 0)
                return error_set(err, 500, "internal", NULL, "cannot read run %s", id);
        if ((c->from_ns != INT64_MIN && timeline_ns_at(start, c->from_ns, &c->from_ns) < 0) ||
            (c->to_ns != INT64_MAX && timeline_ns_at(start, c->to_ns, &c->to_ns) < 0))
                return timeline_cursor_inconsistent(c, err);
        return timeline_cursor_check(c, err);
}

/* ---- streams ----------------------------------------------------------------------------- */

/* A stream holds a database connection only while it fills a chunk: between chunks (a slow
 * reader's socket is full) it holds its cursor, the block in memory and nothing of the pool. */
struct stream {
        struct api_server *server;
        struct storage *storage;
        struct timeline_cursor cursor;
        size_t (*format)(const struct timeline_record *r, char *buf);
        char pending[RECORD_TEXT_MAX + 128];    /* a line that did not fit the last chunk */
        size_t pending_len, pending_off;
};

static ssize_t stream_fill(struct stream *s, char *buf, size_t max) {
        size_t len = 0;
        if (s->pending_len) {
                size_t n = MIN(max, s->pending_len - s->pending_off);
                memcpy(buf, s->pending + s->pending_off, n);
                s->pending_off += n;
                len += n;
                if (s->pending_off == s->pending_len)
                        s->pending_len = s->pending_off = 0;
        }
        while (len + RECORD_TEXT_MAX <= max) {
                const struct timeline_record *rec;
                int64_t seq;
                int r = timeline_cursor_next(&s->cursor, &rec, &seq);
                if (r < 0) {
                        log_error_errno(r, "timeline stream of run %s", s->cursor.run_id);
                        return MHD_CONTENT_READER_END_WITH_ERROR;
                }
                if (r == 0)
                        return len > 0 ? (ssize_t) len : MHD_CONTENT_READER_END_OF_STREAM;
                len += s->format(rec, buf + len);
        }
        return (ssize_t) len;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
        struct stream *s = cls;
        /* The bounded wait applies mid-stream too; a stream that cannot get a connection ends
         * (the client sees a cut chunked body) rather than hold a worker. */
        int r = db_lease_take(s->storage, &s->cursor.lease);
        if (r < 0) {
                log_warning_errno(r, "timeline stream of run %s: no database connection, ending it", s->cursor.run_id);
                return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        ssize_t n = stream_fill(s, buf, max);
        db_lease_release(&s->cursor.lease);
        return n;
}

static void stream_free(void *cls) {
        struct stream *s = cls;
        db_lease_release(&s->cursor.lease);
        if (s->server)
                api_stream_end(s->server);
        free(s);
}

static enum MHD_Result reply_stream(struct api_request *req, struct stream *s, const char *type) {
        /* Nothing of the pool is kept while the response waits for its reader. */
        db_lease_release(&s->cursor.lease);
        if (s->format == format_csv) {
                s->pending_len = (size_t) snprintf(s->pending, sizeof s->pending,
                                                   "scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags\n");
        }
        struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_CHUNK, stream_read, s, stream_free);
        if (!resp) {
                stream_free(s);
                return MHD_NO;
        }
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        enum MHD_Result ret = MHD_queue_response(req->connection, 200, resp);
        MHD_destroy_response(resp);
        return ret;
}

/* ---- pages -------------------------------------------------------------------------------- */

struct text {
        char *buf;
        size_t len, cap;
};

static int text_reserve(struct text *t, size_t more) {
        if (t->len + more <= t->cap)
                return 0;
        size_t cap = MAX(t->cap * 2, t->len + more + 4096);
        char *n = realloc(t->buf, cap);
        if (!n)
                return -ENOMEM;
        t->buf = n;
        t->cap = cap;
        return 0;
}

static enum MHD_Result reply_page(struct api_request *req, struct timeline_cursor *c, int64_t limit) {
        _cleanup_free_ struct timeline_record *recs = malloc((size_t) limit * sizeof *recs);
        if (!recs)
                return api_reply_errno(req, -ENOMEM, "timeline");
        size_t n = 0;
        int64_t seq = 0;
        const struct timeline_record *rec;
        int r = 0;
        while ((size_t) n < (size_t) limit && (r = timeline_cursor_next(c, &rec, &seq)) > 0)
                recs[n++] = *rec;
        /* Is there a record after the page? Its seq is the next cursor. */
        int64_t next = -1;
        if ((size_t) n == (size_t) limit && (r = timeline_cursor_next(c, &rec, &seq)) > 0)
                next = seq;
        if (r < 0)
                return timeline_cursor_reply_errno(req, c, r);

        struct text t = { 0 };
        if (text_reserve(&t, 64 + n * 8 * 22 + 256) < 0)
                return api_reply_errno(req, -ENOMEM, "timeline");
        char *p = t.buf;
        p = put_str(p, "{\"measure_start_ns\":");
        p = put_i64(p, c->measure_start_ns);
        for (size_t f = 0; f < ELEMENTSOF(field_names); f++) {
                p = put_str(p, f ? "],\"" : ",\"");
                p = put_str(p, field_names[f]);
                p = put_str(p, "\":[");
                for (size_t i = 0; i < n; i++) {
                        if (i)
                                *p++ = ',';
                        p = put_i64(p, field_value(&recs[i], f));
                }
        }
        p = put_str(p, "],\"count\":");
        p = put_u64(p, n);
        if (next >= 0)
                p += sprintf(p, ",\"next_cursor\":\"%" PRIx64 "\"}", (uint64_t) next);
        else
                p = put_str(p, ",\"next_cursor\":null}");
        return api_reply_buffer_finished(req, t.buf, (size_t) (p - t.buf), "application/json", c->finished);
}

static bool accepts(struct api_request *req, const char *type) {
        const char *a = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
        return a && strstr(a, type);
}

enum MHD_Result api_get_timeline(struct api_request *req) {
        struct error err = { 0 };
        int64_t limit = 0;
        bool csv = accepts(req, "text/csv"), ndjson = accepts(req, "application/x-ndjson");
        if (csv || ndjson) {
                unsigned max;
                if (!api_stream_begin(req->server, &max))
                        return api_reply_errorf(req, 503, "too_many_streams", NULL,
                                                "%u timeline streams are open, the most this daemon serves at once; retry later",
                                                max);
                struct stream *s = calloc(1, sizeof *s);
                if (!s) {
                        api_stream_end(req->server);
                        return api_reply_errno(req, -ENOMEM, "timeline");
                }
                s->server = req->server;
                s->storage = req->config->storage;
                if (open_cursor(req, &s->cursor, &err, &limit) < 0) {
                        stream_free(s);
                        return api_reply_error(req, &err);
                }
                s->format = csv ? format_csv : format_ndjson;
                return reply_stream(req, s, csv ? "text/csv" : "application/x-ndjson");
        }
        _cleanup_free_ struct timeline_cursor *c = calloc(1, sizeof *c);
        if (!c)
                return api_reply_errno(req, -ENOMEM, "timeline");
        enum MHD_Result ret = open_cursor(req, c, &err, &limit) < 0 ? api_reply_error(req, &err) : reply_page(req, c, limit);
        db_lease_release(&c->lease);
        return ret;
}
