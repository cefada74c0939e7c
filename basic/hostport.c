/* hostport.c: the host[:port] / [IPv6][:port] splitter. */
#include "basic/hostport.h"

#include <errno.h>
#include <string.h>

static int fail(const char **ret_why, const char *why) {
        if (ret_why)
                *ret_why = why;
        return -EINVAL;
}

/* Digits only and at most five: strtoul would also take spaces, a sign and leading zeros
 * without end, none of which belongs in an address. */
static int parse_port(const char *p, size_t n, unsigned flags, uint16_t *ret) {
        unsigned v = 0;

        if (n == 0 || n > 5)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (p[i] < '0' || p[i] > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned) (p[i] - '0');
        }
        if (v > 65535 || (v == 0 && !(flags & HOSTPORT_PORT_ZERO)))
                return -EINVAL;
        *ret = (uint16_t) v;
        return 0;
}

int hostport_split(const char *s, size_t len, unsigned flags, struct hostport *ret,
                   const char **ret_why) {
        struct hostport h = { .host = s };
        const char *end = s + len, *colon;

        if (len > 0 && s[0] == '[') {
                const char *close = memchr(s, ']', len);
                if (!close)
                        return fail(ret_why, "an IPv6 address needs a closing ']'");
                h.host = s + 1;
                h.host_len = (size_t) (close - h.host);
                colon = close + 1 < end ? close + 1 : NULL;
                if (colon && *colon != ':')
                        return fail(ret_why, "only :port may follow ']'");
                h.ipv6 = true;
        } else {
                colon = memchr(s, ':', len);
                h.host_len = colon ? (size_t) (colon - s) : len;
        }
        /* The port before the host: the order a definition's error messages have always had. */
        if (colon) {
                if (parse_port(colon + 1, (size_t) (end - colon - 1), flags, &h.port) < 0)
                        return fail(ret_why, flags & HOSTPORT_PORT_ZERO ? "the port must be 0 to 65535"
                                                                        : "the port must be 1 to 65535");
                h.has_port = true;
        }
        if (h.host_len == 0 || h.host_len > HOSTPORT_HOST_MAX)
                return fail(ret_why, "the host is empty or too long");
        *ret = h;
        return 0;
}
