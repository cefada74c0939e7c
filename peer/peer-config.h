/* peer-config.h: which lab hosts this daemon may ask for load, and how (--peer-url, --peer-allow,
 * --peer-token): the options as peer/ takes them, and the rule a host name must meet and be
 * allowed by. Its own file so that the HTTP exchange (peer-http) and the requests built on it
 * (peer-client) both read it without including each other. */
#pragma once

#include <stdbool.h>

#define PEER_HOST_MAX 253
/* Every exchange with a peer is bounded: connecting, and the whole of a request but a timeline. */
#define PEER_CONNECT_TIMEOUT_MS 2000
#define PEER_TOTAL_TIMEOUT_MS 10000

struct peer_config {            /* from the daemon's options; strings owned by the caller */
        const char *url_template;
        char **allow;           /* NULL-terminated fnmatch patterns */
        const char *token;      /* bearer token sent to peers; never logged */
};

/* Whether a --peer-allow pattern matches host (fnmatch(3), case-insensitive); false without
 * patterns. The host must be a plausible host name or IP literal (peer_host_valid). */
bool peer_host_allowed(const struct peer_config *c, const char *host);
/* Letters, digits, '.', '-', '_' and ':' (IPv6), 1 to PEER_HOST_MAX characters. */
bool peer_host_valid(const char *host);
