/* test-peer.c: the pure parts of peer/: which hosts --peer-allow lets through, what a host name
 * may be, and the midpoint estimate of one clock exchange (its sign, its rounding, its bound);
 * and the errno a failure returns beside its error (a peer that refuses the connection is not an
 * invalid argument). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "peer/peer-client.h"

static void test_allowed(void **state) {
        char *patterns[] = { "bench0?", "10.231.*.*", "Lab-*.example.org", "10.9.0.0/24", NULL };
        const struct peer_config c = { .allow = patterns };
        assert_true(peer_host_allowed(&c, "bench02"));
        assert_true(peer_host_allowed(&c, "BENCH02"));          /* host names have no case */
        assert_false(peer_host_allowed(&c, "bench10"));
        assert_true(peer_host_allowed(&c, "10.231.77.2"));
        assert_false(peer_host_allowed(&c, "10.23.1.2"));
        assert_true(peer_host_allowed(&c, "lab-3.example.org"));
        assert_false(peer_host_allowed(&c, "lab-3.example.org.evil"));
        assert_true(peer_host_allowed(&c, "10.9.0.200"));
        /* An address pattern matches addresses only: a DNS name that begins like one resolves
         * wherever its owner likes, and would be sent the lab's token. */
        assert_false(peer_host_allowed(&c, "10.231.77.evil.invalid"));
        assert_false(peer_host_allowed(&c, "10.231.77.2.evil.invalid"));
        assert_false(peer_host_allowed(&c, "10.9.0.evil.invalid"));
        assert_false(peer_host_allowed(&c, "167772161"));       /* 10.0.0.1 to the resolver */
        /* Not a host at all: never allowed, whatever the patterns. */
        char *any[] = { "[a-z]*", "*.*.*.*", "::/0", NULL };
        const struct peer_config all = { .allow = any };
        assert_true(peer_host_allowed(&all, "x"));
        assert_true(peer_host_allowed(&all, "192.0.2.1"));
        assert_false(peer_host_allowed(&all, ""));
        assert_false(peer_host_allowed(&all, "a/b"));
        assert_false(peer_host_allowed(&all, "a b"));
        assert_false(peer_host_allowed(&all, "-x"));
        assert_false(peer_host_allowed(&all, NULL));
        /* Without --peer-allow nothing is a peer. */
        const struct peer_config none = { .allow = NULL };
        assert_false(peer_host_allowed(&none, "bench02"));
        assert_false(peer_host_allowed(NULL, "bench02"));
}

static void test_host_valid(void **state) {
        assert_true(peer_host_valid("bench02"));
        assert_true(peer_host_valid("10.0.0.1"));
        assert_true(peer_host_valid("fe80::1"));
        assert_true(peer_host_valid("a_b-c.d"));
        assert_false(peer_host_valid("[fe80::1]"));
        assert_false(peer_host_valid("host:80/x"));
        assert_false(peer_host_valid(".x"));
        char longname[300];
        memset(longname, 'a', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        assert_false(peer_host_valid(longname));
        longname[PEER_HOST_MAX] = '\0';
        assert_true(peer_host_valid(longname));
}

static void test_clock_sample(void **state) {
        struct peer_clock c;
        /* Sent at 100, answered at 300 on our clock; the peer read 1200: its clock is 1000 ahead
         * of the midpoint 200, give or take half the round trip. */
        peer_clock_sample(100, 300, 1200, &c);
        assert_int_equal(c.offset_ns, 1000);
        assert_int_equal(c.rtt_ns, 200);
        assert_int_equal(c.error_ns, 100);
        assert_int_equal(c.samples, 1);
        /* A peer behind us: a negative offset. */
        peer_clock_sample(1000000, 1000010, 5, &c);
        assert_int_equal(c.offset_ns, 5 - 1000005);
        /* An odd round trip: the bound rounds up, never claiming more than the numbers hold. */
        peer_clock_sample(0, 3, 10, &c);
        assert_int_equal(c.error_ns, 2);
        assert_int_equal(c.offset_ns, 9);
        /* Large clocks do not overflow the midpoint. */
        peer_clock_sample(INT64_MAX - 10, INT64_MAX, INT64_MAX, &c);
        assert_int_equal(c.offset_ns, 5);
}

/* A port of 127.0.0.1 bound and not listening: a connection to it is refused while fd is open. */
static int refusing_port(int *ret_fd) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof a;
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof a), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &len), 0);
        *ret_fd = fd;
        return ntohs(a.sin_port);
}

static void test_errnos(void **state) {
        assert_int_equal(peer_global_init(), 0);
        int fd;
        char url[64];
        snprintf(url, sizeof url, "http://{host}:%d", refusing_port(&fd));
        char *loopback[] = { "127.0.0.1", NULL };
        const struct peer_config c = { .url_template = url, .allow = loopback };
        struct error err = { 0 };
        assert_int_equal(peer_load_renew(&c, "127.0.0.1", "load-1", &err), -ECONNREFUSED);
        assert_int_equal(err.status, 502);
        assert_string_equal(err.code, "peer_unreachable");
        err = (struct error){ 0 };
        assert_int_equal(peer_load_renew(&c, "127.0.0.2", "load-1", &err), -EPERM);
        assert_int_equal(err.status, 403);
        /* what is an invalid argument stays one */
        err = (struct error){ 0 };
        assert_int_equal(peer_load_renew(&c, "a b", "load-1", &err), -EINVAL);
        assert_int_equal(err.status, 400);
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_allowed),
                cmocka_unit_test(test_host_valid),
                cmocka_unit_test(test_clock_sample),
                cmocka_unit_test(test_errnos),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
