/* cell-stats.c: an experiment's cells as figures: flattening the succeeded runs' metrics,
 * descriptive statistics and ratios per metric (see cell-stats.h). */
#include "api/cell-stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"

#define METRIC_KEY_MAX 160
#define ITERATIONS_MAX 1000

static void add_value(cJSON *into_values, const char *key, double v) {
        cJSON *list = cJSON_GetObjectItemCaseSensitive(into_values, key);
        if (!list)
                list = cJSON_AddArrayToObject(into_values, key);
        cJSON_AddItemToArray(list, cJSON_CreateNumber(v));
}

/* A number as a key part: 99.9 -> "99_9", so that keys stay [A-Za-z0-9_.]. */
static void number_key(char *buf, size_t size, double v) {
        snprintf(buf, size, "%g", v);
        for (char *c = buf; *c; c++)
                if (!(*c >= '0' && *c <= '9'))
                        *c = '_';
}

/* capacity.per_sla [{"percentile": 99.9, "max_ms": 25, "rps": x}] as capacity.per_sla.p99_9_25ms,
 * so that each SLA's rate is aggregated like every other figure. */
static void flatten_per_sla(const cJSON *list, const char *key, cJSON *into_values) {
        const cJSON *e;
        cJSON_ArrayForEach(e, list) {
                const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "percentile");
                const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "max_ms");
                const cJSON *rps = cJSON_GetObjectItemCaseSensitive(e, "rps");
                if (!cJSON_IsNumber(p) || !cJSON_IsNumber(m) || !cJSON_IsNumber(rps) || !isfinite(rps->valuedouble))
                        continue;
                char pk[32], mk[32], k[METRIC_KEY_MAX];
                number_key(pk, sizeof pk, p->valuedouble);
                number_key(mk, sizeof mk, m->valuedouble);
                if (snprintf(k, sizeof k, "%s.p%s_%sms", key, pk, mk) < (int) sizeof k)
                        add_value(into_values, k, rps->valuedouble);
        }
}

/* Numeric leaves of a run's metrics as dotted keys: {"latency_us":{"scheduled":{"p99":..}}}
 * becomes latency_us.scheduled.p99. Identifiers and clock readings are not figures. */
static void flatten(const cJSON *node, const char *prefix, cJSON *into_values) {
        const cJSON *child;
        cJSON_ArrayForEach(child, node) {
                char key[METRIC_KEY_MAX];
                if (snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", child->string) >= (int) sizeof key)
                        continue;
                if (cJSON_IsObject(child))
                        flatten(child, key, into_values);
                else if (cJSON_IsArray(child) && strcmp(key, "capacity.per_sla") == 0)
                        flatten_per_sla(child, key, into_values);
                else if (cJSON_IsNumber(child) && isfinite(child->valuedouble) && strcmp(key, "measure_start_ns") != 0)
                        add_value(into_values, key, child->valuedouble);
        }
}

static size_t to_doubles(const cJSON *list, double *out, size_t max) {
        size_t n = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, list) {
                if (n < max)
                        out[n++] = v->valuedouble;
        }
        return n;
}

static const char *row_string(const cJSON *row, const char *key) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, key));
        return s ? s : "";
}

#define PER_SLA_KEY "capacity.per_sla"

bool cell_metric_json_path(const char *metric, char *buf, size_t size) {
        bool per_sla = strncmp(metric, PER_SLA_KEY ".", strlen(PER_SLA_KEY ".")) == 0;
        int n = snprintf(buf, size, "$.%s", per_sla ? PER_SLA_KEY : metric);
        return n >= 0 && (size_t) n < size;
}

/* The figure flatten() would give metric out of what a run's metrics hold at its JSON path. */
static bool metric_pick(const cJSON *at_path, const char *metric, double *ret) {
        if (cJSON_IsArray(at_path)) {
                if (strncmp(metric, PER_SLA_KEY ".", strlen(PER_SLA_KEY ".")) != 0)
                        return false;
                _cleanup_json_ cJSON *values = cJSON_CreateObject();
                flatten_per_sla(at_path, PER_SLA_KEY, values);
                const cJSON *list = cJSON_GetObjectItemCaseSensitive(values, metric);
                if (!cJSON_IsNumber(cJSON_GetArrayItem(list, 0)))
                        return false;
                *ret = cJSON_GetArrayItem(list, 0)->valuedouble;
                return true;
        }
        if (!cJSON_IsNumber(at_path) || !isfinite(at_path->valuedouble) || strcmp(metric, "measure_start_ns") == 0)
                return false;
        *ret = at_path->valuedouble;
        return true;
}

bool cell_metric_describe_picked(const cJSON *at_path_list, const char *metric, struct stats_summary *ret) {
        double x[ITERATIONS_MAX];
        size_t n = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, at_path_list) {
                if (n < ITERATIONS_MAX && metric_pick(v, metric, &x[n]))
                        n++;
        }
        return n > 0 && stats_describe(x, n, ret) >= 0;
}

bool cell_metric_describe(const cJSON *list, struct stats_summary *ret) {
        double x[ITERATIONS_MAX];
        size_t n = to_doubles(list, x, ITERATIONS_MAX);
        return n > 0 && stats_describe(x, n, ret) >= 0;
}

int cell_metric_ratio(const cJSON *list, const cJSON *baseline_list, struct stats_ratio *ret, const char **ret_method) {
        double x[ITERATIONS_MAX], b[ITERATIONS_MAX];
        size_t nx = to_doubles(list, x, ITERATIONS_MAX), nb = to_doubles(baseline_list, b, ITERATIONS_MAX);
        return stats_ratio_best(x, nx, b, nb, ret, ret_method);
}

