/* bisection-series.c: a bisection from a series' change point (issue 38, item 3). POST
 * /v1/bisections may name, instead of a definition, a series (labels, cell, metric and the
 * change-point search's alpha and min_segment, as GET /v1/series takes them) and one of its
 * change points: the series is read again, the change point's two experiments give the
 * definition (definition/definition-sides.h: the before side's, the strings that changed made
 * placeholders the versions fill; the first version must make the before side and the last the
 * after side), the metric is the series', and the difference that counts is, unless given, half
 * the change point's shift. The result is the request an author would have written, checked as
 * one, with where it came from kept beside it. */
#include "api/bisection-series.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/handlers.h"
#include "api/series.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "definition/definition-sides.h"
#include "definition/definition.h"
#include "storage/experiments.h"

#define DIFFERENCE_PCT_MIN 1.0

/* Fields that come from the series, refused beside it. */
static int check_not_given(const cJSON *body, struct error *err) {
        static const char *const derived[] = { "definition", "cell", "metric" };
        for (size_t i = 0; i < ELEMENTSOF(derived); i++)
                if (cJSON_GetObjectItemCaseSensitive(body, derived[i]))
                        return error_set(err, 400, "conflict", derived[i],
                                         "comes from the series' change point: give either a series or a %s", derived[i]);
        return 0;
}

/* series.labels {key: value} as the store's filter [[key, value], ...] (NULL for none). */
static int labels_filter(const cJSON *labels, char **ret, struct error *err) {
        if (!labels) {
                *ret = NULL;
                return 0;
        }
        if (!cJSON_IsObject(labels) || cJSON_GetArraySize(labels) > DEFINITION_LABELS_MAX)
                return error_set(err, 400, "invalid_value", "series.labels",
                                 "must be an object of at most %d labels, each a string", DEFINITION_LABELS_MAX);
        _cleanup_json_ cJSON *pairs = cJSON_CreateArray();
        const cJSON *l;
        cJSON_ArrayForEach(l, labels) {
                if (!definition_kv_label_key_valid(l->string) || !cJSON_IsString(l) ||
                    strlen(l->valuestring) > DEFINITION_LABEL_VALUE_MAX)
                        return error_set(err, 400, "invalid_value", "series.labels",
                                         "each label is a key of 1 to %d of [a-z0-9_.-] and a string of at most %d bytes",
                                         DEFINITION_LABEL_KEY_MAX, DEFINITION_LABEL_VALUE_MAX);
                cJSON *pair = cJSON_CreateArray();
                cJSON_AddItemToArray(pair, cJSON_CreateString(l->string));
                cJSON_AddItemToArray(pair, cJSON_CreateString(l->valuestring));
                cJSON_AddItemToArray(pairs, pair);
        }
        char *text = cJSON_GetArraySize(pairs) > 0 ? cJSON_PrintUnformatted(pairs) : NULL;
        if (cJSON_GetArraySize(pairs) > 0 && !text)
                return -ENOMEM;
        *ret = text;
        return 0;
}

static int parse_params(const cJSON *series, struct change_points_params *p, struct error *err) {
        *p = CHANGE_POINTS_PARAMS_DEFAULT;
        const cJSON *alpha = cJSON_GetObjectItemCaseSensitive(series, "alpha");
        const cJSON *min_segment = cJSON_GetObjectItemCaseSensitive(series, "min_segment");
        if (alpha && (!cJSON_IsNumber(alpha) || !(alpha->valuedouble > 0 && alpha->valuedouble <= CHANGE_POINTS_SIGNIFICANCE_MAX)))
                return error_set(err, 400, "out_of_range", "series.alpha",
                                 "the significance of a change point: a number above 0 and at most %g", CHANGE_POINTS_SIGNIFICANCE_MAX);
        if (min_segment && (!cJSON_IsNumber(min_segment) || min_segment->valuedouble != floor(min_segment->valuedouble) ||
                            min_segment->valuedouble < CHANGE_POINTS_MIN_SEGMENT_MIN ||
                            min_segment->valuedouble > SERIES_MIN_SEGMENT_MAX))
                return error_set(err, 400, "out_of_range", "series.min_segment", "an integer from %d to %d",
                                 CHANGE_POINTS_MIN_SEGMENT_MIN, SERIES_MIN_SEGMENT_MAX);
        if (alpha)
                p->significance = alpha->valuedouble;
        if (min_segment)
                p->min_segment = (size_t) min_segment->valuedouble;
        return 0;
}

