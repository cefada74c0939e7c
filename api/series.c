/* series.c: GET /v1/series?label=k=v&cell=NAME&metric=PATH[&alpha=&min_segment=&limit=]: one
 * cell's metric over the finished experiments with those labels, in time order, each with the
 * value the report shows (the mean over its succeeded iterations) and its 95% interval; the change
 * points of that series (basic/change-points: E-Divisive means with a permutation test), each
 * with its shift and interval, and why: what differs between the last experiment before and the
 * first after (api/differences, as GET /v1/compare lists it) and the findings of the cell present
 * on one side only. The store is read under the lease, the search runs without it. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cell-stats.h"
#include "api/differences.h"
#include "api/handlers.h"
#include "api/series.h"
#include "basic/change-points.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "definition/definition-sides.h"
#include "storage/experiments.h"

#define SERIES_WHY_FINDINGS_MAX 20 /* per side of a change point; openapi.yaml's SeriesWhyFindings */

/* One experiment of the series and its value, when it has one. */
struct series_point {
        const cJSON *experiment;
        bool have_value;
        struct stats_summary value;
};

bool api_series_metric_valid(const char *m) {
        size_t n = strlen(m);
        if (n == 0 || n > METRIC_PATH_MAX || strspn(m, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != n)
                return false;
        /* openapi.yaml's MetricKey: a letter first, no empty name between dots. */
        bool letter = (m[0] >= 'a' && m[0] <= 'z') || (m[0] >= 'A' && m[0] <= 'Z');
        return letter && m[n - 1] != '.' && !strstr(m, "..");
}

static int parse_alpha(struct api_request *req, double *ret, struct error *err) {
        const char *v = api_query(req, "alpha");
        if (!v)
                return 0;
        char *end;
        errno = 0;
        double a = strtod(v, &end);
        if (errno != 0 || end == v || *end != '\0' || !(a > 0 && a <= CHANGE_POINTS_SIGNIFICANCE_MAX))
                return error_set(err, 400, "invalid_parameter", "alpha",
                                 "alpha (the significance of a change point) must be a number above 0 and at most %g, got '%.*s'",
                                 CHANGE_POINTS_SIGNIFICANCE_MAX, UTF8_PREFIX(v, 64));
        *ret = a;
        return 0;
}

static int parse_query(struct api_request *req, struct series_query *q, struct error *err) {
        int64_t min_segment;
        q->params = CHANGE_POINTS_PARAMS_DEFAULT;
        q->cell = api_query(req, "cell");
        q->metric = api_query(req, "metric");
        if (!q->cell || !q->cell[0])
                return error_set(err, 400, "missing_parameter", "cell", "cell is required: the name of a cell");
        if (strlen(q->cell) >= API_CELL_NAME_MAX)
                return error_set(err, 400, "invalid_parameter", "cell", "cell must be at most %d bytes", API_CELL_NAME_MAX - 1);
        if (!q->metric || !q->metric[0])
                return error_set(err, 400, "missing_parameter", "metric",
                                 "metric is required: a report path such as latency_us.scheduled.p99");
        if (!api_series_metric_valid(q->metric))
                return error_set(err, 400, "invalid_parameter", "metric",
                                 "metric must be a dotted report path of [A-Za-z0-9_] names (at most %d bytes), got '%.*s'",
                                 METRIC_PATH_MAX, UTF8_PREFIX(q->metric, 64));
        if (parse_alpha(req, &q->params.significance, err) < 0 ||
            api_query_int(req, "min_segment", CHANGE_POINTS_MIN_SEGMENT_MIN, SERIES_MIN_SEGMENT_MAX,
                          CHANGE_POINTS_MIN_SEGMENT_DEFAULT, &min_segment, err) < 0 ||
            api_query_int(req, "limit", 1, SERIES_LIMIT_MAX, SERIES_LIMIT_MAX, &q->limit, err) < 0 ||
            api_label_filter(req, &q->labels_json, err) < 0)
                return -EINVAL;
        q->params.min_segment = (size_t) min_segment;
        return 0;
}

/* Which way the metric gets worse, where its name says it: "higher" (latencies, errors, pauses,
 * throttling, the SUT's CPU time for the same load), "lower" (throughputs, capacities), NULL when
 * it does not. */
static const char *worse_when(const char *metric) {
        static const char *const lower[] = { "throughput_rps", "ops_per_s", "capacity." };
        static const char *const higher[] = { "latency_us.", "errors", "gc.", "jit.", "cgroup.throttled_s",
                                              "cgroup.nr_throttled", "cgroup.oom_kills", "cgroup.cpu_usage_s" };
        for (size_t i = 0; i < ELEMENTSOF(lower); i++)
                if (strncmp(metric, lower[i], strlen(lower[i])) == 0)
                        return "lower";
        for (size_t i = 0; i < ELEMENTSOF(higher); i++)
                if (strncmp(metric, higher[i], strlen(higher[i])) == 0)
                        return "higher";
        return NULL;
}

/* Each experiment's value: the report's statistics of the metric over the cell's succeeded runs. */
static size_t gather_points(const cJSON *experiments, const struct series_query *q, struct series_point *points) {
        size_t n = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, experiments) {
                points[n].experiment = e;
                points[n].have_value = cell_metric_describe_picked(cJSON_GetObjectItemCaseSensitive(e, "values"), q->metric,
                                                                   &points[n].value);
                n++;
        }
        return n;
}

