/* test-inject-options.c: the injector's command line, URL and request building: what is
 * accepted, what is refused (a usage error, exit status 2, before anything runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/time-util.h"
#include "injector/http-request.h"
#include "injector/options.h"
#include "injector/url.h"

#define ARGV(...) ((char *[]){ "slicelab-inject", __VA_ARGS__, NULL })
#define ARGC(...) ((int) (sizeof((char *[]){ "slicelab-inject", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, ...) options_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o))

static void test_durations(void **state) {
        static const struct {
                const char *s;
                int64_t ns;
        } good[] = {
                { "60", 60 * NSEC_PER_SEC },        { "60s", 60 * NSEC_PER_SEC },
                { "240s", 240 * NSEC_PER_SEC },     { "1.5s", 1500 * NSEC_PER_MSEC },
                { "250ms", 250 * NSEC_PER_MSEC },   { "2m", 120 * NSEC_PER_SEC },
                { "100us", 100 * NSEC_PER_USEC },   { "1h", 3600 * NSEC_PER_SEC },
                { "0", 0 },                         { "0.000000001", 1 },
                { "0.5m", 30 * NSEC_PER_SEC },      { "30ns", 30 },
        };
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
                int64_t v = -1;
                assert_int_equal(options_parse_duration_ns(good[i].s, &v), 0);
                assert_int_equal(v, good[i].ns);
        }
        static const char *const bad[] = { "", "s", "-1", "+1", " 1", "1 ", "1.", ".5", "1.5.5", "1sec",
                                           "1S", "1e3", "0x10", "1.0000000001", "ms" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                int64_t v = 42;
                assert_int_equal(options_parse_duration_ns(bad[i], &v), -EINVAL);
                assert_int_equal(v, 42);
        }
        int64_t v;
        assert_int_equal(options_parse_duration_ns("31d", &v), -EINVAL);
        assert_int_equal(options_parse_duration_ns("745h", &v), -ERANGE);
        assert_int_equal(options_parse_duration_ns("99999999999999999999", &v), -ERANGE);
}

static void test_design_example(void **state) {
        struct inject_options o;
        assert_int_equal(PARSE(&o, "--url", "http://127.0.0.1:9080/work", "--rate", "6000", "--connections", "32",
                               "--warmup", "60s", "--duration", "240s", "--timeline", "out.bin",
                               "--summary", "out.json"), 0);
        assert_string_equal(o.url, "http://127.0.0.1:9080/work");
        assert_int_equal(o.mode, INJECT_MODE_RATE);
        assert_true(o.rate == 6000.0);
        assert_int_equal(o.connections, 32);
        assert_int_equal(o.threads, 1);
        assert_int_equal(o.warmup_ns, 60 * NSEC_PER_SEC);
        assert_int_equal(o.duration_ns, 240 * NSEC_PER_SEC);
        assert_int_equal(o.timeout_ns, 5 * NSEC_PER_SEC);
        assert_string_equal(o.timeline_path, "out.bin");
        assert_string_equal(o.summary_path, "out.json");
        assert_string_equal(o.method, "GET");
        assert_int_equal(o.arrival, INJECT_ARRIVAL_UNIFORM);
}

static void test_other_options(void **state) {
        struct inject_options o;
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--mode", "max", "--threads", "2", "--connections", "8",
                               "--method", "POST", "--body", "b.json", "--header", "X-A: 1", "--header", "X-B: 2",
                               "--timeout", "250ms", "--duration", "3"), 0);
        assert_int_equal(o.mode, INJECT_MODE_MAX);
        assert_int_equal(o.threads, 2);
        assert_int_equal(o.n_headers, 2);
        assert_string_equal(o.headers[1], "X-B: 2");
        assert_int_equal(o.timeout_ns, 250 * NSEC_PER_MSEC);
        assert_int_equal(o.batch_ns, 100 * NSEC_PER_USEC);
        assert_int_equal(o.spin_ns, 20 * NSEC_PER_USEC);
        assert_false(o.spin_given);
        assert_true(o.spin_budget == 0.5);
        assert_true(o.hlog_path == NULL);
        assert_int_equal(o.hlog_interval_ns, NSEC_PER_SEC);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--batch", "0", "--spin", "50us"), 0);
        assert_int_equal(o.batch_ns, 0);
        assert_int_equal(o.spin_ns, 50 * NSEC_PER_USEC);
        assert_true(o.spin_given);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--spin-budget", "0", "--hlog", "x.hlog",
                               "--hlog-interval", "250ms"), 0);
        assert_true(o.spin_budget == 0.0);
        assert_string_equal(o.hlog_path, "x.hlog");
        assert_int_equal(o.hlog_interval_ns, 250 * NSEC_PER_MSEC);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--spin-budget", "101"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--spin-budget", "-1"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--hlog-interval", "500us"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--hlog-interval", "2h"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--duration", "60s", "--hlog", "x",
                               "--hlog-interval", "1ms"), -EINVAL);   /* 60000 intervals */
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "5", "--duration", "60s", "--hlog", "x",
                               "--hlog-interval", "10ms"), 0);
        assert_int_equal(PARSE(&o, "--convert-csv", "in.csv", "--timeline", "out.bin", "--hlog", "x.hlog"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "0.5", "--arrival", "poisson", "--seed", "18446744073709551615"), 0);
        assert_int_equal(o.arrival, INJECT_ARRIVAL_POISSON);
        assert_true(o.seed == UINT64_MAX);
        assert_int_equal(PARSE(&o, "--convert-csv", "in.csv", "--timeline", "out.bin", "--warmup", "1s"), 0);
        assert_string_equal(o.convert_csv, "in.csv");
        assert_int_equal(PARSE(&o, "--help"), 0);
        assert_true(o.help);
        assert_int_equal(PARSE(&o, "--version"), 0);
        assert_true(o.version);
}

