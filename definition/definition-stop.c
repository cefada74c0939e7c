/* definition-stop.c: iterations chosen by the data (issue 37): `iterations` as {min, max} with
 * `stop`, the comparisons that must be decided before the experiment may end early. Parsed after
 * the cells (stop names its baseline) and written back in the canonical JSON. */
#include <string.h>

#include "definition/definition-internal.h"

/* Positive metrics a ratio of geometric means is taken of, as the difference rule compares them
 * (the log scale needs values above 0). */
const char *const definition_stop_metrics[] = {
        "throughput_rps", "ops_per_s", "latency_us.scheduled.p50", "latency_us.scheduled.p99",
        "latency_us.scheduled.p999", "capacity.max_rps", NULL,
};

static const char *stop_metric(const char *name) {
        for (const char *const *m = definition_stop_metrics; *m; m++)
                if (strcmp(*m, name) == 0)
                        return *m;
        return NULL;
}

/* `iterations`: a count, or {"min": M, "max": N} with 2 <= M <= N. */
int def_parse_iterations(const cJSON *v, struct definition *d, struct error *err) {
        static const char *const known[] = { "min", "max" };
        uint64_t min, max;
        int r;
        if (!v)
                return 0;
        if (!cJSON_IsObject(v)) {
                r = def_get_uint(v, "iterations", 1, DEFINITION_ITERATIONS_MAX, &max, err);
                if (r < 0)
                        return r;
                d->iterations = (unsigned) max;
                return 0;
        }
        if ((r = def_check_members(v, "iterations", known, ELEMENTSOF(known), err)) < 0)
                return r;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, "min"), *x = cJSON_GetObjectItemCaseSensitive(v, "max");
        if (!m)
                return def_error(err, "missing_field", "iterations.min", "is required");
        if (!x)
                return def_error(err, "missing_field", "iterations.max", "is required");
        /* 2 rounds at least: one round's log ratio has no spread to bound */
        if ((r = def_get_uint(m, "iterations.min", 2, DEFINITION_ITERATIONS_MAX, &min, err)) < 0 ||
            (r = def_get_uint(x, "iterations.max", 2, DEFINITION_ITERATIONS_MAX, &max, err)) < 0)
                return r;
        if (min > max)
                return def_error(err, "conflict", "iterations.min", "must not be above iterations.max (%llu > %llu)",
                                 (unsigned long long) min, (unsigned long long) max);
        d->iterations = (unsigned) max;
        d->stop.min_rounds = (unsigned) min;
        d->stop.enabled = true;
        return 0;
}

static int parse_stop_baseline(const cJSON *v, const struct definition *d, struct definition_stop *s, struct error *err) {
        _cleanup_free_ char *name = NULL;
        int r = def_get_string(v, "stop.baseline", DEFINITION_CELL_NAME_MAX, 0, &name, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_cells; i++)
                if (strcmp(d->cells[i].name, name) == 0) {
                        s->baseline = i;
                        return 0;
                }
        char q[96];
        def_quote(q, sizeof q, name);
        return def_error(err, "invalid_value", "stop.baseline", "must name a cell of the definition, got %s", q);
}

/* Why the runs of this load never have a metric the rule could compare, or NULL when they have
 * it. A metric no run has leaves its comparisons undecided: every experiment would run to
 * iterations.max and say undecided without saying why. A capacity run's throughput and latency
 * are its last step's, at whichever rate its search ended on: not comparable across runs. */
static const char *stop_metric_unfit(const struct definition_load *l, const char *metric) {
        bool capacity = l->kind == DEFINITION_LOAD_INJECTOR && l->mode == DEFINITION_MODE_CAPACITY;
        if (strcmp(metric, "ops_per_s") == 0)
                return l->kind == DEFINITION_LOAD_NONE ? NULL : "is what a benchmark without load prints: with a load, "
                                                                "compare throughput_rps or latency_us";
        if (strcmp(metric, "capacity.max_rps") == 0)
                return capacity ? NULL : "is a capacity search's result: it needs load.mode \"capacity\"";
        if (l->kind == DEFINITION_LOAD_NONE)
                return "needs a load: a benchmark without load has ops_per_s";
        if (capacity)
                return "is a capacity run's last step's, at whichever rate its search ended on: compare capacity.max_rps";
        return NULL;
}