/* body.series as the query GET /v1/series would make of it; q->labels_json is the caller's to free. */
static int parse_series(const cJSON *series, struct series_query *q, struct error *err) {
        static const char *const known[] = { "labels", "cell", "metric", "alpha", "min_segment" };
        if (!cJSON_IsObject(series))
                return error_set(err, 400, "wrong_type", "series", "must be an object {labels, cell, metric}");
        const cJSON *m;
        cJSON_ArrayForEach(m, series) {
                size_t i = 0;
                while (i < ELEMENTSOF(known) && strcmp(m->string, known[i]) != 0)
                        i++;
                if (i == ELEMENTSOF(known))
                        return error_set(err, 400, "unknown_field", "series",
                                         "has a member that is not one of labels, cell, metric, alpha, min_segment");
        }
        const char *cell = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(series, "cell"));
        const char *metric = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(series, "metric"));
        if (!cell || !cell[0] || strlen(cell) >= API_CELL_NAME_MAX)
                return error_set(err, 400, "missing_field", "series.cell", "is required: the name of the cell the series follows");
        if (!metric || !api_series_metric_valid(metric))
                return error_set(err, 400, "invalid_value", "series.metric",
                                 "is required: a dotted report path such as latency_us.scheduled.p99 (at most %d bytes)",
                                 METRIC_PATH_MAX);
        *q = (struct series_query){ .cell = cell, .metric = metric, .limit = SERIES_LIMIT_MAX };
        int r = parse_params(series, &q->params, err);
        if (r >= 0)
                r = labels_filter(cJSON_GetObjectItemCaseSensitive(series, "labels"), &q->labels_json, err);
        return r;
}

static int parse_index(const cJSON *v, size_t *ret, struct error *err) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > SERIES_LIMIT_MAX || v->valuedouble != floor(v->valuedouble))
                return error_set(err, 400, "invalid_value", "change_point",
                                 "is required with series: the index of a change point as GET /v1/series lists them, from 0");
        *ret = (size_t) v->valuedouble;
        return 0;
}

/* Half the change point's shift, in percent, to a tenth: a step that moved the metric that much
 * is "different", one within it "equivalent". */
static int difference_of(const cJSON *body, const struct series_change *chg, double *ret, struct error *err) {
        const cJSON *given = cJSON_GetObjectItemCaseSensitive(body, "difference_pct");
        if (given) {
                *ret = cJSON_IsNumber(given) ? given->valuedouble : NAN;   /* checked with the request */
                return 0;
        }
        if (!chg->have_shift || !isfinite(chg->shift))
                return error_set(err, 400, "missing_field", "difference_pct",
                                 "is required: the change point's shift could not be measured (its before segment's mean is 0)");
        double half = round(fabs(chg->shift) * 100.0 / 2.0 * 10.0) / 10.0;
        *ret = MIN(MAX(half, DIFFERENCE_PCT_MIN), DEFINITION_STOP_DIFFERENCE_PCT_MAX);
        return 0;
}