static const char *point_id(const struct series_point *p) {
        return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p->experiment, "id"));
}

static cJSON *point_json(const struct series_point *p, size_t index) {
        const cJSON *e = p->experiment;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", (double) index);
        static const char *const keep[] = { "id", "name", "status", "created_at", "finished_at" };
        for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, keep[i]), true));
        if (!p->have_value) {
                cJSON_AddNumberToObject(o, "n", 0);
                cJSON_AddNullToObject(o, "value");
                cJSON_AddNullToObject(o, "ci95");
                cJSON_AddNullToObject(o, "ci_method");
                return o;
        }
        cJSON_AddNumberToObject(o, "n", (double) p->value.n);
        cJSON_AddNumberToObject(o, "value", p->value.mean);
        if (p->value.have_ci) {
                cJSON *ci = cJSON_AddObjectToObject(o, "ci95");
                cJSON_AddNumberToObject(ci, "low", p->value.ci_low);
                cJSON_AddNumberToObject(ci, "high", p->value.ci_high);
                cJSON_AddStringToObject(o, "ci_method", p->value.ci_method);
        } else {
                cJSON_AddNullToObject(o, "ci95");
                cJSON_AddNullToObject(o, "ci_method");
        }
        return o;
}

static bool names_cell(const cJSON *finding, const char *cell) {
        const cJSON *cells = cJSON_GetObjectItemCaseSensitive(finding, "cells"), *c;
        if (cJSON_GetArraySize(cells) == 0)
                return true;
        cJSON_ArrayForEach(c, cells) {
                const char *n = cJSON_GetStringValue(c);
                if (n && strcmp(n, cell) == 0)
                        return true;
        }
        return false;
}

static bool has_kind(const cJSON *findings, const char *kind, const char *cell) {
        const cJSON *f;
        cJSON_ArrayForEach(f, findings) {
                const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "kind"));
                if (k && strcmp(k, kind) == 0 && names_cell(f, cell))
                        return true;
        }
        return false;
}

/* The findings naming the cell (or no cell) in `mine` whose kind `other` has none of, the first
 * SERIES_WHY_FINDINGS_MAX of them in the findings' order as `name`, how many more as
 * `<name>_omitted`: an experiment's findings are not bounded, the answer is. */
