/* lag-attribution.h: whose fault the open loop's late requests were, found after the run by
 * replaying its timeline with an ideal injector. That injector sends every request the instant it
 * is due and one of its loop's connections is free (as ours does: any free connection, oldest
 * request first), and each request holds its connection as long as it really did (done - submit,
 * the server's answer time). A late request that would have been late from the ideal injector too
 * waited for the server: every connection carried a request whose answer had not come (a slow
 * server, or too few connections for its latency). The others were late through the injector
 * alone: its wakeups, its CPU, the machine pausing it.
 *
 * Late is lag above LATENCY_LATE_NS over the measured requests that were sent (latency.h's lag).
 * Connections belong to loop conn % threads, as the engine deals them, and each loop keeps every
 * threads-th arrival, so the replay keeps one set of free times per loop. */
#pragma once

#include <stdint.h>

#include "basic/latency.h"

struct lag_attribution {
        uint64_t late;          /* measured, sent, lag above LATENCY_LATE_NS */
        uint64_t late_server;   /* of them, late from the ideal injector too */
};

/* One pass over src (records in schedule order, as the injector writes them). *ret untouched on
 * failure (-ENOMEM, -EINVAL for no connections, or a read error). */
int lag_attribution_compute(const struct timeline_source *src, unsigned connections, unsigned threads,
                            struct lag_attribution *ret);
