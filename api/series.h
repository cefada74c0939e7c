/* series.h: a metric's series over experiments and its change points (series.c), shared by
 * GET /v1/series and a bisection that follows one of its change points (bisection-series.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/change-points.h"
#include "basic/error.h"
#include "basic/id.h"

#define SERIES_LIMIT_MAX 5000
#define SERIES_MIN_SEGMENT_MAX 1000
#define METRIC_PATH_MAX 159

struct db_conn;

struct series_query {
        const char *cell, *metric;
        char *labels_json;      /* [[key, value], ...] or NULL; owned by the caller */
        struct change_points_params params;
        int64_t limit;
};

/* The two experiments a change point lies between, and the shift it measured. */
struct series_change {
        char before[ID_LEN + 1], after[ID_LEN + 1];
        bool have_shift;
        double shift;           /* mean(after) / mean(before) - 1 */
};

/* A dotted report path of [A-Za-z0-9_] names, a letter first (openapi.yaml's MetricKey). */
bool api_series_metric_valid(const char *m);

/* The change point index (from 0, as GET /v1/series lists them) of the series q on c: a 400
 * naming series.cell or series.metric when the series has no value, change_point when it has no
 * such change point; *ret untouched on failure. */
int api_series_change_point(struct db_conn *c, const struct series_query *q, size_t index, struct series_change *ret,
                            struct error *err);
