/* test-cgroup-parse.c: the pure parts of the cgroup module: cgroupfs text parsers and the
 * validation of slice limits against a host (a made-up host, so every rule can be hit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cgroup/cgroup-internal.h"
#include "basic/host-limits.h"

static void test_keyed(void **state) {
        const char *v2 = "usage_usec 1000123\nuser_usec 9\nsystem_usec 1\nnr_periods 20\n"
                         "nr_throttled 19\nthrottled_usec 980000\nnr_bursts 0\n";
        uint64_t v;
        assert_int_equal(cg_parse_keyed(v2, "usage_usec", &v), 0);
        assert_int_equal(v, 1000123);
        assert_int_equal(cg_parse_keyed(v2, "nr_throttled", &v), 0);
        assert_int_equal(v, 19);
        assert_int_equal(cg_parse_keyed(v2, "throttled_usec", &v), 0);
        assert_int_equal(v, 980000);
        /* a key that is a prefix of another is not confused with it */
        assert_int_equal(cg_parse_keyed("nr_periods_x 5\nnr_periods 7\n", "nr_periods", &v), 0);
        assert_int_equal(v, 7);
        v = 42;
        assert_int_equal(cg_parse_keyed(v2, "throttled_time", &v), -ENOENT);
        assert_int_equal(v, 42);
        assert_int_equal(cg_parse_keyed("oom_kill -1\n", "oom_kill", &v), -EBADMSG);
        assert_int_equal(cg_parse_keyed("oom_kill 1x\n", "oom_kill", &v), -EBADMSG);
        assert_int_equal(cg_parse_keyed("oom_kill 99999999999999999999999\n", "oom_kill", &v), -EBADMSG);
        assert_int_equal(cg_parse_keyed("oom_kill_disable 0\nunder_oom 0\noom_kill 3", "oom_kill", &v), 0);
        assert_int_equal(v, 3);
        assert_int_equal(cg_parse_keyed("", "x", &v), -ENOENT);
}

static void test_psi(void **state) {
        struct psi_line some, full;
        assert_int_equal(cg_parse_psi("some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\n"
                                      "full avg10=0.50 avg60=0.00 avg300=0.00 total=789\n", &some, &full), 0);
        assert_true(some.present && full.present);
        assert_true(fabs(some.avg10 - 1.5) < 1e-9);
        assert_int_equal(some.total_us, 123456);
        assert_int_equal(full.total_us, 789);
        /* cpu.pressure before 5.13 has no full line */
        assert_int_equal(cg_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n", &some, &full), 0);
        assert_false(full.present);
        assert_int_equal(cg_parse_psi("some avg10=x\n", &some, &full), -EBADMSG);
        assert_int_equal(cg_parse_psi("", &some, &full), -EBADMSG);
}

static void test_percpu(void **state) {
        uint64_t ns[CPULIST_MAX] = { 0 };
        size_t n = 0;
        /* cpuacct.usage_percpu as v1 prints it: one number per possible CPU, a trailing space */
        assert_int_equal(cg_parse_percpu("2849137827789 2914734406051 \n", ns, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(ns[0], 2849137827789ULL);
        assert_int_equal(ns[1], 2914734406051ULL);
        ns[0] = 7;
        assert_int_equal(cg_parse_percpu("1 2 x\n", ns, &n), -EBADMSG);
        assert_int_equal(cg_parse_percpu("1 -2\n", ns, &n), -EBADMSG);
        assert_int_equal(cg_parse_percpu("\n", ns, &n), -EBADMSG);
        assert_int_equal(cg_parse_percpu("99999999999999999999999 1\n", ns, &n), -EBADMSG);
        assert_int_equal(ns[0], 7); /* untouched on failure */
        assert_int_equal(n, 2);
}

static void test_v1_swap(void **state) {
        uint64_t v = 42;
        /* memsw accounted: memsw - usage, never below 0 */
        assert_int_equal(cg_v1_swap_bytes(true, 5000, 3000, NULL, &v), 0);
        assert_int_equal(v, 2000);
        assert_int_equal(cg_v1_swap_bytes(true, 3000, 3100, NULL, &v), 0);
        assert_int_equal(v, 0);
        /* without memsw: memory.stat's own swap line, not total_swap nor swapcached */
        const char *stat = "cache 1\nrss 2\nswapcached 7\nswap 8192\ntotal_swap 16384\n";
        assert_int_equal(cg_v1_swap_bytes(false, 0, 0, stat, &v), 0);
        assert_int_equal(v, 8192);
        v = 42;
        assert_int_equal(cg_v1_swap_bytes(false, 0, 0, "cache 1\nrss 2\n", &v), -ENOENT);
        assert_int_equal(cg_v1_swap_bytes(false, 0, 0, NULL, &v), -ENOENT);
        assert_int_equal(v, 42);
}

static void test_meminfo(void **state) {
        uint64_t v;
        assert_int_equal(host_limits_parse_meminfo("MemTotal:       24683620 kB\nMemFree: 1 kB\n", &v), 0);
        assert_int_equal(v, 24683620ULL * 1024);
        assert_int_equal(host_limits_parse_meminfo("MemFree: 1 kB\n", &v), -EBADMSG);
        assert_int_equal(host_limits_parse_meminfo("XMemTotal: 1 kB\n", &v), -EBADMSG);
        assert_int_equal(host_limits_parse_meminfo("MemTotal: 1 MB\n", &v), -EBADMSG);
}

static void test_names(void **state) {
        assert_true(cg_valid_name("run_1-A", 64, false));
        assert_false(cg_valid_name("a.b", 64, false));
        assert_true(cg_valid_name("slicelab.slice", 64, true));
        assert_false(cg_valid_name("..", 64, true));
        assert_false(cg_valid_name("a/b", 64, true));
        assert_false(cg_valid_name("", 64, true));
        char long_name[80];
        memset(long_name, 'a', 65);
        long_name[65] = '\0';
        assert_false(cg_valid_name(long_name, 64, true));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_keyed),
                cmocka_unit_test(test_psi),
                cmocka_unit_test(test_meminfo), cmocka_unit_test(test_percpu), cmocka_unit_test(test_v1_swap),
                cmocka_unit_test(test_names),
        };
        return cmocka_run_group_tests_name("cgroup-parse", tests, NULL, NULL);
}
