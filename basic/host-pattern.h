/* host-pattern.h: the lab-host patterns of --peer-allow, for the definition's load hosts, a
 * load's coordinator and target, and the peers this daemon calls alike.
 *
 * A pattern is of one kind and matches hosts of that kind only, so that an address pattern
 * never lets a DNS name through (10.233.77.* and the name 10.233.77.evil.example) and a name
 * pattern never an address:
 *   - an IPv4 address, or four octets with fnmatch(3) wildcards for some (10.233.77.*,
 *     10.233.7?.1, 10.233.[0-3].*): an IPv4 literal, octet by octet;
 *   - a CIDR block (10.233.77.0/24, fd00::/64) or an IPv6 address (fd00::7): an IP literal in
 *     it (an IPv4 literal is in ::ffff:0:0/96 too, and an IPv4-mapped IPv6 literal counts as
 *     its IPv4 address);
 *   - a host name, with wildcards in any label (bench0?, *.lab.example): a name with as many
 *     labels, label by label and case-insensitively; a wildcard never matches a dot.
 * A host is an IP literal when inet_pton(3) reads it. It is a name when it is not one, nothing
 * else reads it as a number (inet_aton(3) takes 10.1, 0x0a.0.0.1 and 167772161, and so would
 * the resolver) and its last label is not all digits; any other host matches no pattern. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The longest pattern, as long as the longest DNS name. */
#define HOST_PATTERN_MAX 253

/* 0 when pattern is one of the kinds above, else -EINVAL with *ret_why (if not NULL) a static
 * reason for the caller's message. */
int host_pattern_check(const char *pattern, const char **ret_why);

/* host is matched by pattern (an invalid pattern matches nothing). */
bool host_pattern_match(const char *pattern, const char *host);

/* host is matched by one of the n patterns; no pattern matches nothing. */
bool host_patterns_match(char *const *patterns, size_t n, const char *host);
