/* findings-causes.c: a difference joined to the findings that can explain it. A person reading
 * "p50 26% higher" in one finding and "ActiveProcessorCount 2 vs 1" in another should not have
 * to join them: once the findings have their ids, each difference lists the findings of its cell
 * that can cause it, by id, most likely first, and its claim says so (or that none does).
 *
 * A finding can cause a difference only when its mechanism can move that metric that way (the
 * table below: throttling only slows, so it never explains a cell that is faster) and when the
 * baseline does not have it as well: absent there, or larger in the cell by its own evidence
 * figure. One the baseline has at a like size is named as shared, not as a cause. */
#include "findings/findings-causes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"

#define MARK_KEY "_explain"

/* A cause's figure must be at least this many times the baseline's; below it the two cells
 * have the mechanism alike (the JIT compiling 1.65 s in one window and 1.56 s in the other). */
#define LARGER_BY 1.5

enum cause_effect {
        CAUSE_NONE,             /* cannot move the metric */
        CAUSE_SLOWS,            /* latency up, throughput down (a share: either way) */
        CAUSE_EITHER,           /* either way: a JVM sized for other CPUs */
        CAUSE_SLOWS_WHEN_LOWER, /* its figure below the baseline's slows, above it speeds up */
};

struct mechanism {
        const char *kind;
        enum cause_effect effect[3]; /* by enum findings_effect_metric */
};

/* What each mechanism can move, most likely first: a JVM sized for other CPUs changes
 * everything it runs; throttling and GC pauses stall requests; other work and the JIT take CPU
 * time; memory pressure and clock speed act more slowly. A share of CPU samples can move either
 * way under any of them (one group's rise is another's fall), clock speed aside.
 * docs/findings.md shows this table. */
static const struct mechanism mechanisms[] = {
        { "ergonomics", { CAUSE_EITHER, CAUSE_EITHER, CAUSE_EITHER } },
        { "throttling", { CAUSE_SLOWS, CAUSE_SLOWS, CAUSE_EITHER } },
        { "gc", { CAUSE_SLOWS, CAUSE_SLOWS, CAUSE_EITHER } },
        { "interference", { CAUSE_SLOWS, CAUSE_SLOWS, CAUSE_EITHER } },
        { "jit", { CAUSE_SLOWS, CAUSE_SLOWS, CAUSE_EITHER } },
        { "memory", { CAUSE_SLOWS, CAUSE_SLOWS, CAUSE_EITHER } },
        { "frequency", { CAUSE_SLOWS_WHEN_LOWER, CAUSE_SLOWS_WHEN_LOWER, CAUSE_NONE } },
};

static const char *const all_kinds[] = {
        "ergonomics", "throttling", "gc", "interference", "jit", "memory", "frequency", NULL,
};

static const struct mechanism *mechanism_of(const char *kind) {
        for (size_t i = 0; i < ELEMENTSOF(mechanisms); i++)
                if (strcmp(mechanisms[i].kind, kind) == 0)
                        return &mechanisms[i];
        return NULL;
}

void findings_causes_mark_kinds(cJSON *finding, const char *cell, const char *base, enum findings_effect_metric metric,
                                bool worse, bool approximate, const char *const *kinds) {
        cJSON_AddBoolToObject(finding, "approximate", approximate);
        /* not served: taken out by findings_causes_link() */
        cJSON *mark = cJSON_AddObjectToObject(finding, MARK_KEY);
        cJSON_AddStringToObject(mark, "cell", cell);
        cJSON_AddStringToObject(mark, "base", base);
        cJSON_AddNumberToObject(mark, "metric", metric);
        cJSON_AddBoolToObject(mark, "worse", worse);
        cJSON *list = cJSON_AddArrayToObject(mark, "kinds");
        for (size_t k = 0; kinds[k]; k++)
                cJSON_AddItemToArray(list, cJSON_CreateStringReference(kinds[k]));
}

void findings_causes_mark(cJSON *finding, const char *cell, const char *base, enum findings_effect_metric metric,
                          bool worse, bool approximate) {
        findings_causes_mark_kinds(finding, cell, base, metric, worse, approximate, all_kinds);
}

static bool names_cell(const cJSON *f, const char *cell) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(f, "cells")) {
                if (strcmp(cJSON_GetStringValue(c), cell) == 0)
                        return true;
        }
        return false;
}

static const char *string_of(const cJSON *f, const char *key) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, key));
        return s ? s : "";
}

/* A finding's own figure for cell: the first evidence entry of that cell, its value and the
 * baseline's value it states (NaN where not numbers); false when it has none. */
static bool figure_of(const cJSON *f, const char *cell, double *ret_value, double *ret_baseline, const cJSON **ret_entry) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(f, "evidence")) {
                if (strcmp(string_of(e, "cell"), cell) != 0)
                        continue;
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "value");
                const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "baseline_value");
                *ret_value = cJSON_IsNumber(v) ? v->valuedouble : NAN;
                *ret_baseline = cJSON_IsNumber(b) ? b->valuedouble : NAN;
                *ret_entry = e;
                return true;
        }
        return false;
}

/* The baseline's own finding of kind (one that names the baseline and not the cell) whose figure
 * is in metric (NULL: any). One kind holds several mechanisms: an interference finding is the
 * injector's CPUs overlapping the cell's or other work on them, and the baseline's other work
 * does not make a cell's overlap with the injector shared. */
