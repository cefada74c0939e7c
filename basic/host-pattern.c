/* host-pattern.c: --peer-allow's patterns, each matching only hosts of its own kind (see
 * host-pattern.h). Addresses are compared as IPv6, an IPv4 one as ::ffff:a.b.c.d, so that one
 * block test serves both families. */
#include "basic/host-pattern.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 63                    /* RFC 1035 */
#define OCTET_PATTERN_MAX 63
#define V4_IN_V6_PREFIX 96              /* ::ffff:0:0/96 */

enum kind { KIND_OCTETS, KIND_BLOCK, KIND_NAME };

struct pattern {
        enum kind kind;
        char octets[4][OCTET_PATTERN_MAX + 1];  /* KIND_OCTETS: each an fnmatch pattern */
        struct in6_addr net;                    /* KIND_BLOCK */
        unsigned prefix;
};

struct host {
        bool ip;
        struct in6_addr addr;           /* ip: an IPv4 literal as ::ffff:a.b.c.d */
};

static int fail(const char **ret_why, const char *why) {
        if (ret_why)
                *ret_why = why;
        return -EINVAL;
}

static bool has_wildcard(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (strchr("*?[", s[i]))
                        return true;
        return false;
}

static bool all_digits(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!isdigit((unsigned char) s[i]))
                        return false;
        return n > 0;
}

static void map_v4(const struct in_addr *a, struct in6_addr *ret) {
        memset(ret, 0, sizeof *ret);
        ret->s6_addr[10] = ret->s6_addr[11] = 0xff;
        memcpy(&ret->s6_addr[12], a, 4);
}

/* a's bits past the first prefix ones are zero. */
static bool in_block(const struct in6_addr *a, const struct in6_addr *net, unsigned prefix) {
        unsigned full = prefix / 8, rest = prefix % 8;
        if (memcmp(a->s6_addr, net->s6_addr, full) != 0)
                return false;
        if (rest == 0)
                return true;
        uint8_t mask = (uint8_t) (0xff << (8 - rest));
        return (a->s6_addr[full] & mask) == (net->s6_addr[full] & mask);
}

/* An IP literal, or a CIDR block of one when slash is not NULL. */
static int parse_block(const char *p, const char *slash, struct pattern *ret, const char **ret_why) {
        char addr[INET6_ADDRSTRLEN];
        size_t n = slash ? (size_t) (slash - p) : strlen(p);
        if (n == 0 || n >= sizeof addr)
                return fail(ret_why, "an address block is an IP address and a prefix length (10.0.1.0/24, fd00::/64)");
        memcpy(addr, p, n);
        addr[n] = '\0';

        struct in_addr v4;
        unsigned bits;
        if (inet_pton(AF_INET, addr, &v4) == 1) {
                map_v4(&v4, &ret->net);
                bits = 32;
        } else if (inet_pton(AF_INET6, addr, &ret->net) == 1)
                bits = 128;
        else
                return fail(ret_why, strchr(addr, ':') ? "an IPv6 pattern is an address or a block (fd00::/64), without wildcards"
                                                       : "an address block begins with an IP address (10.0.1.0/24)");
        unsigned len = bits;
        if (slash) {
                const char *l = slash + 1;
                size_t ln = strlen(l);
                if (!all_digits(l, ln) || ln > 3 || (ln > 1 && l[0] == '0'))
                        return fail(ret_why, "a block's prefix length is a number (10.0.1.0/24)");
                len = (unsigned) atoi(l);
                if (len > bits)
                        return fail(ret_why, "a block's prefix length is 0 to 32 for IPv4, 0 to 128 for IPv6");
        }
        ret->kind = KIND_BLOCK;
        ret->prefix = len + (bits == 32 ? V4_IN_V6_PREFIX : 0);
        /* 10.0.1.5/24 is most likely a typo for a host or a block: neither is guessed. */
        struct in6_addr zero = ret->net;
        for (unsigned b = ret->prefix; b < 128; b++)
                zero.s6_addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
        if (memcmp(&zero, &ret->net, sizeof zero) != 0)
                return fail(ret_why, "a block's address has no bits set past its prefix (10.0.1.0/24, not 10.0.1.5/24)");
        return 0;
}

/* Four dot-separated octets, each a number from 0 to 255 or a wildcard pattern. */
static int parse_octets(const char *p, struct pattern *ret, const char **ret_why) {
        static const char why[] = "an address pattern has four octets, each a number from 0 to 255 or a wildcard "
                                  "(10.0.1.*); a wider block is CIDR (10.0.0.0/16)";
        const char *s = p;
        for (unsigned i = 0; i < 4; i++) {
                const char *dot = strchr(s, '.');
                size_t n = dot ? (size_t) (dot - s) : strlen(s);
                if (n == 0 || n > OCTET_PATTERN_MAX || (i < 3) != (dot != NULL))
                        return fail(ret_why, why);
                if (!has_wildcard(s, n) &&
                    (!all_digits(s, n) || n > 3 || (n > 1 && s[0] == '0') || atoi(s) > 255))
                        return fail(ret_why, why);
                memcpy(ret->octets[i], s, n);
                ret->octets[i][n] = '\0';
                s = dot ? dot + 1 : s + n;
        }
        ret->kind = KIND_OCTETS;
        return 0;
}

