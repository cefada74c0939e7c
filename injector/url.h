/* url.h: the injector's target, http://host[:port]/path, parsed strictly (the path goes into a
 * request line verbatim, so nothing that could end or split it is accepted) and resolved once. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define URL_MAX 4096

struct url {
        char host[256];         /* without brackets for an IPv6 literal */
        char host_header[264];  /* what the Host header says: "[::1]:9080", "example:8080" */
        char path[URL_MAX];     /* "/work?cpu_us=200"; "/" when the URL has none */
        uint16_t port;
        bool ipv6_literal;
};

/* -EINVAL for anything but a well-formed http URL; -EPROTONOSUPPORT for https and others. */
int url_parse(const char *s, struct url *ret);

/* Resolve the host (getaddrinfo: literals and names) and pick the first address that accepts a
 * TCP connection within timeout_ns, or the first address when none does (the server may come up
 * later; connection errors are then recorded per request). -EHOSTUNREACH when nothing resolves. */
int url_resolve(const struct url *u, int64_t timeout_ns, struct sockaddr_storage *ret,
                socklen_t *ret_len);
