/* definition-format.c: the canonical JSON of a definition: every field with a default filled,
 * sizes in bytes, cpulists and URLs normalized, env sorted, numbers printed exactly, so that
 * parsing the canonical JSON gives it back byte for byte. cJSON's calls go unchecked: an
 * allocation failure aborts (basic/json-util.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "definition/definition-internal.h"

/* cJSON prints integers above INT_MAX with 15 significant digits and accepts the result as
 * "close enough"; a seed or a byte count must survive exactly, so numbers are printed here. */
static void add_uint(cJSON *obj, const char *key, uint64_t v) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRIu64, v);
        cJSON_AddRawToObject(obj, key, buf);
}

static void add_double(cJSON *obj, const char *key, double v) {
        char buf[64];
        def_format_double(buf, sizeof buf, v);
        cJSON_AddRawToObject(obj, key, buf);
}

static void add_string(cJSON *obj, const char *key, const char *s) {
        cJSON_AddStringToObject(obj, key, s);
}

static void add_strv(cJSON *obj, const char *key, char **l) {
        cJSON *a = cJSON_AddArrayToObject(obj, key);
        for (; l && *l; l++)
                cJSON_AddItemToArray(a, cJSON_CreateString(*l));
}

static void add_cpulist(cJSON *obj, const char *key, const struct cpulist *c) {
        /* CPULIST_MAX CPUs at worst as 512 single numbers of up to 4 digits: ~2500 bytes */
        char buf[4096];
        (void) cpulist_format(c, buf, sizeof buf);
        add_string(obj, key, buf);
}

static void add_url(cJSON *obj, const char *key, const struct definition_url *u) {
        char buf[DEFINITION_URL_MAX + 64];
        def_format_url(buf, sizeof buf, u);
        add_string(obj, key, buf);
}

static void format_ready(cJSON *sut, const struct definition_ready *r) {
        if (r->kind == DEFINITION_READY_NONE)
                return;
        cJSON *o = cJSON_AddObjectToObject(sut, "ready");
        if (r->kind == DEFINITION_READY_TCP) {
                char buf[DEFINITION_URL_MAX + 64];
                def_format_host_port(buf, sizeof buf, r->tcp_host, r->tcp_ipv6, r->tcp_port);
                add_string(o, "tcp", buf);
        } else if (r->kind == DEFINITION_READY_HTTP)
                add_url(o, "http", &r->http);
        else
                add_string(o, "log", r->log_regex);
        add_uint(o, "timeout_s", r->timeout_s);
}

static void format_sut(cJSON *root, const struct definition_sut *sut) {
        cJSON *o = cJSON_AddObjectToObject(root, "sut");
        add_strv(o, "command", sut->command);
        cJSON_AddBoolToObject(o, "jvm", sut->jvm);
        def_kv_format(o, "env", &sut->env);
        format_ready(o, &sut->ready);
        if (sut->memory_max)
                add_uint(o, "memory_max", sut->memory_max);
}

static void format_capacity(cJSON *o, const struct definition_load *l) {
        cJSON *sla = cJSON_AddArrayToObject(o, "sla");
        for (size_t i = 0; i < l->n_sla; i++) {
                cJSON *e = cJSON_CreateObject();
                cJSON_AddItemToArray(sla, e);
                add_double(e, "percentile", l->sla[i].percentile);
                add_double(e, "max_ms", l->sla[i].max_ms);
        }
        add_double(o, "rate_min", l->rate_min);
        add_double(o, "rate_max", l->rate_max);
        if (l->search_warmup_s > 0) /* only when given: definitions stored before it keep their form */
                add_uint(o, "warmup_s", l->search_warmup_s);
        cJSON *step = cJSON_AddObjectToObject(o, "step");
        add_uint(step, "warmup_s", l->warmup_s);
        add_uint(step, "measure_s", l->measure_s);
        add_double(o, "precision", l->precision);
}

void def_format_injector(cJSON *o, const struct definition_load *l) {
        add_url(o, "target", &l->target);
        add_string(o, "mode", def_mode_names[l->mode]);
        if (l->mode == DEFINITION_MODE_RATE)
                add_double(o, "rate", l->rate);
        if (l->mode != DEFINITION_MODE_MAX)
                add_string(o, "arrival", def_arrival_names[l->arrival]);
        add_uint(o, "connections", l->connections);
        add_uint(o, "timeout_ms", l->timeout_ms);
        if (l->mode == DEFINITION_MODE_CAPACITY)
                format_capacity(o, l);
        else if (l->warmup_auto) {
                add_string(o, "warmup_s", "auto");
                add_uint(o, "warmup_max_s", l->warmup_s);
                add_uint(o, "measure_s", l->measure_s);
        } else {
                add_uint(o, "warmup_s", l->warmup_s);
                add_uint(o, "measure_s", l->measure_s);
        }
}

