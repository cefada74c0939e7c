/* hostport.h: splitting "host[:port]" and "[IPv6][:port]" into the host, whether it was a
 * bracketed literal, and the port. The one splitter behind --listen, the injector's URL and the
 * definition's host:port and URL values; what the host may be (a numeric address, a host name)
 * and whether a port must be there are each caller's own checks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest DNS name (RFC 1035); every IPv6 literal is much shorter. */
#define HOSTPORT_HOST_MAX 253

enum {
        HOSTPORT_PORT_ZERO = 1 << 0,    /* accept ":0" (to listen on: the kernel picks a port) */
};

struct hostport {
        const char *host;       /* into the input, without brackets, not NUL-terminated */
        size_t host_len;        /* 1 to HOSTPORT_HOST_MAX */
        bool ipv6;              /* the host was in brackets */
        bool has_port;          /* ":port" was there (tells ":0" from no port) */
        uint16_t port;          /* 0 when absent */
};

/* Split s[0..len). A host without brackets ends at the first ':'; after ']' only ":port" may
 * follow; a port is 1 to 5 digits from 1 to 65535 (or 0 with HOSTPORT_PORT_ZERO). The host is
 * not checked beyond being non-empty and at most HOSTPORT_HOST_MAX long. Returns -EINVAL and
 * sets *ret_why (if not NULL) to a static reason such as "the port must be 1 to 65535", for the
 * caller's error message; *ret is untouched on failure. */
int hostport_split(const char *s, size_t len, unsigned flags, struct hostport *ret,
                   const char **ret_why);
