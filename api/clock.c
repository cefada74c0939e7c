/* clock.c: GET /v1/clock: this host's CLOCK_MONOTONIC and CLOCK_REALTIME, for a coordinator
 * that measures how far its peers' clocks are from its own (peer/peer-clock.c). Both are read
 * right before the answer is queued, so the exchange's round trip bounds the reading's error.
 * The body is printed by hand: nanoseconds since 1970 are above 2^53, and a double would round
 * them to hundreds of nanoseconds. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/handlers.h"
#include "basic/time-util.h"

#define CLOCK_BODY_MAX 96

enum MHD_Result api_get_clock(struct api_request *req) {
        char *body = malloc(CLOCK_BODY_MAX);
        if (!body)
                return api_reply_errno(req, -ENOMEM, "clock");
        int64_t mono = now_mono_ns(), real = now_wall_ns();
        int n = snprintf(body, CLOCK_BODY_MAX, "{\"monotonic_ns\":%" PRId64 ",\"realtime_ns\":%" PRId64 "}\n",
                         mono, real);
        return api_reply_buffer(req, 200, body, (size_t) n, "application/json");
}