static int sides_of(struct db_conn *c, const cJSON *body, const struct series_query *q, const struct series_change *chg,
                    struct definition_sides *ret, struct error *err) {
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(body, "versions");
        int last = cJSON_GetArraySize(versions) - 1;
        char last_path[48];
        snprintf(last_path, sizeof last_path, "versions[%d].vars", last);
        const struct definition_sides_versions v = {
                .first_vars = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(versions, 0), "vars"),
                .last_vars = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(versions, last), "vars"),
                .first_path = "versions[0].vars",
                .last_path = last_path,
        };
        _cleanup_json_ cJSON *before = NULL, *after = NULL;
        int r = experiments_definition_json(c, chg->before, &before);
        if (r >= 0)
                r = experiments_definition_json(c, chg->after, &after);
        if (r < 0)
                return error_set_errno(err, r, 500, "internal", "change_point", "cannot read the change's experiments: %s",
                                       strerror(-r));
        return definition_sides_template(before, after, q->cell, &v, ret, err);
}

static cJSON *origin_json(const cJSON *body, const struct series_change *chg, const cJSON *fields) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "series", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(body, "series"), true));
        cJSON_AddItemToObject(o, "change_point", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(body, "change_point"), true));
        cJSON_AddStringToObject(o, "before", chg->before);
        cJSON_AddStringToObject(o, "after", chg->after);
        if (chg->have_shift && isfinite(chg->shift))
                cJSON_AddNumberToObject(o, "shift", chg->shift);
        cJSON_AddItemToObject(o, "fields", cJSON_Duplicate(fields, true));
        return o;
}

/* The request as written by hand: body's own fields but series and change_point, and the
 * definition, cell, metric, difference and name the change point gives. */
static cJSON *request_json(const cJSON *body, const struct series_query *q, size_t index, struct definition_sides *sides,
                           double difference_pct) {
        cJSON *o = cJSON_CreateObject();
        const cJSON *m;
        cJSON_ArrayForEach(m, body)
                if (strcmp(m->string, "series") != 0 && strcmp(m->string, "change_point") != 0 &&
                    strcmp(m->string, "difference_pct") != 0)
                        cJSON_AddItemToObject(o, m->string, cJSON_Duplicate(m, true));
        if (!cJSON_GetObjectItemCaseSensitive(o, "name")) {
                char name[128];
                snprintf(name, sizeof name, "change point %zu of cell %.*s, %.*s", index, UTF8_PREFIX(q->cell, 40),
                         UTF8_PREFIX(q->metric, 60));
                cJSON_AddStringToObject(o, "name", name);
        }
        cJSON_AddItemToObject(o, "definition", TAKE_PTR(sides->definition));
        cJSON_AddItemToObject(o, "cell", TAKE_PTR(sides->cell));
        cJSON_AddStringToObject(o, "metric", q->metric);
        cJSON_AddItemToObject(o, "difference_pct",
                              isfinite(difference_pct) ? cJSON_CreateNumber(difference_pct)
                                                       : cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(body, "difference_pct"), true));
        return o;
}

int api_bisection_from_series(struct db_conn *c, const cJSON *body, cJSON **ret_request, cJSON **ret_origin,
                              struct error *err) {
        struct series_query q = { 0 };
        size_t index = 0;
        int r = check_not_given(body, err);
        if (r >= 0)
                r = parse_series(cJSON_GetObjectItemCaseSensitive(body, "series"), &q, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *labels_json = q.labels_json;
        struct series_change chg;
        double difference_pct = NAN;
        if ((r = parse_index(cJSON_GetObjectItemCaseSensitive(body, "change_point"), &index, err)) < 0 ||
            (r = api_series_change_point(c, &q, index, &chg, err)) < 0 || (r = difference_of(body, &chg, &difference_pct, err)) < 0)
                return r;
        _cleanup_(definition_sides_done) struct definition_sides sides = { 0 };
        if ((r = sides_of(c, body, &q, &chg, &sides, err)) < 0)
                return r;
        cJSON *origin = origin_json(body, &chg, sides.fields);
        cJSON *request = request_json(body, &q, index, &sides, difference_pct);
        if (!origin || !request) {
                cJSON_Delete(origin);
                cJSON_Delete(request);
                return -ENOMEM;
        }
        *ret_request = request;
        *ret_origin = origin;
        return 0;
}
