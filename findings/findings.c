/* findings.c: the registry of rules, running them, ordering their findings, and the small
 * helpers every rule uses to read metrics and to write evidence. */
#include "findings/findings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "findings/findings-causes.h"
#include "findings/rules.h"


const struct findings_rule findings_rules[] = {
        { "difference", findings_rule_difference },
        { "throttling", findings_rule_throttling },
        { "ergonomics", findings_rule_ergonomics },
        { "gc", findings_rule_gc },
        { "injector", findings_rule_injector },
        { "noise", findings_rule_noise },
        { "drift", findings_rule_drift },
        { "jit", findings_rule_jit },
        { "steady_state", findings_rule_steady_state },
        { "governor", findings_rule_governor },
        { "frequency", findings_rule_frequency },
        { "interference", findings_rule_interference },
        { "memory", findings_rule_memory },
        { "energy", findings_rule_energy },
        { "profile", findings_rule_profile },
};
const size_t findings_rules_count = ELEMENTSOF(findings_rules);

#define EFFECT_KEY "_effect"

static const char *severity_name(enum findings_severity s) {
        return s == FINDING_HIGH ? "high" : s == FINDING_MEDIUM ? "medium" : "info";
}

static int severity_rank(const cJSON *f) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "severity"));
        return strcmp(s, "high") == 0 ? 2 : strcmp(s, "medium") == 0 ? 1 : 0;
}

static double effect_of(const cJSON *f) {
        return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(f, EFFECT_KEY));
}

static int compare_findings(const void *a, const void *b) {
        const cJSON *fa = *(const cJSON *const *) a, *fb = *(const cJSON *const *) b;
        int d = severity_rank(fb) - severity_rank(fa);
        if (d != 0)
                return d;
        double ea = effect_of(fa), eb = effect_of(fb);
        if (ea != eb)
                return ea < eb ? 1 : -1;
        double pa = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fa, "_pos"));
        double pb = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fb, "_pos"));
        return pa < pb ? -1 : pa > pb ? 1 : 0;
}

cJSON *findings_compute(const struct findings_input *in) {
        _cleanup_json_ cJSON *raw = cJSON_CreateArray();
        for (size_t i = 0; i < findings_rules_count; i++)
                findings_rules[i].fn(in, raw);
        size_t n = (size_t) cJSON_GetArraySize(raw);
        _cleanup_free_ cJSON **v = calloc(MAX(n, (size_t) 1), sizeof *v);
        if (!v)
                abort(); /* the JSON convention: allocation failure aborts */
        for (size_t i = 0; i < n; i++)
                v[i] = cJSON_DetachItemFromArray(raw, 0);
        /* a stable order for equal keys: rules and cells in their order */
        for (size_t i = 0; i < n; i++)
                cJSON_AddNumberToObject(v[i], "_pos", (double) i);
        qsort(v, n, sizeof *v, compare_findings);
        cJSON *out = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++) {
                cJSON_DeleteItemFromObjectCaseSensitive(v[i], EFFECT_KEY);
                cJSON_DeleteItemFromObjectCaseSensitive(v[i], "_pos");
                char id[32];
                snprintf(id, sizeof id, "F%zu", i + 1);
                cJSON_ReplaceItemInObjectCaseSensitive(v[i], "id", cJSON_CreateString(id));
                cJSON_AddItemToArray(out, v[i]);
        }
        findings_causes_link(out);
        return out;
}

cJSON *findings_append(cJSON *out, const char *kind, enum findings_severity sev, double effect, const char *claim,
                       const char *suggestion) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "id", "");
        cJSON_AddStringToObject(f, "kind", kind);
        cJSON_AddStringToObject(f, "severity", severity_name(sev));
        cJSON_AddArrayToObject(f, "cells");
        cJSON_AddStringToObject(f, "claim", claim);
        cJSON_AddArrayToObject(f, "evidence");
        json_add_string_or_null(f, "suggestion", suggestion);
        cJSON_AddNumberToObject(f, EFFECT_KEY, isfinite(effect) ? fabs(effect) : 0);
        cJSON_AddItemToArray(out, f);
        return f;
}

