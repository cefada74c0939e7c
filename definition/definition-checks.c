/* definition-checks.c: the definition's `checks` (what a CI job gates on): parsing, validation
 * and the metric names a check may name. */
#include <math.h>
#include <string.h>

#include "definition/definition-internal.h"

/* The numeric run metrics (design.md, "Run metrics") as the report flattens them. A fixed list
 * rather than "whatever a run happens to report", so that a typo is a 400 at submission instead
 * of a check that can never be evaluated. */
const char *const definition_checks_metrics[] = {
        "throughput_rps", "requests", "errors", "ops_per_s",
        "latency_us.scheduled.p50", "latency_us.scheduled.p90", "latency_us.scheduled.p99",
        "latency_us.scheduled.p999", "latency_us.scheduled.p9999", "latency_us.scheduled.max",
        "latency_us.submit.p50", "latency_us.submit.p90", "latency_us.submit.p99",
        "latency_us.submit.p999", "latency_us.submit.p9999", "latency_us.submit.max",
        "latency_us.lag.p50", "latency_us.lag.p90", "latency_us.lag.p99",
        "latency_us.lag.p999", "latency_us.lag.p9999", "latency_us.lag.max",
        "gc.pauses", "gc.pause_total_ms", "gc.pause_max_ms", "gc.pause_p99_ms", "gc.safepoint_total_ms",
        "jit.compile_time_s", "jit.compile_time_measure_s",
        "cgroup.cpu_usage_s", "cgroup.nr_periods", "cgroup.nr_throttled", "cgroup.throttled_s",
        "cgroup.memory_peak_bytes", "cgroup.oom_kills",
        "load.cpu_usage_s", "load.nr_throttled",
        "capacity.max_rps", "capacity.critical_rps",
        NULL,
};

bool definition_checks_metric_valid(const char *metric) {
        for (const char *const *m = definition_checks_metrics; *m; m++)
                if (strcmp(*m, metric) == 0)
                        return true;
        return false;
}

/* The index of the cell a check names. */
static int check_cell(const cJSON *v, const char *path, const struct definition *d, size_t *ret,
                      struct error *err) {
        _cleanup_free_ char *name = NULL;
        int r = def_get_string(v, path, DEFINITION_CELL_NAME_MAX, 0, &name, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_cells; i++)
                if (strcmp(d->cells[i].name, name) == 0) {
                        *ret = i;
                        return 0;
                }
        char q[96];
        def_quote(q, sizeof q, name);
        return def_error(err, "invalid_value", path, "must name a cell of the definition, got %s", q);
}

static int parse_check(const cJSON *v, const char *path, const struct definition *d,
                       struct definition_check *c, struct error *err) {
        static const char *const known[] = { "metric", "cell", "ratio_to", "min", "max" };
        char p[DEF_PATH_MAX];
        const cJSON *m;
        int r = def_expect_object(v, path, err);
        if (r < 0 || (r = def_check_members(v, path, known, ELEMENTSOF(known), err)) < 0)
                return r;

        def_path_key(p, path, "metric");
        if (!(m = cJSON_GetObjectItemCaseSensitive(v, "metric")))
                return def_error(err, "missing_field", p, "is required");
        r = def_get_string(m, p, DEF_PATH_MAX, 0, &c->metric, err);
        if (r < 0)
                return r;
        if (!definition_checks_metric_valid(c->metric)) {
                char q[96];
                def_quote(q, sizeof q, c->metric);
                return def_error(err, "invalid_value", p,
                                 "must name a run metric such as \"throughput_rps\" or "
                                 "\"latency_us.scheduled.p99\", got %s", q);
        }
        def_path_key(p, path, "cell");
        if (!(m = cJSON_GetObjectItemCaseSensitive(v, "cell")))
                return def_error(err, "missing_field", p, "is required");
        if ((r = check_cell(m, p, d, &c->cell, err)) < 0)
                return r;
        if ((m = cJSON_GetObjectItemCaseSensitive(v, "ratio_to"))) {
                def_path_key(p, path, "ratio_to");
                if ((r = check_cell(m, p, d, &c->ratio_to, err)) < 0)
                        return r;
                if (c->ratio_to == c->cell)
                        return def_error(err, "invalid_value", p, "must name another cell than cell");
                c->has_ratio_to = true;
        }
        static const char *const bounds[] = { "min", "max" };
        double *values[] = { &c->min, &c->max };
        bool *has[] = { &c->has_min, &c->has_max };
        for (size_t i = 0; i < 2; i++) {
                if (!(m = cJSON_GetObjectItemCaseSensitive(v, bounds[i])))
                        continue;
                def_path_key(p, path, bounds[i]);
                if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble))
                        return def_error(err, "wrong_type", p, "must be a finite number, got %s", def_type_name(m));
                *values[i] = m->valuedouble;
                *has[i] = true;
        }
        if (!c->has_min && !c->has_max)
                return def_error(err, "missing_field", path, "needs min, max or both");
        if (c->has_min && c->has_max && c->min > c->max) {
                def_path_key(p, path, "min");
                return def_error(err, "conflict", p, "must not be above max");
        }
        return 0;
}

void def_checks_free(struct definition_check *c, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(c[i].metric);
        free(c);
}

int def_parse_checks(const cJSON *v, struct definition *d, struct error *err) {
        int r = def_expect_array(v, "checks", 0, DEFINITION_CHECKS_MAX, err);
        if (r < 0)
                return r;
        size_t n = (size_t) cJSON_GetArraySize(v);
        if (n == 0)
                return 0;
        d->checks = calloc(n, sizeof *d->checks);
        if (!d->checks)
                return def_oom(err);
        const cJSON *c;
        cJSON_ArrayForEach(c, v) {
                char p[DEF_PATH_MAX];
                def_path_index(p, "checks", d->n_checks);
                /* counted first so that definition_free() releases a half-parsed check */
                r = parse_check(c, p, d, &d->checks[d->n_checks++], err);
                if (r < 0)
                        return r;
        }
        return 0;
}
