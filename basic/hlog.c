/* hlog.c: the interval log's text: header, then two lines per interval. */
#include "basic/hlog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/latency.h"
#include "basic/macro.h"

static const char *const tag_names[_HLOG_TAG_MAX] = { "scheduled", "submit" };
static const enum latency_kind tag_kinds[_HLOG_TAG_MAX] = { LATENCY_SCHEDULED, LATENCY_SUBMIT };

static int append(struct hlog *l, const char *fmt, ...) _printf_(2, 3);
static int append(struct hlog *l, const char *fmt, ...) {
        for (;;) {
                va_list ap;
                va_start(ap, fmt);
                int n = vsnprintf(l->text + l->len, l->cap - l->len, fmt, ap);
                va_end(ap);
                if (n < 0)
                        return -EIO;
                if ((size_t) n < l->cap - l->len) {
                        l->len += (size_t) n;
                        return 0;
                }
                size_t cap = MAX(l->cap * 2, l->len + (size_t) n + 4096);
                char *t = realloc(l->text, cap);
                if (!t)
                        return -ENOMEM;
                l->text = t;
                l->cap = cap;
        }
}

/* Seconds with milliseconds, as the format writes timestamps; exact in integers. */
static int append_seconds(struct hlog *l, int64_t ns, const char *after) {
        int64_t ms = ns / 1000000;
        return append(l, "%" PRId64 ".%03" PRId64 "%s", ms / 1000, ms % 1000, after);
}

static int write_header(struct hlog *l, int64_t wall_start_ns) {
        time_t secs = (time_t) (wall_start_ns / 1000000000);
        struct tm tm;
        char date[64] = "";
        if (gmtime_r(&secs, &tm))
                strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
        int r = append(l, "#[Logged with slicelab %s]\n#[Histogram log format version 1.3]\n", SLICELAB_VERSION);
        if (r == 0)
                r = append(l, "#[StartTime: ");
        if (r == 0)
                r = append_seconds(l, wall_start_ns, " (seconds since epoch), ");
        if (r == 0)
                r = append(l, "%s]\n#[BaseTime: ", date);
        if (r == 0)
                r = append_seconds(l, wall_start_ns, " (seconds since epoch)]\n");
        if (r == 0)
                r = append(l, "#[Values are microseconds; Interval_Max in milliseconds]\n"
                              "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
        return r;
}

int hlog_begin(struct hlog *l, int64_t measure_start_ns, int64_t wall_start_ns, int64_t interval_ns) {
        struct hlog n = {
                .measure_start_ns = measure_start_ns,
                .interval_ns = interval_ns,
                .interval = -1,
                .text = malloc(4096),
                .cap = 4096,
        };
        if (!n.text)
                return -ENOMEM;
        for (int t = 0; t < _HLOG_TAG_MAX; t++)
                if (hdr_init(&n.h[t]) < 0) {
                        hlog_done(&n);
                        return -ENOMEM;
                }
        if (write_header(&n, wall_start_ns) < 0) {
                hlog_done(&n);
                return -ENOMEM;
        }
        *l = n;
        return 0;
}

static int flush_interval(struct hlog *l) {
        for (int t = 0; t < _HLOG_TAG_MAX; t++) {
                _cleanup_free_ char *b64 = NULL;
                int r = hdr_encode_base64(&l->h[t], &b64);
                if (r < 0)
                        return r;
                r = append(l, "Tag=%s,", tag_names[t]);
                if (r == 0)
                        r = append_seconds(l, l->interval * l->interval_ns, ",");
                if (r == 0)
                        r = append_seconds(l, l->interval_ns, ",");
                if (r == 0)
                        r = append(l, "%" PRId64 ".%03" PRId64 ",%s\n", l->h[t].max / 1000, l->h[t].max % 1000, b64);
                if (r < 0)
                        return r;
                hdr_reset(&l->h[t]);
        }
        return 0;
}

int hlog_add(struct hlog *l, const struct timeline_record *r) {
        if ((r->flags & TIMELINE_WARMUP) || r->scheduled_ns < l->measure_start_ns)
                return 0;
        int64_t interval = (r->scheduled_ns - l->measure_start_ns) / l->interval_ns;
        if (l->interval < 0)
                l->interval = interval;
        while (l->interval < interval) {   /* records come in scheduled order */
                int e = flush_interval(l);
                if (e < 0)
                        return e;
                l->interval++;
        }
        for (int t = 0; t < _HLOG_TAG_MAX; t++) {
                int64_t ns;
                if (latency_of(r, tag_kinds[t], &ns)) /* to the nearest us; negative ones count as 0 */
                        hdr_record(&l->h[t], ns < 0 ? 0 : ns / 1000 + (ns % 1000 >= 500));
        }
        return 0;
}

int hlog_end(struct hlog *l, char **ret, size_t *ret_len) {
        int r = l->interval >= 0 ? flush_interval(l) : 0;
        if (r < 0) {
                hlog_done(l);
                return r;
        }
        *ret_len = l->len;
        *ret = TAKE_PTR(l->text);
        hlog_done(l);
        return 0;
}

void hlog_done(struct hlog *l) {
        for (int t = 0; t < _HLOG_TAG_MAX; t++)
                hdr_done(&l->h[t]);
        free(l->text);
        l->text = NULL;
}
