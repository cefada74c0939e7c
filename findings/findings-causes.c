/* findings-causes.c: a difference joined to the findings that can explain it. A person reading
 * "p50 26% higher" in one finding and "ActiveProcessorCount 2 vs 1" in another should not have
 * to join them: once the findings have their ids, each difference lists the findings of kinds
 * that can cause one and that name its cell, by id, most likely first, and its claim says so
 * (or that no rule explains it). */
#include "findings/findings-causes.h"

#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"

#define EXPLAIN_KEY "_explain_cell"
#define KINDS_KEY "_explain_kinds"

/* Kinds whose findings can cause a difference, most likely first: a JVM sized for other CPUs
 * changes everything it runs; throttling and GC pauses stall every request; other work and the
 * JIT take CPU time; memory pressure and clock speed act more slowly. */
static const char *const cause_kinds[] = {
        "ergonomics", "throttling", "gc", "interference", "jit", "memory", "frequency", NULL,
};

void findings_causes_mark_kinds(cJSON *finding, const char *cell, bool approximate, const char *const *kinds) {
        cJSON_AddStringToObject(finding, EXPLAIN_KEY, cell);
        cJSON_AddBoolToObject(finding, "approximate", approximate);
        /* not served: taken out with the mark */
        cJSON *list = cJSON_AddArrayToObject(finding, KINDS_KEY);
        for (size_t k = 0; kinds[k]; k++)
                cJSON_AddItemToArray(list, cJSON_CreateStringReference(kinds[k]));
}

void findings_causes_mark(cJSON *finding, const char *cell, bool approximate) {
        findings_causes_mark_kinds(finding, cell, approximate, cause_kinds);
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

static void explain(cJSON *diff, const cJSON *all, const char *cell, const cJSON *kinds) {
        cJSON *causes = cJSON_AddArrayToObject(diff, "causes");
        char list[1024] = "";
        size_t len = 0;
        const cJSON *kind;
        cJSON_ArrayForEach(kind, kinds) {
                const cJSON *f;
                cJSON_ArrayForEach(f, all) {
                        if (strcmp(string_of(f, "kind"), kind->valuestring) != 0 || !names_cell(f, cell))
                                continue;
                        cJSON_AddItemToArray(causes, cJSON_CreateString(string_of(f, "id")));
                        if (len < sizeof list)
                                len += (size_t) snprintf(list + len, sizeof list - len, "%s%s (%s)", len ? ", " : "",
                                                         string_of(f, "id"), kind->valuestring);
                }
        }
        char claim[2048];
        size_t n = (size_t) cJSON_GetArraySize(causes);
        if (n > 0)
                snprintf(claim, sizeof claim, "%s; %s %s of cell %s can explain it%s", string_of(diff, "claim"),
                         n > 1 ? "findings" : "finding", list, cell, n > 1 ? ", most likely first" : "");
        else
                snprintf(claim, sizeof claim, "%s; no rule's finding on cell %s explains it", string_of(diff, "claim"), cell);
        cJSON_ReplaceItemInObjectCaseSensitive(diff, "claim", cJSON_CreateString(claim));
        cJSON_ReplaceItemInObjectCaseSensitive(
                diff, "suggestion",
                cJSON_CreateString(n > 0 ? "read the findings named: each gives its evidence"
                                         : "look for a cause the rules do not cover: the application, its configuration, the load"));
}

void findings_causes_link(cJSON *findings) {
        cJSON *f;
        cJSON_ArrayForEach(f, findings) {
                cJSON *mark = cJSON_GetObjectItemCaseSensitive(f, EXPLAIN_KEY);
                if (!mark)
                        continue;
                char cell[256];
                snprintf(cell, sizeof cell, "%s", cJSON_GetStringValue(mark));
                cJSON_DeleteItemFromObjectCaseSensitive(f, EXPLAIN_KEY);
                cJSON *kinds = cJSON_DetachItemFromObjectCaseSensitive(f, KINDS_KEY);
                explain(f, findings, cell, kinds);
                cJSON_Delete(kinds);
        }
}
