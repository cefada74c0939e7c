/* buckets.c: GET /v1/runs/{id}/timeline/buckets: a run's timeline cut into fixed time buckets,
 * columnar, for charts: per bucket the records, the errors, exact (nearest-rank) p50, p99 and max
 * of the latency from scheduled and p99 of the injector's lag. One pass over the stored blocks:
 * records are in scheduled order, so a bucket's values are gathered, selected and dropped before
 * the next bucket starts; memory is one bucket's values, never the timeline. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers.h"
#include "api/timeline-cursor.h"
#include "basic/latency.h"
#include "basic/stats.h"
#include "storage/runs.h"

#define BUCKETS_MAX 5000
#define BUCKETS_AUTO 600 /* without width_ms: about as many as a chart has pixels across */
#define SPAN_MS_MAX INT64_C(86400000)

enum column { COL_T, COL_COUNT, COL_ERRORS, COL_P50, COL_P99, COL_MAX, COL_LAG_P99, _COL_MAX };
static const char *const column_names[_COL_MAX] = { "t_ms", "count", "errors", "p50_us", "p99_us", "max_us", "lag_p99_us" };

/* One growing text per column; joined at the end. */
struct columns {
        char *buf[_COL_MAX];
        size_t len[_COL_MAX], cap[_COL_MAX];
};

static void columns_free(struct columns *c) {
        for (size_t i = 0; i < _COL_MAX; i++)
                free(c->buf[i]);
}

static int column_append(struct columns *c, enum column col, const char *text) {
        size_t n = strlen(text);
        if (c->len[col] + n + 2 > c->cap[col]) {
                size_t cap = MAX(c->cap[col] * 2, c->len[col] + n + 4096);
                char *b = realloc(c->buf[col], cap);
                if (!b)
                        return -ENOMEM;
                c->buf[col] = b;
                c->cap[col] = cap;
        }
        if (c->len[col])
                c->buf[col][c->len[col]++] = ',';
        memcpy(c->buf[col] + c->len[col], text, n);
        c->len[col] += n;
        return 0;
}

