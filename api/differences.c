/* differences.c: definition fields and host facts that differ between two experiments (see
 * differences.h), leaf by leaf. */
#include "api/differences.h"

#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"

#define FIELD_MAX 256

/* Definition fields that say what an experiment is called or checked, not what it measured. */
static const char *const not_compared[] = { "name", "labels", "checks", "iterations", "order", "seed", "cells" };

/* The host facts that change what a run measures (paths into GET /v1/host's shape). */
static const char *const host_facts[] = { "cpu_model",         "cpu_count",    "cpus_online",
                                          "kernel.release",    "thp.enabled",  "topology.smt.active",
                                          "memory.total_bytes", "java.version", "cpufreq.boost" };

const cJSON *differences_cell_definition(const cJSON *definition, const char *name) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(definition, "cells")) {
                const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
                if (n && strcmp(n, name) == 0)
                        return c;
        }
        return NULL;
}

static bool skipped(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(not_compared); i++)
                if (strcmp(key, not_compared[i]) == 0)
                        return true;
        return false;
}

static void add_difference(cJSON *out, const char *source, const char *field, const cJSON *a, const cJSON *b) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "source", source);
        cJSON_AddStringToObject(d, "field", field);
        cJSON_AddItemToObject(d, "a", a ? cJSON_Duplicate(a, true) : cJSON_CreateNull());
        cJSON_AddItemToObject(d, "b", b ? cJSON_Duplicate(b, true) : cJSON_CreateNull());
        cJSON_AddItemToArray(out, d);
}

/* Leaf by leaf: objects by key (either side's), everything else as a whole. */
static void diff(const char *source, const char *path, const cJSON *a, const cJSON *b, bool top, cJSON *out) {
        if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
                const cJSON *sides[] = { a, b }, *c;
                for (size_t i = 0; i < 2; i++)
                        cJSON_ArrayForEach(c, sides[i]) {
                                if ((top && skipped(c->string)) || (i == 1 && cJSON_HasObjectItem(a, c->string)))
                                        continue;
                                char p[FIELD_MAX];
                                snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", c->string);
                                diff(source, p, cJSON_GetObjectItemCaseSensitive(a, c->string),
                                     cJSON_GetObjectItemCaseSensitive(b, c->string), false, out);
                        }
                return;
        }
        if (!a || !b || !cJSON_Compare(a, b, true))
                add_difference(out, source, path, a, b);
}

/* A value at a dotted path ("kernel.release"), or NULL. */
static const cJSON *at_path(const cJSON *o, const char *path) {
        char buf[FIELD_MAX];
        snprintf(buf, sizeof buf, "%s", path);
        char *save = NULL;
        for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
                o = cJSON_GetObjectItemCaseSensitive(o, k);
        return o;
}

void differences_definitions(const cJSON *a, const cJSON *b, cJSON *out) {
        diff("definition", "", a, b, true, out);
}

void differences_cells(const cJSON *a, const char *ca, const cJSON *b, const char *cb, cJSON *out) {
        _cleanup_json_ cJSON *da = cJSON_Duplicate(differences_cell_definition(a, ca), true);
        _cleanup_json_ cJSON *db = cJSON_Duplicate(differences_cell_definition(b, cb), true);
        cJSON_DeleteItemFromObjectCaseSensitive(da, "name");
        cJSON_DeleteItemFromObjectCaseSensitive(db, "name");
        /* each side's own cell: cells[A], or cells[A|B] when they are named apart */
        char path[FIELD_MAX];
        if (strcmp(ca, cb) == 0)
                snprintf(path, sizeof path, "cells[%s]", ca);
        else
                snprintf(path, sizeof path, "cells[%s|%s]", ca, cb);
        diff("definition", path, da, db, false, out);
}

bool differences_hosts(const cJSON *a, const cJSON *b, cJSON *out) {
        if (!a || !b)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(host_facts); i++) {
                const cJSON *x = at_path(a, host_facts[i]), *y = at_path(b, host_facts[i]);
                if ((x || y) && (!x || !y || !cJSON_Compare(x, y, true)))
                        add_difference(out, "host", host_facts[i], x, y);
        }
        return true;
}

void differences_warn(const cJSON *differences, cJSON *warnings) {
        const cJSON *d;
        cJSON_ArrayForEach(d, differences) {
                _cleanup_free_ char *x = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "a"));
                _cleanup_free_ char *y = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "b"));
                const char *source = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "source"));
                json_append_printf(warnings, "%s %s differs: %.*s in a, %.*s in b",
                                   strcmp(source, "host") == 0 ? "host fact" : "definition field",
                                   cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "field")),
                                   UTF8_PREFIX(x ? x : "?", 80), UTF8_PREFIX(y ? y : "?", 80));
        }
}