static int parse_stop_metrics(const cJSON *v, const struct definition_load *load, struct definition_stop *s,
                              struct error *err) {
        int r = def_expect_array(v, "stop.metrics", 1, DEFINITION_STOP_METRICS_MAX, err);
        if (r < 0)
                return r;
        const cJSON *m;
        cJSON_ArrayForEach(m, v) {
                char p[DEF_PATH_MAX];
                def_path_index(p, "stop.metrics", s->n_metrics);
                if (!cJSON_IsString(m))
                        return def_error(err, "wrong_type", p, "must be a string, got %s", def_type_name(m));
                const char *known = stop_metric(m->valuestring);
                if (!known) {
                        char q[96];
                        def_quote(q, sizeof q, m->valuestring);
                        return def_error(err, "invalid_value", p,
                                         "must be one of throughput_rps, ops_per_s, latency_us.scheduled.p50, "
                                         "latency_us.scheduled.p99, latency_us.scheduled.p999, capacity.max_rps, got %s", q);
                }
                const char *unfit = stop_metric_unfit(load, known);
                if (unfit)
                        return def_error(err, "conflict", p, "%s %s", known, unfit);
                for (size_t i = 0; i < s->n_metrics; i++)
                        if (s->metrics[i] == known)
                                return def_error(err, "invalid_value", p, "names %s twice", known);
                s->metrics[s->n_metrics++] = known;
        }
        return 0;
}

/* `stop`: required with iterations {min, max}, refused without. */
int def_parse_stop(const cJSON *v, struct definition *d, struct error *err) {
        static const char *const known[] = { "baseline", "metrics", "difference_pct", "level" };
        struct definition_stop *s = &d->stop;
        const cJSON *c;
        int r;
        if (!v) {
                if (s->enabled)
                        return def_error(err, "missing_field", "stop", "is required when iterations is {\"min\", \"max\"}: "
                                                                     "it names the comparisons that decide when to stop");
                return 0;
        }
        if (!s->enabled)
                return def_error(err, "conflict", "stop", "needs iterations as {\"min\": M, \"max\": N}");
        if ((r = def_expect_object(v, "stop", err)) < 0 || (r = def_check_members(v, "stop", known, ELEMENTSOF(known), err)) < 0)
                return r;
        if (d->n_cells < 2)
                return def_error(err, "conflict", "stop", "needs at least 2 cells: it compares cells with the baseline");
        if (d->order == DEFINITION_ORDER_SEQUENTIAL)
                return def_error(err, "conflict", "order",
                                 "must be \"interleaved\" or \"random\" with stop: each round runs every cell once");
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "baseline")) && (r = parse_stop_baseline(c, d, s, err)) < 0)
                return r;
        if (!(c = cJSON_GetObjectItemCaseSensitive(v, "metrics")))
                return def_error(err, "missing_field", "stop.metrics", "is required");
        if ((r = parse_stop_metrics(c, &d->load, s, err)) < 0)
                return r;
        s->difference_pct = DEFINITION_STOP_DIFFERENCE_PCT_DEFAULT;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "difference_pct")) &&
            (r = def_get_number(c, "stop.difference_pct", 0, DEFINITION_STOP_DIFFERENCE_PCT_MAX, &s->difference_pct, err)) < 0)
                return r;
        s->level = DEFINITION_STOP_LEVEL_DEFAULT;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "level"))) {
                if ((r = def_get_number(c, "stop.level", 0, DEFINITION_STOP_LEVEL_MAX, &s->level, err)) < 0)
                        return r;
                if (s->level < DEFINITION_STOP_LEVEL_MIN)
                        return def_error(err, "invalid_value", "stop.level", "must be at least 0.5, got %g", s->level);
        }
        return 0;
}

void def_format_iterations(cJSON *root, const struct definition *d) {
        if (!d->stop.enabled) {
                cJSON_AddNumberToObject(root, "iterations", d->iterations);
                return;
        }
        cJSON *it = cJSON_AddObjectToObject(root, "iterations");
        cJSON_AddNumberToObject(it, "min", d->stop.min_rounds);
        cJSON_AddNumberToObject(it, "max", d->iterations);
}

void def_format_stop(cJSON *root, const struct definition *d) {
        const struct definition_stop *s = &d->stop;
        if (!s->enabled)
                return;
        cJSON *o = cJSON_AddObjectToObject(root, "stop");
        cJSON_AddStringToObject(o, "baseline", d->cells[s->baseline].name);
        cJSON *m = cJSON_AddArrayToObject(o, "metrics");
        for (size_t i = 0; i < s->n_metrics; i++)
                cJSON_AddItemToArray(m, cJSON_CreateString(s->metrics[i]));
        cJSON_AddNumberToObject(o, "difference_pct", s->difference_pct);
        cJSON_AddNumberToObject(o, "level", s->level);
}

void definition_stop_plan(const struct definition *d, struct sequential_plan *ret) {
        const struct definition_stop *s = &d->stop;
        *ret = (struct sequential_plan){
                .baseline = s->baseline,
                .n_cells = d->n_cells,
                .metrics = s->metrics,
                .n_metrics = s->n_metrics,
                .min_rounds = s->min_rounds,
                .max_rounds = d->iterations,
                .level = s->level,
                .margin = s->difference_pct / 100,
        };
}