static void add_findings_only(cJSON *into, const char *name, const cJSON *mine, const cJSON *other, const char *cell) {
        cJSON *out = cJSON_AddArrayToObject(into, name);
        size_t listed = 0, omitted = 0;
        const cJSON *f;
        cJSON_ArrayForEach(f, mine) {
                const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "kind"));
                if (!kind || !names_cell(f, cell) || has_kind(other, kind, cell))
                        continue;
                if (listed == SERIES_WHY_FINDINGS_MAX) {
                        omitted++;
                        continue;
                }
                listed++;
                cJSON *o = cJSON_CreateObject();
                static const char *const keep[] = { "kind", "severity", "claim" };
                for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                        cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(f, keep[i]), true));
                cJSON_AddItemToArray(out, o);
        }
        char omitted_name[32];
        snprintf(omitted_name, sizeof omitted_name, "%s_omitted", name);
        cJSON_AddNumberToObject(into, omitted_name, (double) omitted);
}

/* An experiment's definition, host facts and findings (against its first cell). */
struct side {
        cJSON *definition, *host, *findings;
};

static void side_done(struct side *s) {
        cJSON_Delete(s->definition);
        cJSON_Delete(s->host);
        cJSON_Delete(s->findings);
}

static int load_side(struct db_conn *c, const char *state_dir, const char *id, struct side *ret) {
        struct side s = { 0 };
        char base[API_CELL_NAME_MAX], status[EXPERIMENT_STATUS_SIZE];
        int r = experiments_definition_json(c, id, &s.definition);
        if (r >= 0)
                r = experiments_host_snapshot_json(c, id, &s.host);
        if (r >= 0)
                r = api_findings_json(c, state_dir, id, NULL, &s.findings, base, status);
        if (r < 0) {
                side_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

/* Whether a bisection can follow the change (POST /v1/bisections with the series): the strings
 * versions would fill, or the first difference they cannot. */
static cJSON *bisection_offer(const cJSON *before, const cJSON *after, const char *cell) {
        struct definition_sides sides;
        struct error err = { 0 };
        cJSON *o = cJSON_CreateObject();
        int r = definition_sides_template(before, after, cell, NULL, &sides, &err);
        cJSON_AddBoolToObject(o, "possible", r >= 0);
        if (r >= 0) {
                cJSON_AddItemToObject(o, "fields", sides.fields);
                sides.fields = NULL;
                definition_sides_done(&sides);
        } else {
                cJSON_AddStringToObject(o, "field", err.field);
                cJSON_AddStringToObject(o, "reason", err.status ? err.message : "out of memory");
        }
        return o;
}

/* Why the series moved between experiments a (the last before) and b (the first after). */
static int why_json(struct db_conn *c, const char *state_dir, const char *a, const char *b, const char *cell, cJSON **ret) {
        _cleanup_(side_done) struct side sa = { 0 }, sb = { 0 };
        int r = load_side(c, state_dir, a, &sa);
        if (r >= 0)
                r = load_side(c, state_dir, b, &sb);
        if (r < 0)
                return r;
        cJSON *why = cJSON_CreateObject();
        cJSON *differences = cJSON_AddArrayToObject(why, "differences");
        differences_definitions(sa.definition, sb.definition, differences);
        differences_cells(sa.definition, cell, sb.definition, cell, differences);
        cJSON_AddBoolToObject(why, "hosts_compared", differences_hosts(sa.host, sb.host, differences));
        cJSON *findings = cJSON_AddObjectToObject(why, "findings");
        add_findings_only(findings, "before_only", sa.findings, sb.findings, cell);
        add_findings_only(findings, "after_only", sb.findings, sa.findings, cell);
        cJSON_AddItemToObject(why, "bisection", bisection_offer(sa.definition, sb.definition, cell));
        *ret = why;
        return 0;
}

static cJSON *side_ref(const struct series_point *points, size_t index) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", (double) index);
        cJSON_AddStringToObject(o, "experiment_id", point_id(&points[index]));
        return o;
}

/* valued[k] is the index in points of the k-th value searched. */
static cJSON *change_point_json(const struct change_point *cp, const size_t *valued, const struct series_point *points) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "before", side_ref(points, valued[cp->index - 1]));
        cJSON_AddItemToObject(o, "after", side_ref(points, valued[cp->index]));
        cJSON *segments = cJSON_AddObjectToObject(o, "segments");
        cJSON *before = cJSON_AddObjectToObject(segments, "before"), *after = cJSON_AddObjectToObject(segments, "after");
        cJSON_AddNumberToObject(before, "from", (double) valued[cp->before_start]);
        cJSON_AddNumberToObject(before, "n", (double) (cp->index - cp->before_start));
        cJSON_AddNumberToObject(after, "to", (double) valued[cp->after_end - 1]);
        cJSON_AddNumberToObject(after, "n", (double) (cp->after_end - cp->index));
        cJSON_AddNumberToObject(o, "p_value", cp->p_value);
        if (cp->have_shift)
                cJSON_AddNumberToObject(o, "shift", cp->shift);
        else
                cJSON_AddNullToObject(o, "shift");
        if (cp->have_ci) {
                cJSON *ci = cJSON_AddObjectToObject(o, "shift_ci95");
                cJSON_AddNumberToObject(ci, "low", cp->shift_low);
                cJSON_AddNumberToObject(ci, "high", cp->shift_high);
        } else
                cJSON_AddNullToObject(o, "shift_ci95");
        json_add_string_or_null(o, "shift_method", cp->method);
        return o;
}

