/* definition-format.c: the canonical JSON of a definition: every field with a default filled,
 * sizes in bytes, cpulists and URLs normalized, env sorted, numbers printed exactly, so that
 * parsing the canonical JSON gives it back byte for byte. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "definition/definition-internal.h"

/* cJSON prints integers above INT_MAX with 15 significant digits and accepts the result as
 * "close enough"; a seed or a byte count must survive exactly, so numbers are printed here. */
static bool add_raw_number(cJSON *obj, const char *key, const char *text) {
        cJSON *n = cJSON_CreateRaw(text);
        if (!n || !cJSON_AddItemToObject(obj, key, n)) {
                cJSON_Delete(n);
                return false;
        }
        return true;
}

static bool add_uint(cJSON *obj, const char *key, uint64_t v) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRIu64, v);
        return add_raw_number(obj, key, buf);
}

static bool add_double(cJSON *obj, const char *key, double v) {
        char buf[64];
        def_format_double(buf, sizeof buf, v);
        return add_raw_number(obj, key, buf);
}

static bool add_string(cJSON *obj, const char *key, const char *s) {
        return cJSON_AddStringToObject(obj, key, s) != NULL;
}

static bool add_strv(cJSON *obj, const char *key, char **l) {
        cJSON *a = cJSON_AddArrayToObject(obj, key);
        if (!a)
                return false;
        for (; l && *l; l++) {
                cJSON *s = cJSON_CreateString(*l);
                if (!s || !cJSON_AddItemToArray(a, s)) {
                        cJSON_Delete(s);
                        return false;
                }
        }
        return true;
}

static bool add_env(cJSON *obj, const struct definition_env *e) {
        if (e->n == 0)
                return true;
        cJSON *o = cJSON_AddObjectToObject(obj, "env");
        if (!o)
                return false;
        for (size_t i = 0; i < e->n; i++)
                if (!add_string(o, e->keys[i], e->values[i]))
                        return false;
        return true;
}

static bool add_cpulist(cJSON *obj, const char *key, const struct cpulist *c) {
        char buf[4096];
        return cpulist_format(c, buf, sizeof buf) >= 0 && add_string(obj, key, buf);
}

static bool add_url(cJSON *obj, const char *key, const struct definition_url *u) {
        char buf[DEFINITION_URL_MAX + 64];
        def_format_url(buf, sizeof buf, u);
        return add_string(obj, key, buf);
}

static bool format_sut(cJSON *root, const struct definition_sut *sut) {
        cJSON *o = cJSON_AddObjectToObject(root, "sut");
        if (!o || !add_strv(o, "command", sut->command) || !cJSON_AddBoolToObject(o, "jvm", sut->jvm) ||
            !add_env(o, &sut->env))
                return false;
        const struct definition_ready *r = &sut->ready;
        if (r->kind != DEFINITION_READY_NONE) {
                cJSON *ro = cJSON_AddObjectToObject(o, "ready");
                char buf[DEFINITION_URL_MAX + 64];
                bool ok = ro != NULL;
                if (ok && r->kind == DEFINITION_READY_TCP) {
                        def_format_host_port(buf, sizeof buf, r->tcp_host, r->tcp_ipv6, r->tcp_port);
                        ok = add_string(ro, "tcp", buf);
                } else if (ok && r->kind == DEFINITION_READY_HTTP)
                        ok = add_url(ro, "http", &r->http);
                else if (ok)
                        ok = add_string(ro, "log", r->log_regex);
                if (!ok || !add_uint(ro, "timeout_s", r->timeout_s))
                        return false;
        }
        return sut->memory_max == 0 || add_uint(o, "memory_max", sut->memory_max);
}

static bool format_capacity(cJSON *o, const struct definition_load *l) {
        cJSON *sla = cJSON_AddArrayToObject(o, "sla");
        if (!sla)
                return false;
        for (size_t i = 0; i < l->n_sla; i++) {
                cJSON *e = cJSON_CreateObject();
                if (!e || !cJSON_AddItemToArray(sla, e)) {
                        cJSON_Delete(e);
                        return false;
                }
                if (!add_double(e, "percentile", l->sla[i].percentile) || !add_double(e, "max_ms", l->sla[i].max_ms))
                        return false;
        }
        cJSON *step = NULL;
        return add_double(o, "rate_min", l->rate_min) && add_double(o, "rate_max", l->rate_max) &&
               (step = cJSON_AddObjectToObject(o, "step")) && add_uint(step, "warmup_s", l->warmup_s) &&
               add_uint(step, "measure_s", l->measure_s) && add_double(o, "precision", l->precision);
}

static bool format_load_hosts(cJSON *o, const struct definition_load *l) {
        cJSON *hosts = cJSON_AddArrayToObject(o, "hosts");
        if (!hosts)
                return false;
        for (size_t i = 0; i < l->n_hosts; i++) {
                cJSON *e = cJSON_CreateObject();
                if (!e || !cJSON_AddItemToArray(hosts, e)) {
                        cJSON_Delete(e);
                        return false;
                }
                if (!add_string(e, "host", l->hosts[i].host) || !add_cpulist(e, "cpus", &l->hosts[i].cpus) ||
                    !add_double(e, "share", l->hosts[i].share))
                        return false;
        }
        return true;
}

