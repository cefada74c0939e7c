/* histogram.c: GET /v1/runs/{id}/histogram: the measure phase of a stored run as an HdrHistogram
 * interval log (basic/hlog.h, the writer slicelab-inject --hlog uses, so both give the same intervals
 * for the same records), text/plain, intervals of ?interval_ms= (default 1000). One pass over
 * the stored blocks; memory is the log's text and two histograms. */
#include <inttypes.h>
#include <string.h>

#include "api/handlers.h"
#include "api/timeline-cursor.h"
#include "basic/hlog.h"
#include "storage/runs.h"
#include "storage/timeline-store.h"

#define INTERVAL_MS_DEFAULT 1000

/* Only a plain-text log is served: an Accept without text/plain (nor a wildcard) gets 406. */
static bool accepts_text(struct api_request *req) {
        const char *a = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
        return !a || strstr(a, "text/plain") || strstr(a, "text/*") || strstr(a, "*/*");
}

/* The log's intervals span the measure phase's records: at most HLOG_INTERVALS_MAX of them. */
static int check_intervals(struct timeline_cursor *c, int64_t interval_ms, struct error *err) {
        int64_t first_ns, last_ns;
        int r = requests_span(c->lease.conn, c->run_id, &first_ns, &last_ns);
        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return error_set(err, 500, "internal", NULL, "cannot read the timeline of run %s", c->run_id);
        /* The records lie within their blocks' bounds (storage checks each block it reads), so
         * the last one's interval bounds the log's length. */
        int64_t span_ms;
        if (timeline_ms_between(last_ns, c->measure_start_ns, &span_ms) < 0)
                return timeline_cursor_inconsistent(c, err);
        int64_t intervals = MAX(span_ms, INT64_C(0)) / interval_ms + 1;
        if (intervals > HLOG_INTERVALS_MAX)
                return error_set(err, 400, "invalid_parameter", "interval_ms",
                                 "interval_ms %" PRId64 " cuts the measure phase into %" PRId64 " intervals; at most %" PRId64
                                 ": interval_ms must be at least %" PRId64, interval_ms, intervals, HLOG_INTERVALS_MAX,
                                 span_ms / HLOG_INTERVALS_MAX + 1);
        return 0;
}

static int build_log(struct timeline_cursor *c, int64_t interval_ms, char **ret, size_t *ret_len) {
        int64_t offset, wall_start_ns;
        int r = runs_wall_offset(c->lease.conn, c->run_id, &offset);
        if (r < 0)
                return r;
        if (__builtin_add_overflow(c->measure_start_ns, offset, &wall_start_ns))
                return -EUCLEAN;
        struct hlog log;
        r = hlog_begin(&log, c->measure_start_ns, wall_start_ns, interval_ms * 1000000);
        if (r < 0)
                return r;
        const struct timeline_record *rec;
        int64_t seq;
        while ((r = timeline_cursor_next(c, &rec, &seq)) > 0)
                if ((r = hlog_add(&log, rec)) < 0)
                        break;
        if (r < 0) {
                hlog_done(&log);
                return r;
        }
        return hlog_end(&log, ret, ret_len);
}

enum MHD_Result api_get_histogram(struct api_request *req) {
        _cleanup_free_ struct timeline_cursor *c = calloc(1, sizeof *c);
        if (!c)
                return api_reply_errno(req, -ENOMEM, "histogram");
        struct error err = { 0 };
        int64_t interval_ms;
        enum MHD_Result ret;
        if (!accepts_text(req)) {
                error_set(&err, 406, "not_acceptable", "Accept", "the histogram log is text/plain only");
                return api_reply_error(req, &err);
        }
        if (api_query_int(req, "interval_ms", HLOG_INTERVAL_MIN_NS / 1000000, HLOG_INTERVAL_MAX_NS / 1000000,
                          INTERVAL_MS_DEFAULT, &interval_ms, &err) < 0 ||
            timeline_cursor_open(req, c, &err) < 0 || check_intervals(c, interval_ms, &err) < 0)
                ret = api_reply_error(req, &err);
        else {
                c->phases = PHASE_MEASURE;
                c->from_ns = INT64_MIN;
                c->to_ns = INT64_MAX;
                char *text = NULL;
                size_t len = 0;
                int r = build_log(c, interval_ms, &text, &len);
                ret = r >= 0 ? api_reply_buffer_finished(req, text, len, "text/plain; charset=utf-8", c->finished)
                             : timeline_cursor_reply_errno(req, c, r);
        }
        db_lease_release(&c->lease);
        return ret;
}