void findings_add_cell(cJSON *finding, const char *cell) {
        cJSON *cells = cJSON_GetObjectItemCaseSensitive(finding, "cells");
        const cJSON *c;
        cJSON_ArrayForEach(c, cells) {
                if (strcmp(cJSON_GetStringValue(c), cell) == 0)
                        return;
        }
        cJSON_AddItemToArray(cells, cJSON_CreateString(cell));
}

void findings_add_evidence_runs(cJSON *finding, const char *metric, const char *cell, double value,
                                double baseline_value, const char *const *run_ids, size_t n_ids) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "metric", metric);
        cJSON_AddStringToObject(e, "cell", cell);
        json_add_number_or_null(e, "value", isfinite(value), value);
        json_add_number_or_null(e, "baseline_value", isfinite(baseline_value), baseline_value);
        cJSON *runs = cJSON_AddArrayToObject(e, "runs");
        for (size_t i = 0; i < n_ids; i++)
                cJSON_AddItemToArray(runs, cJSON_CreateString(run_ids[i]));
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(finding, "evidence"), e);
}

void findings_add_evidence(cJSON *finding, const char *metric, const struct findings_cell *cell, double value,
                           double baseline_value) {
        const char *ids[FINDINGS_RUNS_MAX];
        size_t n = MIN(cell->n_runs, (size_t) FINDINGS_RUNS_MAX);
        for (size_t i = 0; i < n; i++)
                ids[i] = cell->runs[i].id;
        findings_add_evidence_runs(finding, metric, cell->name, value, baseline_value, ids, n);
}

void findings_add_evidence_text(cJSON *finding, const char *metric, const struct findings_cell *cell, const char *value,
                                const char *baseline_value) {
        findings_add_evidence(finding, metric, cell, NAN, NAN);
        cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(finding, "evidence"),
                                      cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(finding, "evidence")) - 1);
        cJSON_ReplaceItemInObjectCaseSensitive(e, "value", value ? cJSON_CreateString(value) : cJSON_CreateNull());
        cJSON_ReplaceItemInObjectCaseSensitive(e, "baseline_value",
                                               baseline_value ? cJSON_CreateString(baseline_value) : cJSON_CreateNull());
}

static const cJSON *at_path(const cJSON *o, const char *path) {
        char key[64];
        while (o && *path) {
                size_t len = strcspn(path, ".");
                if (len >= sizeof key)
                        return NULL;
                memcpy(key, path, len);
                key[len] = 0;
                o = cJSON_GetObjectItemCaseSensitive(o, key);
                path += len + (path[len] == '.');
        }
        return o;
}

bool findings_metric(const struct findings_run *run, const char *path, double *ret) {
        const cJSON *v = at_path(run->metrics, path);
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
                return false;
        *ret = v->valuedouble;
        return true;
}

size_t findings_values(const struct findings_cell *cell, const char *path, double *x, size_t max) {
        size_t n = 0;
        for (size_t i = 0; i < cell->n_runs && n < max; i++)
                if (findings_metric(&cell->runs[i], path, &x[n]))
                        n++;
        return n;
}

bool findings_sum(const struct findings_cell *cell, const char *path, double *ret) {
        double sum = 0, v;
        bool any = false;
        for (size_t i = 0; i < cell->n_runs; i++)
                if (findings_metric(&cell->runs[i], path, &v)) {
                        sum += v;
                        any = true;
                }
        if (any)
                *ret = sum;
        return any;
}

const char *findings_string(const struct findings_cell *cell, const char *path) {
        for (size_t i = 0; i < cell->n_runs; i++) {
                const char *s = cJSON_GetStringValue(at_path(cell->runs[i].metrics, path));
                if (s)
                        return s;
        }
        return NULL;
}

bool findings_series_sum(const struct findings_run *run, const char *series, double *ret) {
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(run->samples, series), *v;
        double sum = 0;
        bool any = false;
        cJSON_ArrayForEach(v, col) {
                if (cJSON_IsNumber(v)) {
                        sum += v->valuedouble;
                        any = true;
                }
        }
        if (any)
                *ret = sum;
        return any;
}
