/* test-http-parser.c: the injector's response parser on whole answers, on answers cut at every
 * byte, and on the malformed answers a hostile or broken server may send. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "injector/http-parser.h"

/* Feed the answer in pieces of `step` bytes; returns the parse result and the bytes used. */
static int feed_steps(struct http_parser *p, const char *s, size_t len, size_t step, size_t *used) {
        size_t off = 0;
        int r = HTTP_PARSE_MORE;
        while (off < len && r == HTTP_PARSE_MORE) {
                size_t n = len - off < step ? len - off : step, c;
                r = http_parser_feed(p, s + off, n, &c);
                off += c;
        }
        *used = off;
        return r;
}

#define WHOLE SIZE_MAX

static void expect_done(const char *s, bool head, unsigned status, bool keep, size_t expect_used) {
        size_t len = strlen(s);
        if (expect_used == WHOLE)
                expect_used = len;
        for (size_t step = 1; step <= len; step++) {
                struct http_parser p;
                http_parser_reset(&p, head);
                size_t used;
                assert_int_equal(feed_steps(&p, s, len, step, &used), HTTP_PARSE_DONE);
                assert_int_equal(used, expect_used);
                assert_int_equal(p.bytes, expect_used);
                assert_int_equal(p.status, status);
                assert_int_equal(http_parser_keep_alive(&p), keep);
        }
}

static void test_content_length(void **state) {
        const char *s = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello";
        expect_done(s, false, 200, true, strlen(s));
        /* Bytes after the answer are not part of it. */
        char buf[256];
        snprintf(buf, sizeof buf, "%sEXTRA", s);
        expect_done(buf, false, 200, true, strlen(s));
        expect_done("HTTP/1.1 404 Not Found\r\ncontent-length:0\r\n\r\n", false, 404, true, WHOLE);
        /* No reason phrase, LF-only line ends. */
        expect_done("HTTP/1.1 200\nContent-Length: 2\n\nok", false, 200, true, WHOLE);
}

static void test_chunked(void **state) {
        const char *s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "5\r\nhello\r\n1a;name=value\r\nabcdefghijklmnopqrstuvwxyz\r\n"
                        "0\r\nX-Trailer: 1\r\n\r\n";
        expect_done(s, false, 200, true, strlen(s));
        const char *t = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 99\r\n\r\n"
                        "3\r\nabc\r\n0\r\n\r\n";
        expect_done(t, false, 200, true, strlen(t));   /* chunked wins over Content-Length */
}

static void test_no_body(void **state) {
        expect_done("HTTP/1.1 204 No Content\r\n\r\n", false, 204, true, WHOLE);
        expect_done("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", false, 304, true, WHOLE);
        expect_done("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", true, 200, true, WHOLE);
}

static void test_interim(void **state) {
        const char *s = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx";
        expect_done(s, false, 201, true, strlen(s));
}

static void test_close(void **state) {
        expect_done("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", false, 200, false, WHOLE);
        expect_done("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n",
                    false, 200, false, WHOLE);
        expect_done("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", false, 200, false, WHOLE);
        expect_done("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx", false, 200, true, WHOLE);
}

static void test_body_until_eof(void **state) {
        const char *s = "HTTP/1.1 200 OK\r\n\r\nsome body";
        struct http_parser p;
        http_parser_reset(&p, false);
        size_t used;
        assert_int_equal(http_parser_feed(&p, s, strlen(s), &used), HTTP_PARSE_MORE);
        assert_int_equal(used, strlen(s));
        assert_int_equal(http_parser_eof(&p), HTTP_PARSE_DONE);
        assert_false(http_parser_keep_alive(&p));
        assert_int_equal(p.bytes, strlen(s));

        /* EOF inside a Content-Length body is a cut answer. */
        const char *t = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
        http_parser_reset(&p, false);
        assert_int_equal(http_parser_feed(&p, t, strlen(t), &used), HTTP_PARSE_MORE);
        assert_int_equal(http_parser_eof(&p), -ECONNRESET);
        http_parser_reset(&p, false);
        assert_int_equal(http_parser_eof(&p), -ECONNRESET);
}

static void expect_bad(const char *s) {
        struct http_parser p;
        http_parser_reset(&p, false);
        size_t used;
        assert_int_equal(feed_steps(&p, s, strlen(s), strlen(s), &used), -EBADMSG);
}

static void test_malformed(void **state) {
        expect_bad("HTTP/2 200 OK\r\n\r\n");
        expect_bad("HTTP/1.1 20 OK\r\n\r\n");
        expect_bad("HTTP/1.1 2000 OK\r\n\r\n");
        expect_bad("HTTP/1.1 099 OK\r\n\r\n");
        expect_bad("ICY 200 OK\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nNoColonHere\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n");
        expect_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n");
        expect_bad("HTTP/1.1 101 Switching Protocols\r\n\r\n");
}

static void test_header_limits(void **state) {
        /* An endless header section is refused, not buffered. */
        static char big[HTTP_PARSER_HEADERS_MAX + 4096];
        strcpy(big, "HTTP/1.1 200 OK\r\n");
        size_t len = strlen(big);
        while (len + 40 < sizeof big) {
                memcpy(big + len, "X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 38);
                len += 38;
        }
        big[len] = '\0';
        expect_bad(big);

        /* A long header we do not care about is fine; a long framing header is not. */
        char longline[1024];
        memset(longline, 'a', sizeof longline);
        longline[sizeof longline - 1] = '\0';
        char ok[2048], bad[2048];
        snprintf(ok, sizeof ok, "HTTP/1.1 200 OK\r\nX-Long: %s\r\nContent-Length: 0\r\n\r\n", longline);
        expect_done(ok, false, 200, true, strlen(ok));
        snprintf(bad, sizeof bad, "HTTP/1.1 200 OK\r\nContent-Length: 1%s\r\n\r\n", longline);
        expect_bad(bad);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_content_length), cmocka_unit_test(test_chunked),
                cmocka_unit_test(test_no_body),        cmocka_unit_test(test_interim),
                cmocka_unit_test(test_close),          cmocka_unit_test(test_body_until_eof),
                cmocka_unit_test(test_malformed),      cmocka_unit_test(test_header_limits),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
