/* definition-peer-load.c: a peer load's `load` object (see definition-peer-load.h). */
#include "definition/definition-peer-load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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

static bool add_int(cJSON *o, const char *key, int64_t v) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRId64, v);
        return cJSON_AddRawToObject(o, key, buf) != NULL;
}

char *definition_peer_load_body(const struct definition_load *l, size_t host, const struct definition_host_load *part,
                                const struct definition_peer_request *req) {
        char cpus[4096];
        if (host >= l->n_hosts || cpulist_format(&l->hosts[host].cpus, cpus, sizeof cpus) < 0)
                return NULL;
        struct definition_load mine = *l;
        mine.rate = part->rate;
        _cleanup_json_ cJSON *b = cJSON_CreateObject();
        cJSON *o = cJSON_AddObjectToObject(b, "load");
        if (!o)
                return NULL;
        def_format_injector(o, &mine);
        if (!cJSON_AddStringToObject(b, "coordinator", req->coordinator) ||
            !cJSON_AddStringToObject(b, "coordinator_run", req->coordinator_run) ||
            !cJSON_AddStringToObject(b, "host", l->hosts[host].host) || !cJSON_AddStringToObject(b, "cpus", cpus) ||
            !add_int(b, "phase_ns", part->phase_ns) || !add_int(b, "seed", (int64_t) part->seed) ||
            !add_int(b, "start_at_ns", req->start_at_ns) || !add_int(b, "lease_s", req->lease_s))
                return NULL;
        return cJSON_PrintUnformatted(b);
}
