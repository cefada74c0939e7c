/* peer-clock.c: how far a peer's CLOCK_MONOTONIC is from ours, the way NTP estimates it. Each
 * exchange reads our clock when the request leaves (t1) and when the answer is in (t2); the
 * peer's reading lies somewhere between, so the offset estimate peer - (t1 + t2) / 2 is off by
 * at most (t2 - t1) / 2. Of several exchanges the one with the smallest round trip has the
 * tightest bound and is kept. */
#include "peer/peer-client.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "peer/peer-http.h"

void peer_clock_sample(int64_t sent_ns, int64_t received_ns, int64_t peer_ns, struct peer_clock *ret) {
        int64_t rtt = received_ns - sent_ns;
        /* The midpoint without overflow: sent + rtt / 2. */
        int64_t mid = sent_ns + rtt / 2;
        *ret = (struct peer_clock){ .offset_ns = peer_ns - mid, .rtt_ns = rtt, .error_ns = (rtt + 1) / 2, .samples = 1 };
}

/* "monotonic_ns":N read exactly: as a JSON number through a double it would round above 2^53. */
static int parse_monotonic(const char *body, int64_t *ret) {
        const char *p = body ? strstr(body, "\"monotonic_ns\"") : NULL;
        if (!p)
                return -EBADMSG;
        p += strlen("\"monotonic_ns\"");
        while (*p == ' ' || *p == ':')
                p++;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || end == p || v <= 0)
                return -EBADMSG;
        *ret = v;
        return 0;
}

int peer_clock_measure(const struct peer_config *c, const char *host, unsigned samples,
                       struct peer_clock *ret, struct error *err) {
        if (samples == 0 || samples > PEER_CLOCK_SAMPLES_MAX)
                return error_set(err, 500, "internal", NULL, "peer %s: %u clock samples asked", host, samples);
        _cleanup_(peer_http_freep) struct peer_http *h = NULL;
        int r = peer_http_new(c, host, &h, err);
        if (r < 0)
                return r;
        struct peer_clock best = { .rtt_ns = INT64_MAX };
        unsigned answered = 0;
        for (unsigned i = 0; i < samples; i++) {
                int64_t t1 = now_mono_ns();
                r = peer_http_exchange(h, "GET", "/v1/clock", NULL, PEER_TOTAL_TIMEOUT_MS, err);
                int64_t t2 = now_mono_ns();
                if (r < 0)
                        continue;
                r = peer_http_expect(h, "GET", "/v1/clock", 200, err);
                int64_t peer_ns = 0;
                if (r >= 0 && parse_monotonic(h->body, &peer_ns) < 0)
                        r = error_set_errno(err, EBADMSG, 502, "peer_failed", NULL,
                                            "peer %s: GET /v1/clock: no monotonic_ns in the answer", host);
                if (r < 0)
                        continue;
                struct peer_clock s;
                peer_clock_sample(t1, t2, peer_ns, &s);
                answered++;
                if (s.rtt_ns < best.rtt_ns)
                        best = s;
        }
        if (answered == 0)
                return r < 0 ? r : -EIO;   /* err says why the last one failed */
        best.samples = answered;
        *ret = best;
        return 0;
}
