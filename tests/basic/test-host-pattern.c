/* test-host-pattern.c: --peer-allow's patterns: an address pattern matches IP literals only, a
 * name pattern names only, label by label; what a pattern may be. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "basic/host-pattern.h"

static void match(const char *pattern, const char *host) {
        if (!host_pattern_match(pattern, host))
                fail_msg("'%s' should match '%s'", pattern, host);
}

static void no_match(const char *pattern, const char *host) {
        if (host_pattern_match(pattern, host))
                fail_msg("'%s' should not match '%s'", pattern, host);
}

static void valid(const char *pattern) {
        const char *why = NULL;
        if (host_pattern_check(pattern, &why) != 0)
                fail_msg("'%s' should be a pattern: %s", pattern, why);
}

static void invalid(const char *pattern, const char *why_part) {
        const char *why = NULL;
        assert_int_equal(host_pattern_check(pattern, &why), -EINVAL);
        assert_non_null(why);
        if (!strstr(why, why_part))
                fail_msg("'%s': reason '%s' does not say '%s'", pattern, why, why_part);
}

/* The case: an address glob let a DNS name through, which resolves anywhere. */
static void test_octets_match_addresses_only(void **state) {
        match("10.233.77.*", "10.233.77.5");
        match("10.233.77.*", "10.233.77.255");
        no_match("10.233.77.*", "10.233.77.evil.invalid");
        no_match("10.233.77.*", "10.233.77.5.evil.invalid");
        no_match("10.233.77.*", "10.233.78.5");
        no_match("10.233.77.*", "10.233.7.5");
        match("10.233.7?.1", "10.233.77.1");
        no_match("10.233.7?.1", "10.233.7.1");                 /* ? is one character */
        match("10.233.[0-3].*", "10.233.2.9");
        no_match("10.233.[0-3].*", "10.233.4.9");
        match("*.*.*.*", "192.0.2.1");
        no_match("*.*.*.*", "a.b.c.d");
        match("10.0.0.1", "10.0.0.1");
        no_match("10.0.0.1", "10.0.0.10");
        /* An IPv4-mapped IPv6 literal is that IPv4 address. */
        match("10.233.77.*", "::ffff:10.233.77.5");
        /* What only inet_aton and the resolver read as numbers is no address and no name. */
        no_match("10.233.77.*", "10.233.77");
        no_match("10.*.*.*", "167772161");
        no_match("10.*.*.*", "0x0a.0.0.1");
        no_match("10.*.*.*", "010.0.0.1");
        no_match("10.0.0.1", "10.0.0.1.");
}

static void test_blocks(void **state) {
        match("10.233.77.0/24", "10.233.77.0");
        match("10.233.77.0/24", "10.233.77.255");
        no_match("10.233.77.0/24", "10.233.76.255");
        no_match("10.233.77.0/24", "10.233.77.evil.invalid");
        match("10.0.0.0/8", "10.255.1.2");
        match("10.233.77.128/25", "10.233.77.200");
        no_match("10.233.77.128/25", "10.233.77.100");
        match("10.1.2.3/32", "10.1.2.3");
        match("0.0.0.0/0", "192.0.2.1");
        no_match("0.0.0.0/0", "fd00::1");                     /* an IPv4 block holds IPv4 only */
        no_match("0.0.0.0/0", "example.org");
        match("fd00::/64", "fd00::7");
        match("fd00::/64", "FD00::abcd:1");
        no_match("fd00::/64", "fd00:0:0:1::7");
        match("fd00::7", "fd00::7");
        match("fd00::7", "fd00:0::7");                        /* the address, not its spelling */
        no_match("fd00::7", "fd00::8");
        match("::/0", "2001:db8::1");
        match("::/0", "10.0.0.1");                            /* IPv4 is in ::ffff:0:0/96 */
        match("::ffff:10.0.0.0/104", "10.1.2.3");
        no_match("::/0", "example.org");
        match("10.0.0.0/8", "::ffff:10.1.1.1");
}

static void test_names(void **state) {
        match("bench0?", "bench02");
        match("bench0?", "BENCH02");                          /* host names have no case */
        no_match("bench0?", "bench10");
        no_match("bench0?", "bench02.lab");
        match("*.lab.example", "host1.lab.example");
        match("*.LAB.example", "host1.lab.Example");
        no_match("*.lab.example", "a.b.lab.example");         /* '*' is one label */
        no_match("*.lab.example", "lab.example");
        no_match("*.lab.example", "host1.lab.example.evil");
        no_match("*.lab.example", "host1.lab.example.");
        match("lab-*.example.org", "lab-3.example.org");
        match("*.*.lab.example", "a.b.lab.example");
        match("[a-c]*", "bench1");
        /* A name pattern never matches an address, however it is spelt. */
        no_match("*.lab.example", "10.0.0.1");
        no_match("[!x]*", "10.0.0.1");
        no_match("[!x]*.*.*.*", "10.0.0.1");
        no_match("a*", "::1");
        /* Nor anything that is no host name. */
        no_match("bench*", "bench 1");
        no_match("bench*", "bench/1");
        no_match("bench*", "");
        no_match("*.lab.example", ".lab.example");
        assert_false(host_pattern_match("bench*", NULL));
}

static void test_valid_patterns(void **state) {
        valid("10.233.77.*");
        valid("10.233.77.5");
        valid("10.233.[0-9].1?");
        valid("*.*.*.*");
        valid("10.233.77.0/24");
        valid("0.0.0.0/0");
        valid("fd00::/64");
        valid("fd00::7");
        valid("::/0");
        valid("bench0?");
        valid("*.lab.example");
        valid("lab_1-a.example");
        valid("[!a]*.example");

        invalid("", "1 to 253");
        invalid("10.233.*", "four octets");
        invalid("10.233.77", "four octets");
        invalid("10.233.77.*.*", "four octets");
        invalid("*", "four octets");
        invalid("10.233.77.256", "0 to 255");
        invalid("10.233.077.1", "four octets");
        invalid("10..77.1", "four octets");
        invalid("10.233.77.0/33", "0 to 32");
        invalid("fd00::/129", "0 to 128");
        invalid("10.233.77.0/", "prefix length");
        invalid("10.233.77.0/024", "prefix length");
        invalid("10.233.77.5/24", "no bits set past its prefix");
        invalid("fd00::1/64", "no bits set past its prefix");
        invalid("10.233.*.0/24", "begins with an IP address");
        invalid("fd00::*", "without wildcards");
        invalid(".lab.example", "no empty label");
        invalid("lab..example", "no empty label");
        invalid("lab.example.", "no empty label");
        invalid("lab example", "letters, digits");
        invalid("lab.10", "last label is not a number");
        char longp[300];
        memset(longp, 'a', sizeof longp - 1);
        longp[sizeof longp - 1] = '\0';
        invalid(longp, "1 to 253");
        /* An invalid pattern matches nothing. */
        no_match("10.233.*", "10.233.1.1");
        no_match("*", "localhost");
}

static void test_list(void **state) {
        char *patterns[] = { "bench0?", "10.231.*.*", "fd00::/64" };
        assert_true(host_patterns_match(patterns, 3, "bench01"));
        assert_true(host_patterns_match(patterns, 3, "10.231.9.9"));
        assert_true(host_patterns_match(patterns, 3, "fd00::1"));
        assert_false(host_patterns_match(patterns, 3, "10.231.9.evil.invalid"));
        assert_false(host_patterns_match(patterns, 0, "bench01"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_octets_match_addresses_only),
                cmocka_unit_test(test_blocks),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_valid_patterns),
                cmocka_unit_test(test_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