static cJSON *parameters_json(const struct series_query *q) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "method", "e-divisive-means");
        cJSON_AddNumberToObject(o, "alpha", q->params.significance);
        cJSON_AddNumberToObject(o, "min_segment", (double) q->params.min_segment);
        cJSON_AddNumberToObject(o, "permutations", q->params.permutations);
        cJSON_AddNumberToObject(o, "seed", (double) q->params.seed);
        return o;
}

/* The change points of the valued points; their indexes are mapped back through valued[]. */
static int search(const struct series_point *points, size_t n, const struct series_query *q, size_t *valued,
                  size_t *ret_valued, struct change_point **ret, size_t *ret_n) {
        _cleanup_free_ double *x = calloc(n ? n : 1, sizeof *x);
        if (!x)
                return -ENOMEM;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
                if (points[i].have_value) {
                        valued[m] = i;
                        x[m++] = points[i].value.mean;
                }
        *ret_valued = m;
        return change_points_find(x, m, &q->params, ret, ret_n);
}

/* A series of no value: no experiment has the cell, or none of its runs the metric. */
static int empty_error(struct error *err, const struct series_query *q, const char *prefix, size_t n_experiments) {
        char field[32];
        if (n_experiments == 0) {
                snprintf(field, sizeof field, "%scell", prefix);
                return error_set(err, 400, "invalid_parameter", field, "no finished experiment%s has a cell '%.*s'",
                                 q->labels_json ? " with these labels" : "", UTF8_PREFIX(q->cell, 64));
        }
        snprintf(field, sizeof field, "%smetric", prefix);
        return error_set(err, 400, "invalid_parameter", field,
                         "no succeeded run of cell '%.*s' in the %zu experiments has the metric '%.*s'", UTF8_PREFIX(q->cell, 64),
                         n_experiments, UTF8_PREFIX(q->metric, 64));
}

/* Each change point with its why, read under a lease taken again for them. */
static int add_change_points(struct api_request *req, struct storage *storage, const struct change_point *cps,
                             size_t n_cp, const size_t *valued, const struct series_point *points, const char *cell,
                             cJSON *out) {
        int r;
        if (n_cp > 0 && (r = db_lease_take(storage, &req->lease)) < 0)
                return r;
        for (size_t k = 0; k < n_cp; k++) {
                cJSON *cp = change_point_json(&cps[k], valued, points), *why = NULL;
                cJSON_AddItemToArray(out, cp);
                r = why_json(req->lease.conn, req->config->state_dir, point_id(&points[valued[cps[k].index - 1]]),
                             point_id(&points[valued[cps[k].index]]), cell, &why);
                if (r < 0)
                        return r;
                cJSON_AddItemToObject(cp, "why", why);
        }
        return 0;
}

/* The series q as read from c, and its change points. */
struct series_read {
        cJSON *list;
        bool truncated;
        size_t n, m, n_cp;      /* experiments, those with a value, change points */
        struct series_point *points;
        size_t *valued;
        struct change_point *cps;
};

