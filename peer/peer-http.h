/* peer-http.h: one HTTP exchange with a peer's daemon over libcurl, for peer-client.c and
 * peer-clock.c: the URL from the template, the token header, the bounds, and errors that name
 * the host. Internal to peer/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "peer/peer-config.h"

#define PEER_BODY_MAX (1u << 20)

struct peer_http {
        void *curl;             /* CURL *, kept across exchanges with one host (keep-alive) */
        void *headers;          /* struct curl_slist *: Authorization, Content-Type */
        const struct peer_config *config;
        const char *host;
        char base[600];         /* the template with {host} replaced, no trailing slash */
        char errbuf[256];       /* libcurl's reason, CURL_ERROR_SIZE */
        /* The answer to the last exchange. */
        long status;
        char *body;             /* NUL-terminated, at most PEER_BODY_MAX, or NULL when sunk */
        size_t size;
        int sink_fd;            /* >= 0: the body goes there instead (bounded by sink_max) */
        uint64_t sink_max;
        bool too_big;
        int sink_error;
};

/* Prepare exchanges with host: -EINVAL (err filled) when the host is invalid, not allowed, or
 * the template is missing; *ret untouched then. */
int peer_http_new(const struct peer_config *c, const char *host, struct peer_http **ret, struct error *err);
void peer_http_free(struct peer_http *h);
DEFINE_POINTER_CLEANUP(struct peer_http, peer_http_free)
/* method path [body]: 0 once an answer came (any status: see h->status), else a negative errno
 * with err naming the host, the request and libcurl's reason. */
int peer_http_exchange(struct peer_http *h, const char *method, const char *path, const char *body,
                       long total_timeout_ms, struct error *err);
/* The exchange in two halves, for transfers run together (curl_multi, peer-probe.c): prepare
 * sets the request on h->curl (the body is not copied: keep it until done), done reads the
 * transfer's CURLcode as peer_http_exchange() reads curl_easy_perform()'s. */
int peer_http_prepare(struct peer_http *h, const char *method, const char *path, const char *body,
                      long total_timeout_ms, struct error *err);
int peer_http_done(struct peer_http *h, int curl_code, const char *method, const char *path, struct error *err);
/* An answer whose status is not want: err names the host, the request, the status and the
 * peer's own message (its error body), and the call returns -EPROTO. */
int peer_http_expect(struct peer_http *h, const char *method, const char *path, long want, struct error *err);