static void test_bad_options(void **state) {
        struct inject_options o;
        /* Each of these is a usage error; stderr gets a message (not checked here). */
        assert_int_equal(PARSE(&o, "--rate", "10"), -EINVAL);                              /* no --url */
        assert_int_equal(PARSE(&o, "--url", "http://h/"), -EINVAL);                        /* no --rate */
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "0"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "-5"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "nan"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1e9"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "10x"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--mode", "max", "--rate", "10"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--mode", "closed"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--arrival", "bursty"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--connections", "0"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--connections", "100001"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--threads", "4", "--connections", "2"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--duration", "0"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--timeout", "0"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--warmup", "soon"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--seed", "-1"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--batch", "2ms"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--spin", "1.5ms"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--bogus"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "stray"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate"), -EINVAL);
        assert_int_equal(PARSE(&o, "--convert-csv", "in.csv"), -EINVAL);                   /* no --timeline */
        assert_int_equal(PARSE(&o, "--convert-csv", "in.csv", "--timeline", "o", "--rate", "5"), -EINVAL);
}

/* --warmup-until-signal shortens a warmup, so it needs one (above 0) to shorten. */
static void test_warmup_until_signal(void **state) {
        struct inject_options o;
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--warmup", "30s"), 0);
        assert_false(o.warmup_until_signal);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--warmup", "30s", "--warmup-until-signal"), 0);
        assert_true(o.warmup_until_signal);
        assert_int_equal(o.warmup_ns, 30 * NSEC_PER_SEC);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--mode", "max", "--warmup-until-signal", "--warmup", "1ms"), 0);
        assert_true(o.warmup_until_signal);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--warmup-until-signal"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--warmup", "0", "--warmup-until-signal"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--warmup", "1s", "--warmup-until-signal=yes"), -EINVAL);
        assert_int_equal(PARSE(&o, "--convert-csv", "in.csv", "--timeline", "o", "--warmup", "1s",
                               "--warmup-until-signal"), -EINVAL);
}

/* --start-at and --phase: where the schedule starts and how a uniform one is shifted. */
static void test_start_at_phase(void **state) {
        struct inject_options o;
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1000"), 0);
        assert_int_equal(o.start_at_ns, 0);
        assert_int_equal(o.phase_ns, 0);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1000", "--start-at", "9223372036854775807",
                               "--phase", "999999"), 0);
        assert_int_equal(o.start_at_ns, INT64_MAX);
        assert_int_equal(o.phase_ns, 999999);
        /* One gap at 1000/s is 1 ms: the phase must be below it. */
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1000", "--phase", "1000000"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1000", "--phase", "-1"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1000", "--phase", "1us"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1000", "--arrival", "poisson", "--phase", "5"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--mode", "max", "--phase", "5"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--mode", "max", "--start-at", "5"), 0);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--start-at", "0"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--start-at", "9223372036854775808"), -EINVAL);
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--start-at", "1s"), -EINVAL);
        assert_int_equal(PARSE(&o, "--convert-csv", "in.csv", "--timeline", "o", "--start-at", "5"), -EINVAL);
        /* In the past by at most a second: accepted (the run starts late); further: refused. */
        assert_int_equal(PARSE(&o, "--url", "http://h/", "--rate", "1", "--start-at", "5000000000"), 0);
        assert_int_equal(options_check_start_at(&o, 5 * NSEC_PER_SEC), 0);
        assert_int_equal(options_check_start_at(&o, 6 * NSEC_PER_SEC), 0);
        assert_int_equal(options_check_start_at(&o, 6 * NSEC_PER_SEC + 1), -ERANGE);
        assert_int_equal(options_check_start_at(&o, 1), 0);
        o.start_at_ns = 0;
        assert_int_equal(options_check_start_at(&o, INT64_MAX), 0);
}

