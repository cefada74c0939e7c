/* test-host-checks.c: preflight requirements against the fixture trees, and the warnings
 * derived from sampled evidence (built by hand here: the functions are pure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/governor.h"
#include "host/host-preflight.h"
#include "host-test-util.h"
#include "host/host-warnings.h"
#include "basic/json-util.h"

/* Runs preflight and checks the exact sentences, in order. */
static void expect_preflight(const char *fixture, const char *cpus_text, struct host_requirements req,
                             int expect_count, const char *const *expect) {
        struct cpulist cpus;
        assert_int_equal(cpulist_parse(cpus_text, &cpus), 0);
        cJSON *m = cJSON_CreateArray();
        assert_int_equal(host_preflight(fixture_root(fixture), &req, &cpus, m), expect_count);
        assert_int_equal(cJSON_GetArraySize(m), expect_count);
        for (int i = 0; i < expect_count; i++)
                assert_string_equal(cJSON_GetArrayItem(m, i)->valuestring, expect[i]);
        cJSON_Delete(m);
}

static void test_preflight_governor(void **state) {
        struct host_requirements perf = { .governor = "performance" };
        expect_preflight("numa2", "0-7", perf, 0, NULL);
        expect_preflight("numa2", "4-11", perf, 1,
                         (const char *const[]){ "cpus 8-11: governor is powersave, wanted performance" });
        expect_preflight("numa2", "9", perf, 1,
                         (const char *const[]){ "cpu 9: governor is powersave, wanted performance" });
        struct host_requirements save = { .governor = "powersave" };
        expect_preflight("numa2", "6-9", save, 1,
                         (const char *const[]){ "cpus 6-7: governor is performance, wanted powersave" });
        /* the longest name the API accepts (basic/governor.h) is checked, not refused */
        struct host_requirements longest = { .governor = "ondemand-low_15" };
        expect_preflight("numa2", "0", longest, 1,
                         (const char *const[]){ "cpu 0: governor is performance, wanted ondemand-low_15" });
        /* cannot be verified where cpufreq is not exposed: a mismatch, with the reason */
        expect_preflight("vm", "0-1", perf, 1,
                         (const char *const[]){ "cpus 0-1: governor unknown, wanted performance: cpufreq not "
                                                "exposed (no /sys/devices/system/cpu/cpu0/cpufreq)" });
}

static void test_preflight_smt_thp(void **state) {
        struct host_requirements smt_off = { .smt = HOST_SMT_OFF };
        expect_preflight("numa2", "0-1", smt_off, 1,
                         (const char *const[]){ "cpus 0-1: smt is on (thread siblings of cpu 0: 0,8), wanted off" });
        struct host_requirements smt_on = { .smt = HOST_SMT_ON };
        expect_preflight("numa2", "0-15", smt_on, 0, NULL);
        expect_preflight("vm", "0-1", smt_off, 0, NULL);
        expect_preflight("vm", "1", smt_on, 1,
                         (const char *const[]){ "cpu 1: smt is off (no online thread sibling; smt/control is "
                                                "notsupported), wanted on" });

        struct host_requirements thp_never = { .thp = HOST_THP_NEVER };
        expect_preflight("numa2", "0", thp_never, 1,
                         (const char *const[]){ "thp is always (transparent_hugepage/enabled), wanted never" });
        struct host_requirements thp_madvise = { .thp = HOST_THP_MADVISE };
        expect_preflight("vm", "0", thp_madvise, 0, NULL);

        /* all three at once, in the order governor, smt, thp */
        struct host_requirements all = { .governor = "performance", .smt = HOST_SMT_OFF, .thp = HOST_THP_NEVER };
        expect_preflight("numa2", "7-8", all, 3,
                         (const char *const[]){ "cpu 8: governor is powersave, wanted performance",
                                                "cpus 7-8: smt is on (thread siblings of cpu 7: 7,15), wanted off",
                                                "thp is always (transparent_hugepage/enabled), wanted never" });
}

