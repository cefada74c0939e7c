/* peer-probe.h: whether lab hosts answer now (issue 39): GET /v1/health of each, all at once
 * over libcurl's multi interface, within one bounded time, for a coordinator's GET /v1/peers.
 * The token goes in the Authorization header as for every exchange (peer-http), never into a
 * result: a version that holds it is dropped. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "peer/peer-config.h"

#define PEER_VERSION_MAX 64
#define PEER_PROBE_ERROR_MAX 200
/* A probe's bound: connecting, then the whole answer. */
#define PEER_PROBE_CONNECT_MS 1500L
#define PEER_PROBE_TIMEOUT_MS 3000L

struct peer_probe {
        bool answers;           /* GET /v1/health answered 200 with "status":"ok" */
        char version[PEER_VERSION_MAX + 1];    /* its "version", "" when none or not printable */
        char error[PEER_PROBE_ERROR_MAX + 1];  /* why it does not answer, "" when it does */
};

/* Probes hosts[0..n) together and fills ret[0..n), each on its own (a host that cannot be
 * probed, not allowed or out of memory, gets answers = false and says why). Returns within
 * about PEER_PROBE_TIMEOUT_MS whatever the hosts do; 0, or -ENOMEM when the transfers could not
 * be run at all (every ret then says so). */
int peer_probe(const struct peer_config *c, const char *const *hosts, size_t n, struct peer_probe *ret);