static void test_urls(void **state) {
        struct url u;
        assert_int_equal(url_parse("http://127.0.0.1:9080/work?cpu_us=200&alloc_kb=64", &u), 0);
        assert_string_equal(u.host, "127.0.0.1");
        assert_int_equal(u.port, 9080);
        assert_string_equal(u.path, "/work?cpu_us=200&alloc_kb=64");
        assert_string_equal(u.host_header, "127.0.0.1:9080");
        assert_false(u.ipv6_literal);

        assert_int_equal(url_parse("http://[::1]:8080/", &u), 0);
        assert_string_equal(u.host, "::1");
        assert_true(u.ipv6_literal);
        assert_string_equal(u.host_header, "[::1]:8080");

        assert_int_equal(url_parse("HTTP://example.org", &u), 0);
        assert_string_equal(u.path, "/");
        assert_int_equal(u.port, 80);
        assert_string_equal(u.host_header, "example.org");
        assert_int_equal(url_parse("http://h?q=1", &u), 0);
        assert_string_equal(u.path, "/?q=1");

        assert_int_equal(url_parse("https://h/", &u), -EPROTONOSUPPORT);
        static const char *const bad[] = {
                "", "h/x", "http://", "http:///x", "http://h:/", "http://h:0/", "http://h:65536/",
                "http://h:80x/", "http://user@h/", "http://h/a b", "http://h/a\r\nX: y", "http://h/#frag",
                "http://[::1/", "http://[]/", "http://[127.0.0.1]/", "http://h\x01/", "http://h/\x7f",
                "http://[::1]x/", "http://h:-1/",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                assert_int_equal(url_parse(bad[i], &u), -EINVAL);
        char huge[URL_MAX + 16] = "http://h/";
        memset(huge + 9, 'a', URL_MAX);
        huge[URL_MAX + 9] = '\0';
        assert_int_equal(url_parse(huge, &u), -EINVAL);
}

static void test_request(void **state) {
        struct url u;
        assert_int_equal(url_parse("http://127.0.0.1:9080/work?x=1", &u), 0);
        struct http_request r;
        assert_int_equal(http_request_build(&u, "GET", NULL, 0, NULL, 0, &r), 0);
        const char *want = "GET /work?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9080\r\nUser-Agent: slicelab-inject/" SLICELAB_VERSION "\r\n\r\n";
        assert_int_equal(r.size, strlen(want));
        assert_memory_equal(r.data, want, r.size);
        assert_false(r.head);
        http_request_done(&r);

        const char *headers[] = { "Host: other", "X-Trace: a:b", "Content-Type: application/json" };
        assert_int_equal(http_request_build(&u, "POST", headers, 3, "{}", 2, &r), 0);
        const char *want2 = "POST /work?x=1 HTTP/1.1\r\nUser-Agent: slicelab-inject/" SLICELAB_VERSION "\r\n"
                            "Host: other\r\nX-Trace: a:b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
        assert_int_equal(r.size, strlen(want2));
        assert_memory_equal(r.data, want2, r.size);
        http_request_done(&r);

        assert_int_equal(http_request_build(&u, "HEAD", NULL, 0, NULL, 0, &r), 0);
        assert_true(r.head);
        http_request_done(&r);

        static const char *const bad_headers[] = {
                "NoColon", ": empty name", "Bad Name: x", "X: a\r\nInjected: 1", "X: a\nb",
                "Content-Length: 5", "transfer-encoding: chunked",
        };
        for (size_t i = 0; i < sizeof bad_headers / sizeof bad_headers[0]; i++)
                assert_int_equal(http_request_build(&u, "GET", &bad_headers[i], 1, NULL, 0, &r), -EINVAL);
        assert_int_equal(http_request_build(&u, "GE T", NULL, 0, NULL, 0, &r), -EINVAL);
        assert_int_equal(http_request_build(&u, "", NULL, 0, NULL, 0, &r), -EINVAL);
        assert_int_equal(http_request_build(&u, "GET\r\n", NULL, 0, NULL, 0, &r), -EINVAL);
        assert_int_equal(http_request_build(&u, "VERYLONGMETHODNAME", NULL, 0, NULL, 0, &r), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_durations),   cmocka_unit_test(test_design_example),
                cmocka_unit_test(test_other_options), cmocka_unit_test(test_bad_options),
                cmocka_unit_test(test_urls),        cmocka_unit_test(test_request),
                cmocka_unit_test(test_start_at_phase), cmocka_unit_test(test_warmup_until_signal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