static void test_preflight_invalid(void **state) {
        struct cpulist cpus = { 0 }, one;
        assert_int_equal(cpulist_parse("0", &one), 0);
        cJSON *m = cJSON_CreateArray();
        struct host_requirements ok = { .governor = "performance" };
        assert_int_equal(host_preflight(fixture_root("numa2"), &ok, &cpus, m), -EINVAL);
        struct host_requirements bad_gov = { .governor = "perf ormance" };
        assert_int_equal(host_preflight(fixture_root("numa2"), &bad_gov, &one, m), -EINVAL);
        struct host_requirements bad_smt = { .smt = (enum host_smt_want) 7 };
        assert_int_equal(host_preflight(fixture_root("numa2"), &bad_smt, &one, m), -EINVAL);

        struct host_requirements too_long = { .governor = "ondemand-low_16x" };
        assert_int_equal(host_preflight(fixture_root("numa2"), &too_long, &one, m), -EINVAL);
        assert_int_equal(cJSON_GetArraySize(m), 0);
        cJSON_Delete(m);

        assert_true(governor_name_valid("schedutil"));
        assert_true(governor_name_valid("ondemand-low_15"));
        assert_false(governor_name_valid(NULL));
        assert_false(governor_name_valid(""));
        assert_false(governor_name_valid("../../etc"));
        assert_false(governor_name_valid("Performance"));
        assert_false(governor_name_valid("a-very-long-governor"));
}

static struct host_cpu_freq cpu(unsigned n, const char *gov, double mean, double min, double max) {
        struct host_cpu_freq c = { .cpu = n, .samples = mean > 0 ? 10 : 0, .mean_mhz = mean,
                                   .min_mhz = min, .max_mhz = max };
        snprintf(c.governor, sizeof c.governor, "%s", gov);
        return c;
}

/* Runs one warning function and checks its sentences. */
static void expect_warnings(int (*fn)(const struct host_cpu_freq *, size_t, cJSON *),
                            const struct host_cpu_freq *cpus, size_t n, int count, const char *const *expect) {
        cJSON *w = cJSON_CreateArray();
        assert_int_equal(fn(cpus, n, w), count);
        assert_int_equal(cJSON_GetArraySize(w), count);
        for (int i = 0; i < count; i++)
                assert_string_equal(cJSON_GetArrayItem(w, i)->valuestring, expect[i]);
        cJSON_Delete(w);
}

static void test_warn_governor(void **state) {
        struct host_cpu_freq c[10];
        for (unsigned i = 0; i < 8; i++)
                c[i] = cpu(8 + i, "powersave", 1200, 1200, 1200);
        c[8] = cpu(16, "performance", 3000, 3000, 3000);
        c[9] = cpu(17, "schedutil", 3000, 3000, 3000);
        /* the design's example sentence */
        expect_warnings(host_warn_governor, c, 10, 2,
                        (const char *const[]){ "governor is powersave on cpus 8-15", "governor is schedutil on cpu 17" });
        expect_warnings(host_warn_governor, &c[8], 1, 0, NULL);

        c[8].governor_changed = true;
        snprintf(c[8].governor_last, sizeof c[8].governor_last, "powersave");
        expect_warnings(host_warn_governor, &c[8], 1, 1,
                        (const char *const[]){ "governor changed during the run on cpu 16 (performance, then powersave)" });
}

static void test_warn_unknown(void **state) {
        struct host_cpu_freq c[3] = { cpu(0, "", 0, 0, 0), cpu(1, "", 0, 0, 0), cpu(2, "performance", 2000, 2000, 2000) };
        snprintf(c[0].reason, sizeof c[0].reason, "cpufreq not exposed (no /sys/devices/system/cpu/cpu0/cpufreq)");
        expect_warnings(host_warn_cpufreq_unknown, c, 3, 1,
                        (const char *const[]){ "governor and frequency unknown on cpus 0-1: cpufreq not exposed "
                                               "(no /sys/devices/system/cpu/cpu0/cpufreq)" });
        /* governor known but no frequency reading succeeded */
        c[2].samples = 0;
        expect_warnings(host_warn_cpufreq_unknown, c, 3, 2,
                        (const char *const[]){ "governor unknown on cpus 0-1: cpufreq not exposed "
                                               "(no /sys/devices/system/cpu/cpu0/cpufreq)",
                                               "frequency unknown on cpus 0-2: cpufreq not exposed "
                                               "(no /sys/devices/system/cpu/cpu0/cpufreq)" });
        expect_warnings(host_warn_cpufreq_unknown, &c[2], 1, 1,
                        (const char *const[]){ "frequency unknown on cpu 2: no reading succeeded" });
}