static const cJSON *baseline_finding(const cJSON *all, const char *kind, const char *metric, const char *cell, const char *base) {
        const cJSON *f;
        cJSON_ArrayForEach(f, all) {
                double unused_v, unused_b;
                const cJSON *e;
                if (strcmp(string_of(f, "kind"), kind) == 0 && names_cell(f, base) && !names_cell(f, cell) &&
                    (!metric || (figure_of(f, base, &unused_v, &unused_b, &e) && strcmp(string_of(e, "metric"), metric) == 0)))
                        return f;
        }
        return NULL;
}

enum verdict { NOT_THIS_WAY, CAUSE, SHARED };

/* Whether finding f (of the cell) can cause a difference in metric that way. */
static enum verdict judge(const cJSON *f, const cJSON *all, const char *cell, const char *base, enum findings_effect_metric metric,
                          bool worse) {
        const struct mechanism *m = mechanism_of(string_of(f, "kind"));
        enum cause_effect effect = m ? m->effect[metric] : CAUSE_NONE;
        double v = NAN, b = NAN, g = NAN, unused;
        const cJSON *entry = NULL, *g_entry = NULL;
        bool have = figure_of(f, cell, &v, &b, &entry);
        if (effect == CAUSE_NONE || (effect == CAUSE_SLOWS && metric != FINDINGS_EFFECT_CPU_SHARE && !worse))
                return NOT_THIS_WAY;
        if (effect == CAUSE_SLOWS_WHEN_LOWER)
                /* The rule only fires on a clock unlike the baseline's: which way decides. */
                return isfinite(v) && isfinite(b) && v != b && (v < b) == worse ? CAUSE : NOT_THIS_WAY;
        const cJSON *theirs = baseline_finding(all, string_of(f, "kind"), have ? string_of(entry, "metric") : NULL, cell, base);
        if (!isfinite(b) && theirs)
                figure_of(theirs, base, &g, &unused, &g_entry);
        double baseline = isfinite(b) ? b : g;
        if (!isfinite(baseline))
                /* Figures in words ("G1 vs Serial"): a baseline that states another value differs. */
                return !theirs && (!have || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(entry, "baseline_value")) ||
                                   strcmp(string_of(entry, "value"), string_of(entry, "baseline_value")) != 0)
                               ? CAUSE
                               : SHARED;
        if (!isfinite(v))
                return SHARED;
        if (effect == CAUSE_EITHER)
                return v != baseline ? CAUSE : SHARED;
        return v >= LARGER_BY * baseline && v > 0 ? CAUSE : SHARED;
}

/* "F2 (throttling), F5 (jit)" appended to buf */
static void list_append(char *buf, size_t size, size_t *len, const cJSON *f) {
        if (*len < size)
                *len += (size_t) snprintf(buf + *len, size - *len, "%s%s (%s)", *len ? ", " : "", string_of(f, "id"),
                                          string_of(f, "kind"));
}

static void explain(cJSON *diff, const cJSON *all, const cJSON *mark) {
        const char *cell = string_of(mark, "cell"), *base = string_of(mark, "base");
        enum findings_effect_metric metric = (enum findings_effect_metric) cJSON_GetNumberValue(
                cJSON_GetObjectItemCaseSensitive(mark, "metric"));
        bool worse = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mark, "worse"));
        cJSON *causes = cJSON_AddArrayToObject(diff, "causes"), *shared = cJSON_AddArrayToObject(diff, "shared");
        char cause_list[1024] = "", shared_list[1024] = "";
        size_t cause_len = 0, shared_len = 0;
        const cJSON *kind;
        cJSON_ArrayForEach(kind, cJSON_GetObjectItemCaseSensitive(mark, "kinds")) {
                const cJSON *f;
                cJSON_ArrayForEach(f, all) {
                        if (strcmp(string_of(f, "kind"), kind->valuestring) != 0 || !names_cell(f, cell))
                                continue;
                        enum verdict v = judge(f, all, cell, base, metric, worse);
                        if (v == NOT_THIS_WAY)
                                continue;
                        cJSON_AddItemToArray(v == CAUSE ? causes : shared, cJSON_CreateString(string_of(f, "id")));
                        if (v == CAUSE)
                                list_append(cause_list, sizeof cause_list, &cause_len, f);
                        else
                                list_append(shared_list, sizeof shared_list, &shared_len, f);
                }
        }
        size_t n = (size_t) cJSON_GetArraySize(causes), n_shared = (size_t) cJSON_GetArraySize(shared);
        char claim[3072], also[1200] = "";
        if (n_shared > 0)
                snprintf(also, sizeof also, "; %s %s as large on the baseline %s%s", shared_list, n_shared > 1 ? "are" : "is", base,
                         n > 0 ? ", so not a cause" : "");
        if (n > 0)
                snprintf(claim, sizeof claim, "%s; %s %s of cell %s can explain it%s%s", string_of(diff, "claim"),
                         n > 1 ? "findings" : "finding", cause_list, cell, n > 1 ? ", most likely first" : "", also);
        else
                snprintf(claim, sizeof claim, "%s; no finding of cell %s explains it%s", string_of(diff, "claim"), cell, also);
        cJSON_ReplaceItemInObjectCaseSensitive(diff, "claim", cJSON_CreateString(claim));
        cJSON_ReplaceItemInObjectCaseSensitive(
                diff, "suggestion",
                cJSON_CreateString(n > 0 ? "read the findings named: each gives its evidence"
                                         : "look for a cause the rules do not cover: the application, its configuration, the load"));
}

void findings_causes_link(cJSON *findings) {
        cJSON *f;
        cJSON_ArrayForEach(f, findings) {
                cJSON *mark = cJSON_DetachItemFromObjectCaseSensitive(f, MARK_KEY);
                if (!mark)
                        continue;
                explain(f, findings, mark);
                cJSON_Delete(mark);
        }
}
