/* peer-client.h: what one slicelabd asks of another (issue 25). A lab's hosts each run their own
 * daemon; a coordinator measures a peer's clock (GET /v1/clock) and runs load on it (POST
 * /v1/loads and what follows) over the peer's REST API. Peers come from the daemon's config only
 * (--peer-url-template, --peer-allow, --peer-token-file), never from a definition.
 *
 * Every call blocks, with bounded timeouts (connect 2 s, total 10 s; the timeline fetch is
 * bounded by its size and a minimum speed instead), so callers keep them off the event loop.
 * Errors (struct error, status 502 for an unreachable or refusing peer) name the host and what
 * failed: the HTTP status and the peer's own error message, or libcurl's reason. The token goes
 * into the Authorization header and nowhere else: never into an error, a log or a URL. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"
#include "peer/peer-config.h"


#define PEER_ID_MAX 64
#define PEER_CLOCK_SAMPLES_MAX 64
/* A timeline of 100 M records; a peer sending more is cut off. */
#define PEER_TIMELINE_MAX (UINT64_C(4000) << 20)

/* Once per process, before threads that call the rest (libcurl's global state). 0 or -EIO. */
int peer_global_init(void);


struct peer_clock {
        int64_t offset_ns;      /* the peer's CLOCK_MONOTONIC minus ours, at the best sample */
        int64_t rtt_ns;         /* that sample's round trip */
        int64_t error_ns;       /* rtt / 2: how far the offset can be off */
        unsigned samples;       /* exchanges that answered */
};
/* offset = peer clock - our clock at the min-RTT sample (midpoint), error = rtt/2. samples
 * exchanges (1..PEER_CLOCK_SAMPLES_MAX) on one kept-alive connection; the first, which also
 * connects, rarely wins. Fails when none answers. */
int peer_clock_measure(const struct peer_config *c, const char *host, unsigned samples,
                       struct peer_clock *ret, struct error *err);
/* The midpoint estimate of one exchange, apart for tests: sent and received on our clock. */
void peer_clock_sample(int64_t sent_ns, int64_t received_ns, int64_t peer_ns, struct peer_clock *ret);

int peer_load_start(const struct peer_config *c, const char *host, const char *body_json,
                    char **ret_id, struct error *err);
int peer_load_renew(const struct peer_config *c, const char *host, const char *id, struct error *err);
int peer_load_get(const struct peer_config *c, const char *host, const char *id,
                  char **ret_json, struct error *err);            /* the GET body */
/* The load's timeline.bin into dir_fd/name, complete or not at all. */
int peer_load_fetch_timeline(const struct peer_config *c, const char *host, const char *id,
                             int dir_fd, const char *name, struct error *err);
int peer_load_delete(const struct peer_config *c, const char *host, const char *id, struct error *err);
