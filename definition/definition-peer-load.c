/* definition-peer-load.c: a peer load's `load` object (see definition-peer-load.h). */
#include "definition/definition-peer-load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "definition/definition-internal.h"

int definition_json_check(const char *body, size_t len, struct error *err) {
        return def_json_prescan(body, len, err);
}

/* Members a peer load must not have, checked before the definition's parser, which would
 * either take them (cpus) or name them less helpfully. */
static int refuse_members(const cJSON *load, struct error *err) {
        static const struct {
                const char *key, *why;
        } refused[] = {
                { "cpus", "a peer load runs on the request's cpus, not on load.cpus" },
                { "hosts", "a peer load runs on this host only: load.hosts is for the coordinator" },
                { "command", "a peer load runs slicelab-inject: no external command" },
        };
        for (size_t i = 0; i < ELEMENTSOF(refused); i++)
                if (cJSON_HasObjectItem(load, refused[i].key)) {
                        char path[64];
                        def_path_key(path, "load", refused[i].key);
                        return def_error(err, "invalid_value", path, "%s", refused[i].why);
                }
        return 0;
}

int definition_parse_peer_load(const cJSON *load, const struct host_limits *host, struct definition **ret,
                               struct error *err) {
        if (def_expect_object(load, "load", err) < 0 || refuse_members(load, err) < 0)
                return -EINVAL;
        /* A one-cell definition around it: nothing of it but the load is ever run. */
        _cleanup_json_ cJSON *wrap = cJSON_CreateObject();
        _cleanup_json_ cJSON *copy = cJSON_Duplicate(load, true);
        cJSON *sut = cJSON_AddObjectToObject(wrap, "sut");
        cJSON *command = cJSON_AddArrayToObject(sut, "command");
        cJSON *cells = cJSON_AddArrayToObject(wrap, "cells");
        cJSON *cell = cJSON_CreateObject();
        if (cell && !cJSON_AddItemToArray(cells, cell))
                cJSON_Delete(TAKE_PTR(cell));
        if (!copy || !cell || !cJSON_AddItemToArray(command, cJSON_CreateString("/bin/true")) ||
            !cJSON_AddStringToObject(wrap, "name", "peer-load") || !cJSON_AddStringToObject(cell, "name", "load") ||
            !cJSON_AddItemToObject(wrap, "load", copy))
                return def_oom(err);
        copy = NULL;    /* wrap's now */
        _cleanup_free_ char *text = cJSON_PrintUnformatted(wrap);
        if (!text)
                return def_oom(err);
        _cleanup_(definition_freep) struct definition *d = NULL;
        int r = definition_parse(text, strlen(text), host, &d, err);
        if (r < 0)
                return r;
        if (d->load.kind != DEFINITION_LOAD_INJECTOR)
                return def_error(err, "missing_field", "load.target", "a peer load needs load.target");
        if (d->load.mode == DEFINITION_MODE_CAPACITY)
                return def_error(err, "invalid_value", "load.mode",
                                 "a peer load runs in mode rate or max: the capacity search is the coordinator's");
        *ret = TAKE_PTR(d);
        return 0;
}