static bool format_load(cJSON *root, const struct definition_load *l) {
        if (l->kind == DEFINITION_LOAD_NONE)
                return true;
        cJSON *o = cJSON_AddObjectToObject(root, "load");
        if (!o)
                return false;
        if (l->kind == DEFINITION_LOAD_EXTERNAL) {
                if (!add_strv(o, "command", l->command) || !add_string(o, "timeline", l->timeline) ||
                    !add_uint(o, "timeout_s", l->timeout_s))
                        return false;
        } else {
                if (!add_url(o, "target", &l->target) || !add_string(o, "mode", def_mode_names[l->mode]))
                        return false;
                if (l->mode == DEFINITION_MODE_RATE && !add_double(o, "rate", l->rate))
                        return false;
                if (l->mode != DEFINITION_MODE_MAX && !add_string(o, "arrival", def_arrival_names[l->arrival]))
                        return false;
                if (!add_uint(o, "connections", l->connections) || !add_uint(o, "timeout_ms", l->timeout_ms))
                        return false;
                if (l->mode == DEFINITION_MODE_CAPACITY) {
                        if (!format_capacity(o, l))
                                return false;
                } else if (!add_uint(o, "warmup_s", l->warmup_s) || !add_uint(o, "measure_s", l->measure_s))
                        return false;
        }
        if (l->n_hosts > 0 && !format_load_hosts(o, l))
                return false;
        return !l->has_cpus || add_cpulist(o, "cpus", &l->cpus);
}

static bool format_cell(cJSON *cells, const struct definition_cell *c) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(cells, o)) {
                cJSON_Delete(o);
                return false;
        }
        if (!add_string(o, "name", c->name) || (c->has_cpus && !add_cpulist(o, "cpus", &c->cpus)) ||
            (c->has_mems && !add_cpulist(o, "mems", &c->mems)))
                return false;
        if (c->has_quota && (!add_double(o, "cpu_quota", c->cpu_quota) ||
                             !add_uint(o, "cpu_period_us", c->cpu_period_us) ||
                             !add_uint(o, "cpu_burst_us", c->cpu_burst_us)))
                return false;
        if (c->memory_max && !add_uint(o, "memory_max", c->memory_max))
                return false;
        if (!add_env(o, &c->env))
                return false;
        return c->n_jvm_args == 0 || add_strv(o, "jvm_args", c->jvm_args);
}

static bool format_host(cJSON *root, const struct definition_host_checks *h) {
        cJSON *o = cJSON_AddObjectToObject(root, "host");
        if (!o)
                return false;
        if (h->governor && !add_string(o, "governor", h->governor))
                return false;
        if (h->smt != DEFINITION_SMT_ANY && !add_string(o, "smt", def_smt_names[h->smt]))
                return false;
        if (h->thp != DEFINITION_THP_ANY && !add_string(o, "thp", def_thp_names[h->thp]))
                return false;
        return add_string(o, "on_mismatch", def_on_mismatch_names[h->on_mismatch]);
}

static bool format_labels(cJSON *root, const struct definition_labels *l) {
        if (l->n == 0)
                return true;
        cJSON *o = cJSON_AddObjectToObject(root, "labels");
        if (!o)
                return false;
        for (size_t i = 0; i < l->n; i++)
                if (!add_string(o, l->keys[i], l->values[i]))
                        return false;
        return true;
}

static bool format_check(cJSON *checks, const struct definition *d, const struct definition_check *c) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(checks, o)) {
                cJSON_Delete(o);
                return false;
        }
        return add_string(o, "metric", c->metric) && add_string(o, "cell", d->cells[c->cell].name) &&
               (!c->has_ratio_to || add_string(o, "ratio_to", d->cells[c->ratio_to].name)) &&
               (!c->has_min || add_double(o, "min", c->min)) && (!c->has_max || add_double(o, "max", c->max));
}

static bool format_checks(cJSON *root, const struct definition *d) {
        if (d->n_checks == 0)
                return true;
        cJSON *a = cJSON_AddArrayToObject(root, "checks");
        if (!a)
                return false;
        for (size_t i = 0; i < d->n_checks; i++)
                if (!format_check(a, d, &d->checks[i]))
                        return false;
        return true;
}

int definition_format_json(const struct definition *d, char **ret) {
        _cleanup_json_ cJSON *root = cJSON_CreateObject();
        if (!root)
                return -ENOMEM;
        if (!add_string(root, "name", d->name) || !add_uint(root, "iterations", d->iterations) ||
            !add_uint(root, "max_consecutive_failures", d->max_consecutive_failures) ||
            !add_string(root, "order", definition_order_to_string(d->order)) ||
            (d->has_seed && !add_uint(root, "seed", d->seed)) || !format_sut(root, &d->sut) ||
            !format_load(root, &d->load))
                return -ENOMEM;
        cJSON *cells = cJSON_AddArrayToObject(root, "cells");
        if (!cells)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_cells; i++)
                if (!format_cell(cells, &d->cells[i]))
                        return -ENOMEM;
        if (!format_host(root, &d->host) || !format_labels(root, &d->labels) || !format_checks(root, d))
                return -ENOMEM;
        char *s = cJSON_PrintUnformatted(root);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}
