/* steady-state-json.c: metrics.steady_state from a series (see steady-state-json.h). */
#include "daemon/steady-state-json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/steady-state.h"

static cJSON *segments_json(const struct steady_state *c, const struct steady_series *s) {
        cJSON *a = cJSON_CreateArray();
        for (size_t k = 0; a && k < c->n_segments; k++) {
                const struct steady_state_segment *g = &c->segments[k];
                cJSON *o = cJSON_CreateObject();
                cJSON_AddItemToArray(a, o);
                cJSON_AddNumberToObject(o, "start_s", s->start_s[g->start]);
                cJSON_AddNumberToObject(o, "end_s", s->end_s[g->end - 1]);
                cJSON_AddNumberToObject(o, "mean", g->mean);
                cJSON_AddNumberToObject(o, "variance", g->variance);
        }
        return a;
}

int steady_state_metrics(const struct steady_series *s, cJSON *metrics) {
        if (s->n < STEADY_SERIES_MIN)
                return 0;
        _cleanup_(steady_state_done) struct steady_state c = { 0 };
        int r = steady_state_classify(s->value, s->n, s->higher_is_faster, 0, &c);
        if (r < 0)
                return r == -EINVAL ? 0 : r;
        cJSON *o = cJSON_AddObjectToObject(metrics, "steady_state");
        if (!o)
                return -ENOMEM;
        cJSON_AddStringToObject(o, "metric", s->metric);
        json_add_number_or_null(o, "interval_s", isfinite(s->interval_s), s->interval_s);
        cJSON_AddNumberToObject(o, "intervals", (double) s->n);
        cJSON_AddStringToObject(o, "class", steady_state_class_name(c.class));
        json_add_number_or_null(o, "start_s", c.have_steady, c.have_steady ? s->start_s[c.steady_start] : 0);
        json_add_number_or_null(o, "mean", c.have_steady, c.steady_mean);
        json_add_number_or_null(o, "variance", c.have_steady, c.steady_variance);
        cJSON_AddNumberToObject(o, "outliers", (double) c.n_outliers);
        json_add_number_or_null(o, "measure_start_s", isfinite(s->measure_start_s), s->measure_start_s);
        cJSON_AddItemToObject(o, "segments", segments_json(&c, s));
        if (s->have_ignored)
                cJSON_AddNumberToObject(o, "malformed_lines", (double) s->malformed_lines);
        return 0;
}
