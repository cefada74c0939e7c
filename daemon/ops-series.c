/* ops-series.c: the in-process iterations' lines of a benchmark without load (see
 * ops-series.h). Lines come on the event loop as the capture reads them; the arrays grow by
 * doubling, so a point costs no allocation of its own. */
#include "daemon/ops-series.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "daemon/steady-state-json.h"

#define POINT_PREFIX "{\"ops_per_s\""

void ops_series_start(struct ops_series *s, int64_t start_ns) {
        ops_series_done(s);
        *s = (struct ops_series){ .start_ns = start_ns };
}

void ops_series_done(struct ops_series *s) {
        free(s->at_s);
        free(s->value);
        s->at_s = s->value = NULL;
        s->n = s->cap = 0;
}

static bool grow(struct ops_series *s) {
        if (s->n < s->cap)
                return true;
        size_t cap = s->cap ? MIN(s->cap * 2, (size_t) OPS_SERIES_MAX) : 64;
        if (cap <= s->n)
                return false;
        double *at = realloc(s->at_s, cap * sizeof *at);
        if (!at)
                return false;
        s->at_s = at;
        double *v = realloc(s->value, cap * sizeof *v);
        if (!v)
                return false;
        s->value = v;
        s->cap = cap;
        return true;
}

/* N of a line {"ops_per_s": N, ...}; false when it is not one. */
static bool parse_point(const char *line, double *ret) {
        cJSON *o = cJSON_Parse(line);
        const cJSON *ops = cJSON_GetObjectItemCaseSensitive(o, "ops_per_s");
        bool ok = cJSON_IsNumber(ops) && isfinite(ops->valuedouble) && ops->valuedouble > 0;
        if (ok)
                *ret = ops->valuedouble;
        cJSON_Delete(o);
        return ok;
}

void ops_series_line(struct ops_series *s, const char *line, int64_t now_ns) {
        double v;
        s->last_was_point = false;
        if (strncmp(line + strspn(line, " \t"), POINT_PREFIX, strlen(POINT_PREFIX)) != 0)
                return;
        if (!parse_point(line, &v)) {
                s->malformed++;
                return;
        }
        s->last_was_point = true;
        if (!grow(s)) {
                s->dropped++;
                return;
        }
        s->at_s[s->n] = (double) (now_ns - s->start_ns) / 1e9;
        s->value[s->n++] = v;
}

int ops_series_steady_state(const struct ops_series *s, cJSON *metrics) {
        /* the last line is the run's result, not an iteration */
        size_t n = s->last_was_point && s->dropped == 0 && s->n > 0 ? s->n - 1 : s->n;
        if (n < STEADY_SERIES_MIN)
                return 0;
        _cleanup_free_ double *start = malloc(n * sizeof *start);
        if (!start)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                start[i] = i ? s->at_s[i - 1] : 0;
        struct steady_series series = {
                .metric = "ops_per_s",
                .interval_s = NAN,
                .value = s->value,
                .start_s = start,
                .end_s = s->at_s,
                .n = n,
                .higher_is_faster = true,
                .measure_start_s = NAN,
                .have_ignored = true,
                .malformed_lines = s->malformed,
        };
        return steady_state_metrics(&series, metrics);
}
