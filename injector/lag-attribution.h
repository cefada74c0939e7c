/* lag-attribution.h: whose fault the open loop's late requests were, found after the run by
 * replaying its timeline with an ideal injector. That injector sends every request the instant it
 * is due and one of its loop's connections is free (as ours does: any free connection, oldest
 * request first), and each request holds its connection as long as it really did (done - submit,
 * the server's answer time). A late request that would have been late from the ideal injector too
 * waited for the server: every connection carried a request whose answer had not come (a slow
 * server, or too few connections for its latency). Of the others, those that waited through a
 * stall of their loop, LAG_STALL_NS or more in which it neither sent nor received anything, were
 * late because it did not run: the host stole its vCPU, another task had its CPU, a page fault
 * or blocking I/O held it. So were those due after a stall while the loop still caught up, as
 * long as their lag is within the time its stalls took since it was last on time. The rest
 * were late through the injector's own pace: it ran, but woke late by less than a stall or
 * lacked the CPU for the rate.
 *
 * Late is lag above LATENCY_LATE_NS over the measured requests that were sent (latency.h's lag).
 * Connections belong to loop conn % threads, as the engine deals them, and each loop keeps every
 * threads-th arrival, so the replay keeps one set of free times, and one record of stalls, per
 * loop. Stalls are found on a map of LAG_BUCKET_NS buckets (wider for very long runs, so the map
 * stays within LAG_MAP_BITS): their length is known to a bucket. */
#pragma once

#include <stdint.h>

#include "basic/latency.h"
#include "basic/time-util.h"

#define LAG_STALL_NS NSEC_PER_MSEC
#define LAG_BUCKET_NS (100 * NSEC_PER_USEC)
#define LAG_MAP_BITS (UINT64_C(1) << 26)   /* 8 MiB */

struct lag_attribution {
        uint64_t late;          /* measured, sent, lag above LATENCY_LATE_NS */
        uint64_t late_server;   /* of them, late from the ideal injector too */
        uint64_t late_stalled;  /* of the others, waited through a stall of their loop */
        uint64_t stalls;        /* the stalls that late_stalled requests waited through */
        int64_t stalls_ns;      /* their total length, to a bucket */
        int64_t stall_max_ns;   /* the longest */
};

/* Over src (records in schedule order, as the injector writes them), in three passes. *ret
 * untouched on failure (-ENOMEM, -EINVAL for no connections or threads, or a read error). */
int lag_attribution_compute(const struct timeline_source *src, unsigned connections, unsigned threads,
                            struct lag_attribution *ret);
