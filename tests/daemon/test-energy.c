/* test-energy.c: energy from RAPL with a fixture powercap tree: the domains found (packages and
 * their parts, the bare control type skipped), readings, one wrap at max_energy_range_uj undone
 * between two readings, joules of the measure phase and per request summed over the packages
 * only; no powercap (these VMs) gives no energy rather than 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "daemon/energy.h"
#include "host/host-rapl.h"
#include "test-tmp.h"

static char *root;

static void put(const char *dir, const char *file, const char *text) {
        char rel[256];
        snprintf(rel, sizeof rel, "sys/class/powercap/%s/%s", dir, file);
        tmp_put(root, rel, text);
}

static void set_energy(const char *dir, uint64_t uj) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu\n", (unsigned long long) uj);
        put(dir, "energy_uj", buf);
}

static int setup(void **state) {
        root = tmp_dir_new("rapl");
        put("intel-rapl", "enabled", "1\n"); /* the control type: no energy_uj, not a domain */
        put("intel-rapl:0", "name", "package-0\n");
        put("intel-rapl:0", "max_energy_range_uj", "1000000\n");
        set_energy("intel-rapl:0", 900000);
        put("intel-rapl:0:0", "name", "core\n");
        put("intel-rapl:0:0", "max_energy_range_uj", "1000000\n");
        set_energy("intel-rapl:0:0", 100);
        return 0;
}

static int teardown(void **state) {
        tmp_dir_free(TAKE_PTR(root));
        return 0;
}

static void test_delta(void **state) {
        assert_int_equal(host_rapl_delta(100, 350, 1000), 250);
        assert_int_equal(host_rapl_delta(900, 100, 1000), 200);  /* wrapped once */
        assert_int_equal(host_rapl_delta(900, 100, 0), 0);       /* range unknown: no guess */
}

static void test_open_read(void **state) {
        struct host_rapl r;
        assert_int_equal(host_rapl_open(root, &r), 0);
        assert_int_equal(r.n, 2);
        assert_string_equal(r.d[0].name, "package-0");
        assert_true(r.d[0].package);
        assert_string_equal(r.d[1].name, "core");
        assert_false(r.d[1].package);
        assert_int_equal(r.d[0].max_range_uj, 1000000);
        uint64_t uj[HOST_RAPL_DOMAINS_MAX];
        assert_int_equal(host_rapl_read(&r, uj), 0);
        assert_int_equal(uj[0], 900000);
        assert_int_equal(uj[1], 100);

        struct host_rapl none;
        assert_int_equal(host_rapl_open("/nonexistent-root", &none), -ENODEV);
}

/* measure start 0.9 J, a sample at 0.1 J (wrapped at 1 J), the end at 0.4 J: 0.5 J. */
static void test_measure(void **state) {
        struct host_rapl r;
        assert_int_equal(host_rapl_open(root, &r), 0);
        struct collect_baseline start = { .t_ns = 1000 }, end = { .t_ns = 5000 };
        assert_int_equal(host_rapl_read(&r, start.energy_uj), 0);
        start.has_energy = true;
        struct sample_point pts[3] = { { .t_ns = 500 }, { .t_ns = 2000 }, { .t_ns = 6000 } };
        set_energy("intel-rapl:0", 100000);
        set_energy("intel-rapl:0:0", 50100);
        assert_int_equal(host_rapl_read(&r, pts[1].energy_uj), 0);
        pts[1].has_energy = true;
        /* readings outside the measure window are not counted */
        pts[0].has_energy = pts[2].has_energy = true;
        pts[0].energy_uj[0] = pts[2].energy_uj[0] = 123;
        set_energy("intel-rapl:0", 400000);
        set_energy("intel-rapl:0:0", 80100);
        assert_int_equal(host_rapl_read(&r, end.energy_uj), 0);
        end.has_energy = true;
        struct samples series = { .points = pts, .n = 3, .rapl = &r };

        cJSON *e = energy_measure_json(&r, &start, &series, &end, 1000);
        assert_non_null(e);
        assert_true(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(e, "joules")) - 0.5) < 1e-9);
        assert_true(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(e, "joules_per_request")) - 0.0005) < 1e-12);
        const cJSON *d = cJSON_GetObjectItem(e, "domains");
        assert_true(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(d, "core")) - 0.08) < 1e-9);
        cJSON_Delete(e);

        /* no requests (a SUT without load): joules, per request null */
        e = energy_measure_json(&r, &start, &series, &end, 0);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "joules_per_request")));
        cJSON_Delete(e);
        /* no RAPL, or a reading missing: no energy at all */
        assert_null(energy_measure_json(NULL, &start, &series, &end, 1000));
        end.has_energy = false;
        assert_null(energy_measure_json(&r, &start, &series, &end, 1000));
}

int main(void) {
        json_setup();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_delta),
                cmocka_unit_test(test_open_read),
                cmocka_unit_test(test_measure),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
