/* test-hostport.c: splitting host[:port] and [IPv6][:port]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "basic/hostport.h"

static struct hostport split_ok(const char *s, unsigned flags) {
        struct hostport h;
        const char *why = NULL;
        assert_int_equal(hostport_split(s, strlen(s), flags, &h, &why), 0);
        assert_null(why);
        return h;
}

static void assert_host(const struct hostport *h, const char *want) {
        assert_int_equal(h->host_len, strlen(want));
        assert_memory_equal(h->host, want, h->host_len);
}

/* Fails with the given reason and leaves *ret alone. */
static void split_bad(const char *s, unsigned flags, const char *want_why) {
        struct hostport h = { .host_len = 42 };
        const char *why = NULL;
        assert_int_equal(hostport_split(s, strlen(s), flags, &h, &why), -EINVAL);
        assert_string_equal(why, want_why);
        assert_int_equal(h.host_len, 42);
}

static void test_host_and_port(void **state) {
        struct hostport h = split_ok("example.org:8080", 0);
        assert_host(&h, "example.org");
        assert_false(h.ipv6);
        assert_true(h.has_port);
        assert_int_equal(h.port, 8080);

        h = split_ok("127.0.0.1:1", 0);
        assert_host(&h, "127.0.0.1");
        assert_int_equal(h.port, 1);
        h = split_ok("h:65535", 0);
        assert_int_equal(h.port, 65535);
        h = split_ok("h:00080", 0);   /* five digits, leading zeros and all */
        assert_int_equal(h.port, 80);
}

static void test_ipv6(void **state) {
        struct hostport h = split_ok("[::1]:80", 0);
        assert_host(&h, "::1");
        assert_true(h.ipv6);
        assert_true(h.has_port);
        assert_int_equal(h.port, 80);

        h = split_ok("[fe80::1]", 0);
        assert_host(&h, "fe80::1");
        assert_true(h.ipv6);
        assert_false(h.has_port);
        assert_int_equal(h.port, 0);

        /* what is inside the brackets is the caller's to judge */
        h = split_ok("[127.0.0.1]:9", 0);
        assert_host(&h, "127.0.0.1");
        assert_true(h.ipv6);
}

static void test_bare_host(void **state) {
        struct hostport h = split_ok("localhost", 0);
        assert_host(&h, "localhost");
        assert_false(h.ipv6);
        assert_false(h.has_port);
        assert_int_equal(h.port, 0);
}

static void test_length_bounds_the_input(void **state) {
        /* s need not end at len: the authority of a URL is followed by its path */
        const char *url = "host:81/path";
        struct hostport h;
        assert_int_equal(hostport_split(url, 7, 0, &h, NULL), 0);
        assert_host(&h, "host");
        assert_int_equal(h.port, 81);
        assert_int_equal(hostport_split(url, 4, 0, &h, NULL), 0);
        assert_false(h.has_port);
}

static void test_bad_port(void **state) {
        const char *range = "the port must be 1 to 65535";
        split_bad("h:0", 0, range);
        split_bad("h:00000", 0, range);
        split_bad("h:65536", 0, range);
        split_bad("h:99999", 0, range);
        split_bad("h:000080", 0, range);   /* more than five digits */
        split_bad("h:", 0, range);
        split_bad("[::1]:", 0, range);
        split_bad("h:8x", 0, range);
        split_bad("h:x", 0, range);
        split_bad("h:-1", 0, range);
        split_bad("h:+1", 0, range);
        split_bad("h: 80", 0, range);
        split_bad("h:80 ", 0, range);
        split_bad("h:1:2", 0, range);      /* a host without brackets ends at the first ':' */
        split_bad("::1", 0, range);
        split_bad("[::1]:80:", 0, range);
}

static void test_port_zero(void **state) {
        struct hostport h = split_ok("127.0.0.1:0", HOSTPORT_PORT_ZERO);
        assert_true(h.has_port);
        assert_int_equal(h.port, 0);
        h = split_ok("127.0.0.1", HOSTPORT_PORT_ZERO);
        assert_false(h.has_port);
        split_bad("h:65536", HOSTPORT_PORT_ZERO, "the port must be 0 to 65535");
}

static void test_brackets(void **state) {
        split_bad("[::1", 0, "an IPv6 address needs a closing ']'");
        split_bad("[::1:80", 0, "an IPv6 address needs a closing ']'");
        split_bad("[", 0, "an IPv6 address needs a closing ']'");
        split_bad("[::1]x", 0, "only :port may follow ']'");
        split_bad("[::1]]:80", 0, "only :port may follow ']'");
        split_bad("[::1] :80", 0, "only :port may follow ']'");
}

static void test_empty_and_long_host(void **state) {
        const char *why = "the host is empty or too long";
        split_bad("", 0, why);
        split_bad(":80", 0, why);
        split_bad("[]", 0, why);
        split_bad("[]:80", 0, why);

        char s[HOSTPORT_HOST_MAX + 8];
        memset(s, 'a', HOSTPORT_HOST_MAX);
        strcpy(s + HOSTPORT_HOST_MAX, ":80");
        struct hostport h = split_ok(s, 0);
        assert_int_equal(h.host_len, HOSTPORT_HOST_MAX);
        memset(s, 'a', HOSTPORT_HOST_MAX + 1);
        strcpy(s + HOSTPORT_HOST_MAX + 1, ":80");
        split_bad(s, 0, why);
}

static void test_why_may_be_null(void **state) {
        struct hostport h;
        assert_int_equal(hostport_split("h:0", 3, 0, &h, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_host_and_port),
                cmocka_unit_test(test_ipv6),
                cmocka_unit_test(test_bare_host),
                cmocka_unit_test(test_length_bounds_the_input),
                cmocka_unit_test(test_bad_port),
                cmocka_unit_test(test_port_zero),
                cmocka_unit_test(test_brackets),
                cmocka_unit_test(test_empty_and_long_host),
                cmocka_unit_test(test_why_may_be_null),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
