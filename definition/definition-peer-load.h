/* definition-peer-load.h: the `load` object of POST /v1/loads (issue 25), a load this daemon runs
 * for another host's experiment. It is a definition's load, validated by the definition's own
 * code (so its rules and messages, "load.rate", "load.target", are the same), with what a peer
 * does not take refused: an external command, a capacity search, load.cpus (the request's cpus
 * say where it runs) and load.hosts. The coordinator's side makes the request here too: the
 * body that asks one of load.hosts for its part of the load. */
#pragma once

#include <cjson/cJSON.h>

#include "basic/error.h"
#include "basic/host-limits.h"
#include "definition/definition.h"

/* The strict RFC 8259 check definition_parse() applies before cJSON sees a body. */
int definition_json_check(const char *body, size_t len, struct error *err);

/* load validated as the load of a one-cell definition; *ret owns it (its canonical JSON is what
 * a load stores). Errors as definition_parse()'s, fields "load...." */
int definition_parse_peer_load(const cJSON *load, const struct host_limits *host, struct definition **ret,
                               struct error *err);

/* What a coordinator's request says besides the load (PEERS-CONTRACT.md). */
struct definition_peer_request {
        const char *coordinator;        /* this host's address as the peer sees it */
        const char *coordinator_run;    /* the run's id */
        int64_t start_at_ns;            /* the schedule's start on the peer's CLOCK_MONOTONIC */
        unsigned lease_s;
};

/* The body of POST /v1/loads asking load.hosts[host] for its part of l: the injector's options
 * as the canonical JSON writes them, at the part's rate, without hosts or cpus, which the
 * request's cpus replace; NULL when out of memory. */
char *definition_peer_load_body(const struct definition_load *l, size_t host, const struct definition_host_load *part,
                                const struct definition_peer_request *req);
