/* test-definition-peer-load.c: a peer load's `load` object (POST /v1/loads) is checked by the
 * definition's own rules, with its fields named load.*, and what a peer does not run is refused:
 * an external command, a capacity search, load.cpus, load.hosts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_good),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