static int parse_name(const char *p, struct pattern *ret, const char **ret_why) {
        const char *s = p;
        for (;;) {
                const char *dot = strchr(s, '.');
                size_t n = dot ? (size_t) (dot - s) : strlen(s);
                if (n == 0)
                        return fail(ret_why, "a host name pattern has no empty label (no leading, trailing or double dot)");
                for (size_t i = 0; i < n; i++)
                        if (!isalnum((unsigned char) s[i]) && !strchr("-_*?[]!", s[i]))
                                return fail(ret_why, "a host name pattern is letters, digits, '-', '_', dots and the "
                                                     "wildcards *?[]!");
                if (!dot) {
                        if (all_digits(s, n))
                                return fail(ret_why, "a host name's last label is not a number");
                        break;
                }
                s = dot + 1;
        }
        ret->kind = KIND_NAME;
        return 0;
}

static int parse(const char *p, struct pattern *ret, const char **ret_why) {
        size_t n = p ? strlen(p) : 0;
        if (n == 0 || n > HOST_PATTERN_MAX)
                return fail(ret_why, "a pattern is 1 to 253 characters");
        const char *slash = strchr(p, '/');
        if (slash || strchr(p, ':'))
                return parse_block(p, slash, ret, ret_why);
        /* Digits, dots and wildcards only: what an address pattern is made of, never a name
         * (whose last label is not a number), so it is read as one and must be a whole one. */
        if (strspn(p, "0123456789.*?[]!-") == n)
                return parse_octets(p, ret, ret_why);
        return parse_name(p, ret, ret_why);
}

int host_pattern_check(const char *pattern, const char **ret_why) {
        struct pattern p;
        return parse(pattern, &p, ret_why);
}

/* A host name as the resolver would look it up, and never read as a number by anyone. */
static bool is_name(const char *h) {
        size_t total = strlen(h);
        struct in_addr a;
        if (total == 0 || total > HOST_PATTERN_MAX || inet_aton(h, &a) != 0)
                return false;
        for (const char *s = h;;) {
                const char *dot = strchr(s, '.');
                size_t n = dot ? (size_t) (dot - s) : strlen(s);
                if (n == 0 || n > LABEL_MAX)
                        return false;
                for (size_t i = 0; i < n; i++)
                        if (!isalnum((unsigned char) s[i]) && s[i] != '-' && s[i] != '_')
                                return false;
                if (!dot)
                        return !all_digits(s, n);
                s = dot + 1;
        }
}

/* false when host is neither an IP literal nor a name. */
static bool classify(const char *host, struct host *ret) {
        struct in_addr v4;
        if (inet_pton(AF_INET, host, &v4) == 1) {
                *ret = (struct host){ .ip = true };
                map_v4(&v4, &ret->addr);
                return true;
        }
        if (inet_pton(AF_INET6, host, &ret->addr) == 1) {
                ret->ip = true;
                return true;
        }
        ret->ip = false;
        return is_name(host);
}

static bool match_octets(const struct pattern *p, const struct host *h) {
        if (!h->ip || !IN6_IS_ADDR_V4MAPPED(&h->addr))
                return false;
        for (unsigned i = 0; i < 4; i++) {
                char octet[4];
                snprintf(octet, sizeof octet, "%u", h->addr.s6_addr[12 + i]);
                if (fnmatch(p->octets[i], octet, 0) != 0)
                        return false;
        }
        return true;
}

/* Label by label: a wildcard stays inside its label. */
static bool match_name(const char *pattern, const char *host) {
        const char *p = pattern, *h = host;
        for (;;) {
                const char *pd = strchr(p, '.'), *hd = strchr(h, '.');
                size_t pn = pd ? (size_t) (pd - p) : strlen(p), hn = hd ? (size_t) (hd - h) : strlen(h);
                char pl[HOST_PATTERN_MAX + 1], hl[LABEL_MAX + 1];
                if (hn > LABEL_MAX || !pd != !hd)
                        return false;
                memcpy(pl, p, pn);
                pl[pn] = '\0';
                memcpy(hl, h, hn);
                hl[hn] = '\0';
                if (fnmatch(pl, hl, FNM_CASEFOLD) != 0)
                        return false;
                if (!pd)
                        return true;
                p = pd + 1;
                h = hd + 1;
        }
}

bool host_pattern_match(const char *pattern, const char *host) {
        struct pattern p;
        struct host h;
        if (!host || parse(pattern, &p, NULL) < 0 || !classify(host, &h))
                return false;
        switch (p.kind) {
        case KIND_OCTETS:
                return match_octets(&p, &h);
        case KIND_BLOCK:
                return h.ip && in_block(&h.addr, &p.net, p.prefix);
        case KIND_NAME:
                return !h.ip && match_name(pattern, host);
        }
        return false;
}

bool host_patterns_match(char *const *patterns, size_t n, const char *host) {
        for (size_t i = 0; i < n; i++)
                if (host_pattern_match(patterns[i], host))
                        return true;
        return false;
}