cJSON *cell_metric_stats(const cJSON *values) {
        cJSON *out = cJSON_CreateObject();
        const cJSON *list;
        cJSON_ArrayForEach(list, values) {
                struct stats_summary s;
                if (cell_metric_describe(list, &s))
                        cJSON_AddItemToObject(out, list->string, stats_summary_json(&s));
        }
        return out;
}

cJSON *cell_metric_ratios(const cJSON *values, const cJSON *baseline) {
        cJSON *out = cJSON_CreateObject();
        const cJSON *list;
        cJSON_ArrayForEach(list, values) {
                const cJSON *base = cJSON_GetObjectItemCaseSensitive(baseline, list->string);
                struct stats_ratio r;
                const char *method;
                if (!base || cell_metric_ratio(list, base, &r, &method) < 0)
                        continue;
                cJSON *j = stats_ratio_json(&r);
                cJSON_AddStringToObject(j, "method", method);
                cJSON_AddItemToObject(out, list->string, j);
        }
        return out;
}

cJSON *cell_run_counts(const cJSON *rows, const char *cell) {
        static const char *const states[] = { "succeeded", "failed", "cancelled", "interrupted" };
        double counts[4] = { 0 }, total = 0;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                if (strcmp(row_string(row, "cell"), cell) != 0)
                        continue;
                total++;
                const char *state = row_string(row, "state");
                for (size_t i = 0; i < ELEMENTSOF(states); i++)
                        if (strcmp(state, states[i]) == 0)
                                counts[i]++;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "total", total);
        double finished = 0;
        for (size_t i = 0; i < ELEMENTSOF(states); i++) {
                cJSON_AddNumberToObject(o, states[i], counts[i]);
                finished += counts[i];
        }
        cJSON_AddNumberToObject(o, "pending", total - finished);
        return o;
}

cJSON *cell_gather(const cJSON *rows, const char *cell) {
        cJSON *g = cJSON_CreateObject();
        cJSON *values = cJSON_AddObjectToObject(g, "values");
        cJSON *bad = cJSON_AddArrayToObject(g, "not_succeeded");
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                if (strcmp(row_string(row, "cell"), cell) != 0)
                        continue;
                const char *state = row_string(row, "state");
                if (strcmp(state, "succeeded") == 0) {
                        flatten(cJSON_GetObjectItemCaseSensitive(row, "metrics"), "", values);
                        continue;
                }
                if (strcmp(state, "failed") != 0 && strcmp(state, "cancelled") != 0 && strcmp(state, "interrupted") != 0)
                        continue;
                cJSON *b = cJSON_CreateObject();
                static const char *const keep[] = { "id", "iteration", "state", "reason" };
                for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                        cJSON_AddItemToObject(b, keep[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(row, keep[i]), true));
                cJSON_AddItemToArray(bad, b);
        }
        return g;
}

/* A succeeded run of cell: the runs whose metrics the report's figures are of. */
static bool row_succeeded_in(const cJSON *row, const char *cell) {
        return strcmp(row_string(row, "cell"), cell) == 0 && strcmp(row_string(row, "state"), "succeeded") == 0;
}

static const cJSON *row_metrics_item(const cJSON *row, const char *key) {
        return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(row, "metrics"), key);
}

cJSON *cell_steady_states(const cJSON *rows, const char *cell) {
        static const char *const classes[] = { "flat", "warmup", "slowdown", "no steady state" };
        double counts[ELEMENTSOF(classes)] = { 0 }, n = 0;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                if (!row_succeeded_in(row, cell))
                        continue;
                const cJSON *s = row_metrics_item(row, "steady_state");
                const char *class = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "class"));
                for (size_t i = 0; class && i < ELEMENTSOF(classes); i++)
                        if (strcmp(class, classes[i]) == 0) {
                                counts[i]++;
                                n++;
                        }
        }
        if (n == 0)
                return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject(), *by = cJSON_AddObjectToObject(o, "classes");
        bool consistent = false;
        for (size_t i = 0; i < ELEMENTSOF(classes); i++) {
                cJSON_AddNumberToObject(by, classes[i], counts[i]);
                consistent = consistent || counts[i] == n;
        }
        cJSON_AddNumberToObject(o, "runs", n);
        cJSON_AddBoolToObject(o, "consistent", consistent);
        return o;
}

/* {steady, not_steady}: the cell's succeeded runs whose metrics.warmup_auto.steady is true, false.
 * A run without warmup_auto is in neither: how its warmup ended is not known. */
static cJSON *warmup_auto_counts(const cJSON *rows, const char *cell) {
        double steady = 0, not_steady = 0;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                if (!row_succeeded_in(row, cell))
                        continue;
                const cJSON *s = cJSON_GetObjectItemCaseSensitive(row_metrics_item(row, "warmup_auto"), "steady");
                if (cJSON_IsTrue(s))
                        steady++;
                else if (cJSON_IsFalse(s))
                        not_steady++;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "steady", steady);
        cJSON_AddNumberToObject(o, "not_steady", not_steady);
        return o;
}

cJSON *cell_warmup(const cJSON *rows, const char *cell, const cJSON *values, bool warmup_auto) {
        /* metrics.warmup_s is a figure like any other: cell_gather() has it as values' "warmup_s",
         * so that these are the same runs and numbers as the report's metrics.warmup_s. */
        struct stats_summary s;
        if (!cell_metric_describe(cJSON_GetObjectItemCaseSensitive(values, "warmup_s"), &s))
                return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "runs", (double) s.n);
        cJSON_AddNumberToObject(o, "min_s", s.min);
        cJSON_AddNumberToObject(o, "max_s", s.max);
        cJSON_AddNumberToObject(o, "mean_s", s.mean);
        if (warmup_auto)
                cJSON_AddItemToObject(o, "auto", warmup_auto_counts(rows, cell));
        return o;
}
