/* timeline-series.c: a run's per-interval series from its sorted timeline and its steady-state
 * class (see timeline-series.h). The records are sorted by scheduled time, so each interval is
 * one range of them: one pass, a median by selection per interval. */
#include "daemon/timeline-series.h"
#include "daemon/steady-state-json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/stats.h"
#include "basic/time-util.h"

struct series {
        double *value;          /* per interval with a value */
        double *start_s, *end_s; /* its span, seconds from the schedule's start */
        size_t n;
};

static void series_done(struct series *s) {
        free(s->value);
        free(s->start_s);
        free(s->end_s);
}

/* The value of records [a, b): their answered requests per second, or the median latency. */
static bool interval_value(const struct timeline *t, size_t a, size_t b, bool rate_metric, int64_t *scratch,
                           double *ret) {
        size_t n = 0;
        for (size_t i = a; i < b; i++)
                if (t->records[i].status != 0)
                        scratch[n++] = t->records[i].done_ns - t->records[i].scheduled_ns;
        if (n == 0)
                return false;
        *ret = rate_metric ? (double) n / seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS)
                           : (double) stats_select_i64(scratch, n, (n - 1) / 2) / 1000.0;
        return *ret > 0;
}

static int series_make(const struct timeline *t, bool rate_metric, struct series *ret) {
        int64_t t0 = t->header.start_ns > 0 ? t->header.start_ns : t->records[0].scheduled_ns;
        int64_t span = t->records[t->n - 1].scheduled_ns - t0;
        if (span <= 0 || span / TIMELINE_SERIES_INTERVAL_NS > TIMELINE_SERIES_MAX_INTERVALS)
                return -ERANGE;
        size_t intervals = (size_t) (span / TIMELINE_SERIES_INTERVAL_NS); /* full ones only */
        _cleanup_free_ int64_t *scratch = malloc(t->n * sizeof *scratch);
        struct series s = { .value = calloc(intervals + 1, sizeof(double)), .start_s = calloc(intervals + 1, sizeof(double)),
                            .end_s = calloc(intervals + 1, sizeof(double)) };
        if (!scratch || !s.value || !s.start_s || !s.end_s) {
                series_done(&s);
                return -ENOMEM;
        }
        size_t i = 0;
        while (i < t->n && t->records[i].scheduled_ns < t0)
                i++;
        for (size_t k = 0; k < intervals; k++) {
                int64_t end = t0 + (int64_t) (k + 1) * TIMELINE_SERIES_INTERVAL_NS;
                size_t a = i;
                while (i < t->n && t->records[i].scheduled_ns < end)
                        i++;
                if (interval_value(t, a, i, rate_metric, scratch, &s.value[s.n])) {
                        s.start_s[s.n] = (double) k * seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS);
                        s.end_s[s.n] = s.start_s[s.n] + seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS);
                        s.n++;
                }
        }
        *ret = s;
        return 0;
}

int timeline_steady_state(const struct timeline *t, bool rate_metric, cJSON *metrics) {
        if (t->n == 0)
                return 0;
        _cleanup_(series_done) struct series s = { 0 };
        int r = series_make(t, rate_metric, &s);
        if (r == -ERANGE)
                return 0;
        if (r < 0)
                return r;
        int64_t t0 = t->header.start_ns > 0 ? t->header.start_ns : t->records[0].scheduled_ns;
        struct steady_series series = {
                .metric = rate_metric ? "throughput_rps" : "latency_us.scheduled.p50",
                .interval_s = seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS),
                .value = s.value,
                .start_s = s.start_s,
                .end_s = s.end_s,
                .n = s.n,
                .higher_is_faster = rate_metric,
                .measure_start_s = t->header.measure_start_ns > t0 ? seconds_from_ns(t->header.measure_start_ns - t0) : NAN,
        };
        return steady_state_metrics(&series, metrics);
}