static void series_read_done(struct series_read *s) {
        cJSON_Delete(s->list);
        free(s->points);
        free(s->valued);
        free(s->cps);
}

static int series_read(struct db_conn *c, const struct series_query *q, struct series_read *ret) {
        char json_path[METRIC_PATH_MAX + 8];
        if (!cell_metric_json_path(q->metric, json_path, sizeof json_path))
                return -ENAMETOOLONG;
        struct series_read s = { 0 };
        int r = experiments_series_json(c, q->labels_json, q->cell, json_path, q->limit, &s.list, &s.truncated);
        if (r < 0)
                return r;
        s.n = (size_t) cJSON_GetArraySize(s.list);
        s.points = calloc(s.n ? s.n : 1, sizeof *s.points);
        s.valued = calloc(s.n ? s.n : 1, sizeof *s.valued);
        r = s.points && s.valued ? 0 : -ENOMEM;
        if (r >= 0) {
                gather_points(s.list, q, s.points);
                r = search(s.points, s.n, q, s.valued, &s.m, &s.cps, &s.n_cp);
        }
        if (r < 0) {
                series_read_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

int api_series_change_point(struct db_conn *c, const struct series_query *q, size_t index, struct series_change *ret,
                            struct error *err) {
        _cleanup_(series_read_done) struct series_read s = { 0 };
        int r = series_read(c, q, &s);
        if (r < 0)
                return error_set_errno(err, r, 500, "internal", "series", "cannot read the series: %s", strerror(-r));
        if (s.m == 0)
                return empty_error(err, q, "series.", s.n);
        if (index >= s.n_cp)
                return error_set(err, 400, "out_of_range", "change_point",
                                 "the series has %zu change point%s at these parameters (GET /v1/series lists them, from 0)", s.n_cp,
                                 s.n_cp == 1 ? "" : "s");
        const struct change_point *cp = &s.cps[index];
        struct series_change chg = { .have_shift = cp->have_shift, .shift = cp->shift };
        snprintf(chg.before, sizeof chg.before, "%s", point_id(&s.points[s.valued[cp->index - 1]]));
        snprintf(chg.after, sizeof chg.after, "%s", point_id(&s.points[s.valued[cp->index]]));
        *ret = chg;
        return 0;
}

enum MHD_Result api_get_series(struct api_request *req) {
        struct error err = { 0 };
        struct series_query q = { 0 };
        int r = parse_query(req, &q, &err);
        _cleanup_free_ char *labels_json = q.labels_json;
        if (r < 0)
                return api_reply_error(req, &err);
        _cleanup_(series_read_done) struct series_read s = { 0 };
        r = series_read(req->lease.conn, &q, &s);
        if (r < 0)
                return api_reply_errno(req, r, "series");
        struct storage *storage = req->lease.storage;
        db_lease_release(&req->lease);
        if (s.m == 0) {
                empty_error(&err, &q, "", s.n);
                return api_reply_error(req, &err);
        }

        cJSON *body = cJSON_CreateObject();
        cJSON_AddStringToObject(body, "cell", q.cell);
        cJSON_AddStringToObject(body, "metric", q.metric);
        json_add_string_or_null(body, "worse_when", worse_when(q.metric));
        cJSON_AddItemToObject(body, "parameters", parameters_json(&q));
        cJSON_AddBoolToObject(body, "truncated", s.truncated);
        cJSON *experiments = cJSON_AddArrayToObject(body, "experiments");
        for (size_t i = 0; i < s.n; i++)
                cJSON_AddItemToArray(experiments, point_json(&s.points[i], i));
        r = add_change_points(req, storage, s.cps, s.n_cp, s.valued, s.points, q.cell,
                              cJSON_AddArrayToObject(body, "change_points"));
        if (r < 0) {
                cJSON_Delete(body);
                return api_reply_errno(req, r, r == -ENOENT ? "experiment" : "series");
        }
        db_lease_release(&req->lease);
        return api_reply_json_cached(req, body, false);
}
