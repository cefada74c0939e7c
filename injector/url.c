/* url.c: parsing and resolving the injector's target. */
#include "injector/url.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "basic/hostport.h"
#include "basic/macro.h"
#include "basic/time-util.h"

static bool is_host_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '.' || c == '_';
}

/* Characters allowed in the request target: visible ASCII except '#' (a fragment is never sent). */
static bool is_path_char(char c) {
        return c > 0x20 && c < 0x7f && c != '#';
}

_Static_assert(sizeof ((struct url *) 0)->host > HOSTPORT_HOST_MAX, "url.host holds any host");

static int parse_authority(const char *a, size_t len, struct url *u) {
        struct hostport hp;
        int r = hostport_split(a, len, 0, &hp, NULL);
        if (r < 0)
                return r;
        /* RFC 3986 brackets IPv6 literals only: "[127.0.0.1]" is not a host. */
        if (hp.ipv6 && !memchr(hp.host, ':', hp.host_len))
                return -EINVAL;
        for (size_t i = 0; i < hp.host_len; i++)
                if (!is_host_char(hp.host[i]) && !(hp.ipv6 && hp.host[i] == ':'))
                        return -EINVAL;
        memcpy(u->host, hp.host, hp.host_len);
        u->host[hp.host_len] = '\0';
        u->ipv6_literal = hp.ipv6;
        u->port = hp.has_port ? hp.port : 80;

        const char *lb = u->ipv6_literal ? "[" : "", *rb = u->ipv6_literal ? "]" : "";
        if (u->port == 80)
                snprintf(u->host_header, sizeof u->host_header, "%s%s%s", lb, u->host, rb);
        else
                snprintf(u->host_header, sizeof u->host_header, "%s%s%s:%u", lb, u->host, rb, u->port);
        return 0;
}

int url_parse(const char *s, struct url *ret) {
        static const char scheme[] = "http://";
        if (!s || strnlen(s, URL_MAX) >= URL_MAX)
                return -EINVAL;
        if (strncasecmp(s, scheme, strlen(scheme)) != 0)
                return strstr(s, "://") ? -EPROTONOSUPPORT : -EINVAL;
        const char *a = s + strlen(scheme);
        size_t alen = strcspn(a, "/?#");
        if (memchr(a, '@', alen))
                return -EINVAL;   /* credentials in a URL are not sent and not supported */
        struct url u = { .port = 0 };
        int r = parse_authority(a, alen, &u);
        if (r < 0)
                return r;
        const char *p = a + alen;
        if (*p == '#')
                return -EINVAL;
        size_t plen = strlen(p), off = 0;
        if (*p != '/')
                u.path[off++] = '/';   /* "http://h" and "http://h?q" ask for the root */
        for (size_t i = 0; i < plen; i++)
                if (!is_path_char(p[i]))
                        return -EINVAL;
        memcpy(u.path + off, p, plen + 1);
        *ret = u;
        return 0;
}

/* Non-blocking connect bounded by a deadline: 0 when the address accepts connections. */
static int probe(const struct addrinfo *ai, int64_t deadline) {
        _cleanup_close_ int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
                return 0;
        if (errno != EINPROGRESS)
                return negative_errno();
        for (;;) {
                int64_t left = deadline - now_mono_ns();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd p = { .fd = fd, .events = POLLOUT };
                int n = poll(&p, 1, (int) MIN(left / NSEC_PER_MSEC + 1, 1000));
                if (n < 0 && errno != EINTR)
                        return negative_errno();
                if (n > 0)
                        break;
        }
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                return negative_errno();
        return -err;
}

int url_resolve(const struct url *u, int64_t timeout_ns, struct sockaddr_storage *ret,
                socklen_t *ret_len) {
        char port[8];
        snprintf(port, sizeof port, "%u", u->port);
        struct addrinfo hints = {
                .ai_family = AF_UNSPEC,
                .ai_socktype = SOCK_STREAM,
                .ai_flags = AI_NUMERICSERV | (u->ipv6_literal ? AI_NUMERICHOST : 0),
        };
        struct addrinfo *res = NULL;
        int r = getaddrinfo(u->host, port, &hints, &res);
        if (r != 0 || !res)
                return -EHOSTUNREACH;

        const struct addrinfo *pick = res;
        int64_t deadline = now_mono_ns() + timeout_ns;
        if (res->ai_next)   /* a choice to make: take the first that answers */
                for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
                        if (probe(ai, deadline) == 0) {
                                pick = ai;
                                break;
                        }
        if (pick->ai_addrlen > sizeof *ret) {
                freeaddrinfo(res);
                return -EAFNOSUPPORT;
        }
        memset(ret, 0, sizeof *ret);
        memcpy(ret, pick->ai_addr, pick->ai_addrlen);
        *ret_len = pick->ai_addrlen;
        freeaddrinfo(res);
        return 0;
}
