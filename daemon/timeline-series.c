/* timeline-series.c: a run's per-interval series from its sorted timeline and its steady-state
 * class (see timeline-series.h). The records are sorted by scheduled time, so each interval is
 * one range of them: one pass, a median by selection per interval. */
#include "daemon/timeline-series.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/stats.h"
#include "basic/steady-state.h"
#include "basic/time-util.h"

#define MIN_INTERVALS 4

struct series {
        double *value;          /* per interval with a value */
        double *start_s;        /* its start, seconds from the schedule's start */
        size_t n;
};

static void series_done(struct series *s) {
        free(s->value);
        free(s->start_s);
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
        struct series s = { .value = calloc(intervals + 1, sizeof(double)), .start_s = calloc(intervals + 1, sizeof(double)) };
        if (!scratch || !s.value || !s.start_s) {
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
                        s.n++;
                }
        }
        *ret = s;
        return 0;
}

static cJSON *segments_json(const struct steady_state *c, const struct series *s) {
        cJSON *a = cJSON_CreateArray();
        double width = seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS);
        for (size_t k = 0; a && k < c->n_segments; k++) {
                const struct steady_state_segment *g = &c->segments[k];
                cJSON *o = cJSON_CreateObject();
                cJSON_AddItemToArray(a, o);
                cJSON_AddNumberToObject(o, "start_s", s->start_s[g->start]);
                cJSON_AddNumberToObject(o, "end_s", s->start_s[g->end - 1] + width);
                cJSON_AddNumberToObject(o, "mean", g->mean);
                cJSON_AddNumberToObject(o, "variance", g->variance);
        }
        return a;
}

int timeline_steady_state(const struct timeline *t, bool rate_metric, cJSON *metrics) {
        if (t->n == 0)
                return 0;
        _cleanup_(series_done) struct series s = { 0 };
        int r = series_make(t, rate_metric, &s);
        if (r == -ERANGE || (r >= 0 && s.n < MIN_INTERVALS))
                return 0;
        if (r < 0)
                return r;
        _cleanup_(steady_state_done) struct steady_state c = { 0 };
        if ((r = steady_state_classify(s.value, s.n, rate_metric, 0, &c)) < 0)
                return r == -EINVAL ? 0 : r;
        cJSON *o = cJSON_AddObjectToObject(metrics, "steady_state");
        if (!o)
                return -ENOMEM;
        int64_t t0 = t->header.start_ns > 0 ? t->header.start_ns : t->records[0].scheduled_ns;
        cJSON_AddStringToObject(o, "metric", rate_metric ? "throughput_rps" : "latency_us.scheduled.p50");
        cJSON_AddNumberToObject(o, "interval_s", seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS));
        cJSON_AddNumberToObject(o, "intervals", (double) s.n);
        cJSON_AddStringToObject(o, "class", steady_state_class_name(c.class));
        json_add_number_or_null(o, "start_s", c.have_steady, c.have_steady ? s.start_s[c.steady_start] : 0);
        json_add_number_or_null(o, "mean", c.have_steady, c.steady_mean);
        json_add_number_or_null(o, "variance", c.have_steady, c.steady_variance);
        cJSON_AddNumberToObject(o, "outliers", (double) c.n_outliers);
        json_add_number_or_null(o, "measure_start_s", t->header.measure_start_ns > t0,
                                seconds_from_ns(t->header.measure_start_ns - t0));
        cJSON_AddItemToObject(o, "segments", segments_json(&c, &s));
        return 0;
}
