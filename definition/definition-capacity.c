/* definition-capacity.c: the members of `load` that only `mode: "capacity"` takes: sla,
 * rate_min, rate_max, step {warmup_s, measure_s} and precision, checked strictly and against the
 * search's step bound (basic/capacity-search.h). */
#include <string.h>

#include "basic/capacity-search.h"
#include "definition/definition-internal.h"

#define STEP_WARMUP_DEFAULT_S 10
#define STEP_MEASURE_DEFAULT_S 30
#define SLA_MAX_MS 600000.0

static const char *const capacity_fields[] = { "sla", "rate_min", "rate_max", "step", "precision" };

static int parse_sla_entry(const cJSON *v, const char *path, struct definition_sla *ret, struct error *err) {
        static const char *const known[] = { "percentile", "max_ms" };
        char p[DEF_PATH_MAX];
        const cJSON *c;
        int r = def_expect_object(v, path, err);
        if (r < 0 || (r = def_check_members(v, path, known, ELEMENTSOF(known), err)) < 0)
                return r;
        def_path_key(p, path, "percentile");
        if (!(c = cJSON_GetObjectItemCaseSensitive(v, "percentile")))
                return def_error(err, "missing_field", p, "is required (50 to 99.99)");
        if ((r = def_get_number(c, p, 0, 99.99, &ret->percentile, err)) < 0)
                return r;
        if (ret->percentile < 50)
                return def_error(err, "out_of_range", p, "must be from 50 to 99.99, got %g", ret->percentile);
        def_path_key(p, path, "max_ms");
        if (!(c = cJSON_GetObjectItemCaseSensitive(v, "max_ms")))
                return def_error(err, "missing_field", p, "is required (milliseconds of latency from scheduled)");
        return def_get_number(c, p, 0, SLA_MAX_MS, &ret->max_ms, err);
}

static int parse_sla(const cJSON *v, struct definition_load *load, struct error *err) {
        int r = def_expect_array(v, "load.sla", 1, DEFINITION_SLA_MAX, err);
        if (r < 0)
                return r;
        const cJSON *c;
        size_t n = 0;
        cJSON_ArrayForEach(c, v) {
                char p[DEF_PATH_MAX];
                def_path_index(p, "load.sla", n);
                if ((r = parse_sla_entry(c, p, &load->sla[n], err)) < 0)
                        return r;
                for (size_t k = 0; k < n; k++)
                        if (load->sla[k].percentile == load->sla[n].percentile) {
                                char pp[DEF_PATH_MAX];
                                def_path_key(pp, p, "percentile");
                                return def_error(err, "conflict", pp, "percentile %g appears twice in load.sla",
                                                 load->sla[n].percentile);
                        }
                n++;
        }
        load->n_sla = n;
        return 0;
}

static int parse_step(const cJSON *v, struct definition_load *load, struct error *err) {
        static const char *const known[] = { "warmup_s", "measure_s" };
        uint64_t u;
        const cJSON *c;
        int r;
        load->warmup_s = STEP_WARMUP_DEFAULT_S;
        load->measure_s = STEP_MEASURE_DEFAULT_S;
        if (!v)
                return 0;
        if ((r = def_expect_object(v, "load.step", err)) < 0 ||
            (r = def_check_members(v, "load.step", known, ELEMENTSOF(known), err)) < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "warmup_s"))) {
                if ((r = def_get_uint(c, "load.step.warmup_s", 0, 3600, &u, err)) < 0)
                        return r;
                load->warmup_s = (unsigned) u;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "measure_s"))) {
                if ((r = def_get_uint(c, "load.step.measure_s", 1, 3600, &u, err)) < 0)
                        return r;
                load->measure_s = (unsigned) u;
        }
        return 0;
}

static int get_rate(const cJSON *v, const char *key, const char *path, double *ret, struct error *err) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, key);
        if (!c)
                return def_error(err, "missing_field", path, "is required with mode \"capacity\" (requests per second)");
        return def_get_number(c, path, 0, DEFINITION_RATE_MAX, ret, err);
}

int def_parse_capacity(const cJSON *v, struct definition_load *load, struct error *err) {
        int r;
        if (load->mode != DEFINITION_MODE_CAPACITY) {
                for (size_t i = 0; i < ELEMENTSOF(capacity_fields); i++)
                        if (cJSON_GetObjectItemCaseSensitive(v, capacity_fields[i])) {
                                char p[DEF_PATH_MAX];
                                def_path_key(p, "load", capacity_fields[i]);
                                return def_error(err, "conflict", p, "applies only to mode \"capacity\", not \"%s\"",
                                                 def_mode_names[load->mode]);
                        }
                return 0;
        }
        static const char *const per_step[] = { "rate", "measure_s" };
        for (size_t i = 0; i < ELEMENTSOF(per_step); i++)
                if (cJSON_GetObjectItemCaseSensitive(v, per_step[i])) {
                        char p[DEF_PATH_MAX];
                        def_path_key(p, "load", per_step[i]);
                        return def_error(err, "conflict", p,
                                         "does not apply to mode \"capacity\": its rates are searched between rate_min "
                                         "and rate_max, its phases are load.step's");
                }
        const cJSON *warmup = cJSON_GetObjectItemCaseSensitive(v, "warmup_s");
        if (warmup) {
                uint64_t u;
                if ((r = def_get_uint(warmup, "load.warmup_s", 0, 3600, &u, err)) < 0)
                        return r;
                load->search_warmup_s = (unsigned) u;
        }
        const cJSON *sla = cJSON_GetObjectItemCaseSensitive(v, "sla");
        if (!sla)
                return def_error(err, "missing_field", "load.sla",
                                 "is required with mode \"capacity\": [{\"percentile\": 99, \"max_ms\": 25}, ...]");
        if ((r = parse_sla(sla, load, err)) < 0 || (r = get_rate(v, "rate_min", "load.rate_min", &load->rate_min, err)) < 0 ||
            (r = get_rate(v, "rate_max", "load.rate_max", &load->rate_max, err)) < 0)
                return r;
        if (load->rate_max <= load->rate_min)
                return def_error(err, "conflict", "load.rate_max", "must be above rate_min (%g), got %g", load->rate_min,
                                 load->rate_max);
        load->precision = DEFINITION_PRECISION_DEFAULT;
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "precision");
        if (c) {
                if ((r = def_get_number(c, "load.precision", 0, 0.5, &load->precision, err)) < 0)
                        return r;
                if (load->precision < 0.001)
                        return def_error(err, "out_of_range", "load.precision", "must be from 0.001 to 0.5, got %g",
                                         load->precision);
        }
        unsigned steps = capacity_search_max_steps(load->rate_min, load->rate_max, load->precision);
        if (steps > CAPACITY_STEPS_MAX)
                return def_error(err, "conflict", "load.precision",
                                 "with rate_min %g and rate_max %g the search may need %u steps, more than %d: "
                                 "narrow the rates or raise the precision",
                                 load->rate_min, load->rate_max, steps, CAPACITY_STEPS_MAX);
        return parse_step(cJSON_GetObjectItemCaseSensitive(v, "step"), load, err);
}