static void test_warn_frequencies(void **state) {
        /* means 2000 and 2200: exactly 10% apart is not "more than 10%" */
        struct host_cpu_freq c[3] = { cpu(8, "performance", 2000, 2000, 2000), cpu(9, "performance", 2200, 2200, 2200),
                                      cpu(10, "", 0, 0, 0) };
        expect_warnings(host_warn_freq_spread, c, 3, 0, NULL);
        c[1] = cpu(9, "performance", 2500, 2500, 2500);
        expect_warnings(host_warn_freq_spread, c, 3, 1,
                        (const char *const[]){ "frequencies differ by 25% between the run's CPUs: mean 2500 MHz on "
                                               "cpu 9, 2000 MHz on cpu 8" });

        /* moving: cpu 8 by 10% (not warned), cpu 9 by 20%, cpu 11 by 100% (the worst, shown) */
        struct host_cpu_freq m[4] = { cpu(8, "performance", 2100, 2000, 2200), cpu(9, "performance", 2300, 2000, 2400),
                                      cpu(10, "", 0, 0, 0), cpu(11, "performance", 1800, 1200, 2400) };
        expect_warnings(host_warn_freq_moved, m, 4, 1,
                        (const char *const[]){ "frequency moved by more than 10% during measure on cpus 9,11 "
                                               "(cpu 11: 1200 to 2400 MHz, mean 1800 MHz)" });
        expect_warnings(host_warn_freq_moved, m, 1, 0, NULL);

        /* all CPU warnings together, in order */
        struct host_cpu_freq all[2] = { cpu(0, "powersave", 1000, 800, 1200), cpu(1, "performance", 3000, 3000, 3000) };
        expect_warnings(host_warn_cpus, all, 2, 3,
                        (const char *const[]){ "governor is powersave on cpu 0",
                                               "frequencies differ by 200% between the run's CPUs: mean 3000 MHz "
                                               "on cpu 1, 1000 MHz on cpu 0",
                                               "frequency moved by more than 10% during measure on cpu 0 (cpu 0: "
                                               "800 to 1200 MHz, mean 1000 MHz)" });
}

static void test_warn_swap(void **state) {
        cJSON *w = cJSON_CreateArray();
        struct host_meminfo none = { .have_swap = true, .swap_total_bytes = 1 << 30, .swap_free_bytes = 1 << 30 };
        assert_int_equal(host_warn_swap(&none, w), 0);
        struct host_meminfo unknown = { .have_swap = false, .swap_total_bytes = 1 << 30 };
        assert_int_equal(host_warn_swap(&unknown, w), 0);
        struct host_meminfo used = { .have_swap = true, .swap_total_bytes = UINT64_C(2) << 30,
                                     .swap_free_bytes = (UINT64_C(2) << 30) - (UINT64_C(3) << 19) };
        assert_int_equal(host_warn_swap(&used, w), 1);
        assert_string_equal(cJSON_GetArrayItem(w, 0)->valuestring, "swap in use: 1.5 MiB of 2048.0 MiB");
        cJSON_Delete(w);

        struct host_meminfo m;
        assert_int_equal(host_read_meminfo(fixture_root("numa2"), &m), 0);
        assert_true(m.have_total && m.have_swap);
        assert_true(m.swap_total_bytes - m.swap_free_bytes == UINT64_C(512) << 20);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_preflight_governor),
                cmocka_unit_test(test_preflight_smt_thp),
                cmocka_unit_test(test_preflight_invalid),
                cmocka_unit_test(test_warn_governor),
                cmocka_unit_test(test_warn_unknown),
                cmocka_unit_test(test_warn_frequencies),
                cmocka_unit_test(test_warn_swap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