static void format_load_hosts(cJSON *o, const struct definition_load *l) {
        cJSON *hosts = cJSON_AddArrayToObject(o, "hosts");
        for (size_t i = 0; i < l->n_hosts; i++) {
                cJSON *e = cJSON_CreateObject();
                cJSON_AddItemToArray(hosts, e);
                add_string(e, "host", l->hosts[i].host);
                add_cpulist(e, "cpus", &l->hosts[i].cpus);
                add_double(e, "share", l->hosts[i].share);
        }
}

static void format_load(cJSON *root, const struct definition_load *l) {
        if (l->kind == DEFINITION_LOAD_NONE)
                return;
        cJSON *o = cJSON_AddObjectToObject(root, "load");
        if (l->kind == DEFINITION_LOAD_EXTERNAL) {
                add_strv(o, "command", l->command);
                add_string(o, "timeline", l->timeline);
                add_uint(o, "timeout_s", l->timeout_s);
        } else
                def_format_injector(o, l);
        if (l->n_hosts > 0)
                format_load_hosts(o, l);
        if (l->has_cpus)
                add_cpulist(o, "cpus", &l->cpus);
}

static void format_cell(cJSON *cells, const struct definition_cell *c) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(cells, o);
        add_string(o, "name", c->name);
        if (c->has_cpus)
                add_cpulist(o, "cpus", &c->cpus);
        if (c->has_mems)
                add_cpulist(o, "mems", &c->mems);
        if (c->has_quota) {
                add_double(o, "cpu_quota", c->cpu_quota);
                add_uint(o, "cpu_period_us", c->cpu_period_us);
                add_uint(o, "cpu_burst_us", c->cpu_burst_us);
        }
        if (c->memory_max)
                add_uint(o, "memory_max", c->memory_max);
        def_kv_format(o, "env", &c->env);
        if (c->n_jvm_args > 0)
                add_strv(o, "jvm_args", c->jvm_args);
        if (c->unprofiled)
                cJSON_AddBoolToObject(o, "profile", false);
}

static void format_host(cJSON *root, const struct definition_host_checks *h) {
        cJSON *o = cJSON_AddObjectToObject(root, "host");
        if (h->governor)
                add_string(o, "governor", h->governor);
        if (h->smt != DEFINITION_SMT_ANY)
                add_string(o, "smt", def_smt_names[h->smt]);
        if (h->thp != DEFINITION_THP_ANY)
                add_string(o, "thp", def_thp_names[h->thp]);
        add_string(o, "on_mismatch", def_on_mismatch_names[h->on_mismatch]);
}

/* Only when on: a definition without profiling keeps the canonical JSON it always had. */
static void format_profile(cJSON *root, const struct definition_profile *p) {
        if (!p->cpu)
                return;
        cJSON *o = cJSON_AddObjectToObject(root, "profile");
        cJSON_AddBoolToObject(o, "cpu", true);
        add_uint(o, "hz", p->hz);
}

static void format_check(cJSON *checks, const struct definition *d, const struct definition_check *c) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(checks, o);
        add_string(o, "metric", c->metric);
        add_string(o, "cell", d->cells[c->cell].name);
        if (c->has_ratio_to)
                add_string(o, "ratio_to", d->cells[c->ratio_to].name);
        if (c->has_min)
                add_double(o, "min", c->min);
        if (c->has_max)
                add_double(o, "max", c->max);
}

char *definition_format_json(const struct definition *d) {
        _cleanup_json_ cJSON *root = cJSON_CreateObject();
        add_string(root, "name", d->name);
        if (d->description)
                add_string(root, "description", d->description);
        def_format_iterations(root, d);
        add_uint(root, "max_consecutive_failures", d->max_consecutive_failures);
        add_string(root, "order", definition_names_order(d->order));
        if (d->has_seed)
                add_uint(root, "seed", d->seed);
        format_sut(root, &d->sut);
        format_load(root, &d->load);
        cJSON *cells = cJSON_AddArrayToObject(root, "cells");
        for (size_t i = 0; i < d->n_cells; i++)
                format_cell(cells, &d->cells[i]);
        format_host(root, &d->host);
        format_profile(root, &d->profile);
        def_kv_format(root, "labels", &d->labels);
        if (d->n_checks > 0) {
                cJSON *checks = cJSON_AddArrayToObject(root, "checks");
                for (size_t i = 0; i < d->n_checks; i++)
                        format_check(checks, d, &d->checks[i]);
        }
        def_format_stop(root, d);
        if (d->template)
                def_template_format(root, d->template);
        return cJSON_PrintUnformatted(root);
}
