/* test-definition-peer-load.c: a peer load's `load` object (POST /v1/loads) is checked by the
 * definition's own rules, with its fields named load.*, and what a peer does not run is refused:
 * an external command, a capacity search, load.cpus, load.hosts. The coordinator's body for one
 * of load.hosts gives that host's part back through the same parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "definition/definition-peer-load.h"

static struct host_limits host;

static int setup(void **state) {
        if (cpulist_parse("0-7", &host.cpus) < 0 || cpulist_parse("0", &host.mems) < 0)
                return -1;
        host.memory_bytes = UINT64_C(8) << 30;
        return 0;
}

/* Parse text as a load; 0 with *ret, or the error's field. */
static int parse(const char *text, struct definition **ret, struct error *err) {
        _cleanup_json_ cJSON *load = cJSON_Parse(text);
        assert_non_null(load);
        return definition_parse_peer_load(load, &host, ret, err);
}

static void test_good(void **state) {
        struct definition *d = NULL;
        struct error err = { 0 };
        assert_int_equal(parse("{\"target\":\"http://10.231.1.1:9080/work\",\"rate\":500,\"arrival\":\"poisson\","
                               "\"warmup_s\":2,\"measure_s\":5}", &d, &err), 0);
        assert_int_equal(d->load.kind, DEFINITION_LOAD_INJECTOR);
        assert_true(d->load.rate == 500);
        assert_int_equal(d->load.arrival, DEFINITION_ARRIVAL_POISSON);
        assert_false(d->load.has_cpus);
        assert_non_null(strstr(d->canonical, "\"target\":\"http://10.231.1.1:9080/work\""));
        definition_free(d);
        d = NULL;
        assert_int_equal(parse("{\"target\":\"http://bench01:9080/\",\"mode\":\"max\",\"connections\":4}", &d, &err), 0);
        assert_int_equal(d->load.mode, DEFINITION_MODE_MAX);
        definition_free(d);
}

static void test_refused(void **state) {
        static const struct {
                const char *load, *field;
        } bad[] = {
                { "{\"target\":\"http://10.0.0.1/\",\"rate\":-1}", "load.rate" },
                { "{\"target\":\"ftp://10.0.0.1/\",\"rate\":1}", "load.target" },
                { "{\"rate\":1}", "load.target" },
                { "{\"target\":\"http://10.0.0.1/\",\"rate\":1,\"cpus\":\"0\"}", "load.cpus" },
                { "{\"target\":\"http://10.0.0.1/\",\"rate\":1,\"hosts\":[]}", "load.hosts" },
                { "{\"command\":[\"wrk\"],\"timeline\":\"t.bin\"}", "load.command" },
                { "{\"target\":\"http://10.0.0.1/\",\"mode\":\"capacity\",\"sla\":[{\"percentile\":99,\"max_ms\":5}],"
                  "\"rate_min\":10,\"rate_max\":100}", "load.mode" },
                { "{\"target\":\"http://10.0.0.1/\",\"rate\":1,\"bogus\":1}", "load.bogus" },
                { "[1]", "load" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                struct definition *d = (struct definition *) 0x1;
                struct error err = { 0 };
                assert_int_not_equal(parse(bad[i].load, &d, &err), 0);
                assert_int_equal(err.status, 400);
                if (strcmp(err.field, bad[i].field) != 0)
                        fail_msg("%s: field '%s' (%s), want '%s'", bad[i].load, err.field, err.message, bad[i].field);
                assert_ptr_equal(d, (struct definition *) 0x1);    /* untouched on failure */
        }
}

/* A definition's load over two hosts, asked of the second: its part's rate and schedule, its
 * cpus, the injector's options as the definition has them. */
static void test_body(void **state) {
        static const char def[] =
                "{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"a\"}],"
                "\"load\":{\"target\":\"http://10.231.1.1:9080/work\",\"rate\":900,\"connections\":3,\"warmup_s\":2,"
                "\"measure_s\":5,\"hosts\":[{\"host\":\"bench01\",\"cpus\":\"0-1\",\"share\":1},"
                "{\"host\":\"bench02\",\"cpus\":\"2,4\",\"share\":2}]}}";
        struct definition *d = NULL, *peer = NULL;
        struct error err = { 0 };
        assert_int_equal(definition_parse(def, strlen(def), &host, &d, &err), 0);
        struct definition_host_load parts[2];
        bool even;
        assert_int_equal(definition_load_split(&d->load, 42, parts, &even), 0);
        const struct definition_peer_request req = { .coordinator = "10.0.0.9", .coordinator_run = "run1",
                                                     .start_at_ns = 123456789012345, .lease_s = 10 };
        char *body = definition_peer_load_body(&d->load, 1, &parts[1], &req);
        assert_non_null(body);
        _cleanup_json_ cJSON *b = cJSON_Parse(body);
        assert_non_null(b);
        assert_string_equal(cJSON_GetObjectItem(b, "host")->valuestring, "bench02");
        assert_string_equal(cJSON_GetObjectItem(b, "cpus")->valuestring, "2,4");
        assert_string_equal(cJSON_GetObjectItem(b, "coordinator")->valuestring, "10.0.0.9");
        assert_string_equal(cJSON_GetObjectItem(b, "coordinator_run")->valuestring, "run1");
        assert_true(cJSON_GetObjectItem(b, "start_at_ns")->valuedouble == 123456789012345.0);
        assert_true(cJSON_GetObjectItem(b, "phase_ns")->valuedouble == (double) parts[1].phase_ns);
        assert_true(cJSON_GetObjectItem(b, "lease_s")->valuedouble == 10);
        assert_int_equal(definition_parse_peer_load(cJSON_GetObjectItem(b, "load"), &host, &peer, &err), 0);
        assert_true(peer->load.rate == parts[1].rate);
        assert_true(parts[1].rate == 600);
        assert_int_equal(peer->load.connections, 3);
        assert_int_equal(peer->load.warmup_s, 2);
        assert_int_equal(peer->load.measure_s, 5);
        assert_int_equal(peer->load.n_hosts, 0);
        assert_null(definition_peer_load_body(&d->load, 2, &parts[1], &req));
        free(body);
        definition_free(peer);
        definition_free(d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_good),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_body),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