/* Microseconds with the nanoseconds kept: 1234567 ns -> "1234.567". */
static void format_us(int64_t ns, char out[32]) {
        uint64_t a = ns < 0 ? (uint64_t) 0 - (uint64_t) ns : (uint64_t) ns;
        snprintf(out, 32, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

/* Values of the bucket being filled. */
struct bucket {
        int64_t *sched, *lag;
        size_t n_sched, n_lag, cap;
        uint64_t count, errors;
        int64_t max;
};

static int bucket_add(struct bucket *b, const struct timeline_record *rec) {
        if (b->n_sched == b->cap || b->n_lag == b->cap) {
                size_t cap = MAX(b->cap * 2, (size_t) 1024);
                int64_t *s = realloc(b->sched, cap * sizeof *s);
                if (!s)
                        return -ENOMEM;
                b->sched = s;
                int64_t *l = realloc(b->lag, cap * sizeof *l);
                if (!l)
                        return -ENOMEM;
                b->lag = l;
                b->cap = cap;
        }
        b->count++;
        if (rec->status == 0 || rec->status >= 400)
                b->errors++;
        /* The one rule for which records count (basic/latency), applied to warmup records too:
         * a bucket of the warmup shows the warmup's latency. */
        struct timeline_record r = *rec;
        r.flags &= ~(uint32_t) TIMELINE_WARMUP;
        int64_t v;
        if (latency_of(&r, LATENCY_SCHEDULED, &v)) {
                if (b->n_sched == 0 || v > b->max)
                        b->max = v;
                b->sched[b->n_sched++] = v;
        }
        if (latency_of(&r, LATENCY_LAG, &v))
                b->lag[b->n_lag++] = v;
        return 0;
}

static void percentile_text(int64_t *v, size_t n, enum percentile p, char out[32]) {
        if (n == 0)
                snprintf(out, 32, "null");
        else
                format_us(stats_select_i64(v, n, percentile_rank(p, n) - 1), out);
}

static int bucket_flush(struct bucket *b, int64_t t_ms, struct columns *cols) {
        char text[_COL_MAX][32];
        snprintf(text[COL_T], 32, "%" PRId64, t_ms);
        snprintf(text[COL_COUNT], 32, "%" PRIu64, b->count);
        snprintf(text[COL_ERRORS], 32, "%" PRIu64, b->errors);
        percentile_text(b->sched, b->n_sched, PCT_P50, text[COL_P50]);
        percentile_text(b->sched, b->n_sched, PCT_P99, text[COL_P99]);
        if (b->n_sched)
                format_us(b->max, text[COL_MAX]);
        else
                snprintf(text[COL_MAX], 32, "null");
        percentile_text(b->lag, b->n_lag, PCT_P99, text[COL_LAG_P99]);
        for (size_t i = 0; i < _COL_MAX; i++)
                if (column_append(cols, (enum column) i, text[i]) < 0)
                        return -ENOMEM;
        b->n_sched = b->n_lag = 0;
        b->count = b->errors = 0;
        return 0;
}

struct window {
        int64_t width_ms, from_ms, to_ms;       /* relative to the measure start */
        bool empty;                             /* no stored record in the phase: no bucket */
};

static int64_t floor_div(int64_t a, int64_t b) {
        return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The window: from_ms/to_ms as asked, or the stored records' span in the phase, widened to whole
 * buckets counted from the measure start, so that zooming keeps bucket edges where they were. */
static int window_resolve(struct api_request *req, struct timeline_cursor *c, struct window *w, struct error *err) {
        int64_t from_ms, to_ms;
        if (api_query_int(req, "width_ms", 1, SPAN_MS_MAX, 0, &w->width_ms, err) < 0 ||
            api_query_int(req, "from_ms", -SPAN_MS_MAX, SPAN_MS_MAX, INT64_MIN, &from_ms, err) < 0 ||
            api_query_int(req, "to_ms", -SPAN_MS_MAX, SPAN_MS_MAX, INT64_MAX, &to_ms, err) < 0 ||
            timeline_query_phase(req, &c->phases, err) < 0)
                return -EINVAL;
        if (from_ms != INT64_MIN && to_ms != INT64_MAX && from_ms >= to_ms)
                return error_set(err, 400, "invalid_parameter", "from_ms", "from_ms (%" PRId64 ") must be before to_ms (%" PRId64 ")",
                                 from_ms, to_ms);
        int64_t first_ns, last_ns;
        int r = requests_span(c->lease.conn, c->run_id, &first_ns, &last_ns);
        if (r < 0 && r != -ENODATA)
                return error_set(err, 500, "internal", NULL, "cannot read the timeline of run %s", c->run_id);
        /* The phases' bounds: warmup ends where the measure starts. */
        int64_t lo_ms = 0, hi_ms = 0;
        if (r == 0 && (((c->phases & PHASE_WARMUP) && timeline_ms_between(first_ns, c->measure_start_ns, &lo_ms) < 0) ||
                       ((c->phases & PHASE_MEASURE) && timeline_ms_between(last_ns, c->measure_start_ns, &hi_ms) < 0)))
                return timeline_cursor_inconsistent(c, err);
        if (r == 0 && (c->phases & PHASE_MEASURE))
                hi_ms++;
        w->empty = r == -ENODATA && from_ms == INT64_MIN && to_ms == INT64_MAX;
        if (w->width_ms == 0) /* not given: the finest width that cuts the span into BUCKETS_AUTO */
                w->width_ms = MAX(INT64_C(1), -floor_div(-((to_ms != INT64_MAX ? to_ms : hi_ms) -
                                                           (from_ms != INT64_MIN ? from_ms : lo_ms)), BUCKETS_AUTO));
        w->from_ms = from_ms != INT64_MIN ? from_ms : floor_div(lo_ms, w->width_ms) * w->width_ms;
        w->to_ms = to_ms != INT64_MAX ? to_ms : -floor_div(-hi_ms, w->width_ms) * w->width_ms;
        if (w->to_ms <= w->from_ms)
                w->empty = true;
        if (w->empty)
                return 0;
        int64_t buckets = -floor_div(-(w->to_ms - w->from_ms), w->width_ms);
        if (buckets > BUCKETS_MAX)
                return error_set(err, 400, "invalid_parameter", "width_ms",
                                 "width_ms %" PRId64 " cuts [%" PRId64 ", %" PRId64 ") ms into %" PRId64 " buckets; at most %d: "
                                 "width_ms must be at least %" PRId64, w->width_ms, w->from_ms, w->to_ms, buckets, BUCKETS_MAX,
                                 -floor_div(-(w->to_ms - w->from_ms), BUCKETS_MAX));
        /* Stored bounds or a measure start so far apart that no window of them fits in ns. */
        if (timeline_ns_at(c->measure_start_ns, w->from_ms, &c->from_ns) < 0 ||
            timeline_ns_at(c->measure_start_ns, w->to_ms, &c->to_ns) < 0)
                return timeline_cursor_inconsistent(c, err);
        return 0;
}

/* Every bucket of the window, empty ones included (count 0, percentiles null), so that index i
 * of every column is the bucket starting at from_ms + i * width_ms. */
static int fill(struct timeline_cursor *c, const struct window *w, struct columns *cols) {
        struct bucket b = { 0 };
        int r = 0;
        int64_t width_ns = w->width_ms * 1000000, bucket = 0;
        int64_t n_buckets = w->empty ? 0 : -floor_div(-(w->to_ms - w->from_ms), w->width_ms);
        const struct timeline_record *rec;
        int64_t seq;
        while (!w->empty && (r = timeline_cursor_next(c, &rec, &seq)) > 0) {
                int64_t i = (rec->scheduled_ns - c->from_ns) / width_ns;
                for (; bucket < i && r >= 0; bucket++)
                        r = bucket_flush(&b, w->from_ms + bucket * w->width_ms, cols);
                if (r >= 0)
                        r = bucket_add(&b, rec);
                if (r < 0)
                        break;
        }
        for (; r >= 0 && bucket < n_buckets; bucket++)
                r = bucket_flush(&b, w->from_ms + bucket * w->width_ms, cols);
        free(b.sched);
        free(b.lag);
        return r;
}

static char *render(const struct timeline_cursor *c, const struct window *w, const struct columns *cols, size_t *ret_len) {
        size_t total = 256;
        for (size_t i = 0; i < _COL_MAX; i++)
                total += cols->len[i] + strlen(column_names[i]) + 8;
        char *text = malloc(total), *p = text;
        if (!text)
                return NULL;
        p += sprintf(p, "{\"measure_start_ns\":%" PRId64 ",\"width_ms\":%" PRId64 ",\"from_ms\":%" PRId64 ",\"to_ms\":%" PRId64,
                     c->measure_start_ns, w->width_ms, w->empty ? 0 : w->from_ms, w->empty ? 0 : w->to_ms);
        for (size_t i = 0; i < _COL_MAX; i++) {
                p += sprintf(p, ",\"%s\":[", column_names[i]);
                if (cols->len[i])
                        memcpy(p, cols->buf[i], cols->len[i]);
                p += cols->len[i];
                *p++ = ']';
        }
        *p++ = '}';
        *ret_len = (size_t) (p - text);
        return text;
}

enum MHD_Result api_get_buckets(struct api_request *req) {
        _cleanup_free_ struct timeline_cursor *c = calloc(1, sizeof *c);
        if (!c)
                return api_reply_errno(req, -ENOMEM, "timeline");
        struct error err = { 0 };
        struct window w = { 0 };
        struct columns cols = { 0 };
        enum MHD_Result ret;
        if (timeline_cursor_open(req, c, &err) < 0 || window_resolve(req, c, &w, &err) < 0)
                ret = api_reply_error(req, &err);
        else {
                int r = fill(c, &w, &cols);
                size_t len = 0;
                char *text = r < 0 ? NULL : render(c, &w, &cols, &len);
                ret = text ? api_reply_buffer_finished(req, text, len, "application/json", c->finished)
                           : timeline_cursor_reply_errno(req, c, r < 0 ? r : -ENOMEM);
        }
        columns_free(&cols);
        db_lease_release(&c->lease);
        return ret;
}
