/* test-cgroup-parse.c: the pure parts of the cgroup module: cgroupfs text parsers and the
 * validation of slice limits against a host (a made-up host, so every rule can be hit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cgroup-internal.h"
#include "host-limits.h"

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

static struct host_limits fake_host(void) {
        struct host_limits h = { .memory_bytes = 8ULL << 30 };
        assert_int_equal(cpulist_parse("0-7", &h.cpus), 0);
        assert_int_equal(cpulist_parse("0", &h.mems), 0);
        return h;
}

static void expect_bad(const struct slice_limits *l, const char *field, const char *words) {
        struct host_limits h = fake_host();
        struct error err = { 0 };
        assert_int_equal(slice_limits_check(l, &h, "cells[2]", &err), -EINVAL);
        assert_int_equal(err.status, 400);
        assert_string_equal(err.field, field);
        if (!strstr(err.message, words))
                fail_msg("message \"%s\" lacks \"%s\"", err.message, words);
}

static void test_limits_check(void **state) {
        struct host_limits h = fake_host();
        struct error err = { 0 };
        struct slice_limits l = { 0 };
        assert_int_equal(slice_limits_check(&l, &h, "cells[2]", &err), 0); /* all defaults */
        assert_int_equal(cpulist_parse("4-7", &l.cpus), 0);
        l.cpu_quota = 4.0;
        l.cpu_burst_us = 50000;
        l.memory_max = 4ULL << 30;
        assert_int_equal(slice_limits_check(&l, &h, "cells[2]", &err), 0);
        l.cpu_quota = 0.01; /* exactly 1 ms per 100 ms period */
        l.cpu_burst_us = 0;
        assert_int_equal(slice_limits_check(&l, &h, "cells[2]", &err), 0);

        struct slice_limits b = l;
        assert_int_equal(cpulist_parse("6-9", &b.cpus), 0);
        expect_bad(&b, "cells[2].cpus", "8-9 not online");
        b = l;
        b.cpu_quota = 4.5;
        expect_bad(&b, "cells[2].cpu_quota", "exceeds the 4 CPUs");
        b = l;
        b.cpu_quota = 0.009;
        expect_bad(&b, "cells[2].cpu_quota", "below 1 ms");
        b = l;
        b.cpu_quota = NAN;
        expect_bad(&b, "cells[2].cpu_quota", "positive");
        b = l;
        b.cpu_quota = -1;
        expect_bad(&b, "cells[2].cpu_quota", "positive");
        b = l;
        b.cpu_period_us = 999;
        expect_bad(&b, "cells[2].cpu_period_us", "1000..1000000");
        b = l;
        b.cpu_quota = 0;
        b.cpu_burst_us = 1000;
        expect_bad(&b, "cells[2].cpu_burst_us", "needs a cpu_quota");
        b = l;
        b.cpu_quota = 1;
        b.cpu_burst_us = 100001;
        expect_bad(&b, "cells[2].cpu_burst_us", "exceed");
        b = l;
        b.memory_max = (8ULL << 30) + 1;
        expect_bad(&b, "cells[2].memory_max", "exceeds the host");
        b = l;
        b.has_mems = true;
        assert_int_equal(cpulist_parse("1", &b.mems), 0);
        expect_bad(&b, "cells[2].mems", "1 not online");
        b.mems = (struct cpulist){ 0 };
        expect_bad(&b, "cells[2].mems", "at least one");
        b = l;
        b.pids_max = 5000000;
        expect_bad(&b, "cells[2].pids_max", "4194304");
        /* no cpus: the quota may use every online CPU */
        b = (struct slice_limits){ .cpu_quota = 8.0 };
        assert_int_equal(slice_limits_check(&b, &h, "", &err), 0);
        b.cpu_quota = 8.5;
        assert_int_equal(slice_limits_check(&b, &h, "", &err), -EINVAL);
        assert_string_equal(err.field, "cpu_quota");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_keyed),
                cmocka_unit_test(test_psi),
                cmocka_unit_test(test_meminfo),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_limits_check),
        };
        return cmocka_run_group_tests_name("cgroup-parse", tests, NULL, NULL);
}
