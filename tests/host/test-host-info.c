/* test-host-info.c: GET /v1/host's document from the fixture trees (a two-socket NUMA box
 * with cpufreq and a VM without) and from the real host, which must answer null with a reason
 * where it exposes nothing, not crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host/host-info.h"
#include "host/host-java.h"
#include "host-test-util.h"
#include "basic/macro.h"

static const struct host_info_options no_java = { .skip_java = true };

static const cJSON *get(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!v)
                fail_msg("missing key \"%s\"", key);
        return v;
}

static double num(const cJSON *o, const char *key) {
        const cJSON *v = get(o, key);
        assert_true(cJSON_IsNumber(v));
        return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key) {
        const cJSON *v = get(o, key);
        if (!cJSON_IsString(v))
                fail_msg("\"%s\" is not a string", key);
        return v->valuestring;
}

static const cJSON *cpu_entry(const cJSON *info, int cpu) {
        const cJSON *c;
        cJSON_ArrayForEach(c, get(info, "cpus"))
                if (num(c, "cpu") == cpu)
                        return c;
        fail_msg("no cpu %d", cpu);
        return NULL;
}

static void test_numa2(void **state) {
        cJSON *info = NULL;
        assert_int_equal(host_info_json(fixture_root("numa2"), &no_java, &info), 0);

        assert_string_equal(str(info, "cpus_online"), "0-15");
        assert_true(num(info, "cpu_count") == 16);
        const cJSON *topo = get(info, "topology");
        assert_true(num(topo, "sockets") == 2);
        assert_true(num(topo, "cores") == 8);
        assert_true(num(topo, "threads_per_core") == 2);
        assert_true(cJSON_IsTrue(get(get(topo, "smt"), "active")));
        assert_string_equal(str(get(topo, "smt"), "control"), "on");
        const cJSON *nodes = get(topo, "numa_nodes");
        assert_int_equal(cJSON_GetArraySize(nodes), 2);
        assert_string_equal(str(cJSON_GetArrayItem(nodes, 0), "cpus"), "0-3,8-11");
        assert_string_equal(str(cJSON_GetArrayItem(nodes, 1), "cpus"), "4-7,12-15");

        const cJSON *c0 = cpu_entry(info, 0), *c13 = cpu_entry(info, 13);
        assert_string_equal(str(c0, "governor"), "performance");
        assert_string_equal(str(c13, "governor"), "powersave");
        assert_string_equal(str(c13, "driver"), "intel_pstate");
        assert_true(num(c0, "freq_mhz") == 3000);
        assert_true(num(c13, "freq_mhz") == 1200);
        assert_true(num(c13, "min_mhz") == 800);
        assert_true(num(c13, "max_mhz") == 3500);
        assert_true(num(c13, "socket") == 1);
        assert_true(num(c13, "core") == 1);
        assert_true(num(c13, "node") == 1);
        assert_string_equal(str(c13, "thread_siblings"), "5,13");
        assert_null(cJSON_GetObjectItem(c13, "cpufreq_reason"));

        const cJSON *freq = get(info, "cpufreq");
        assert_string_equal(str(freq, "exposed_cpus"), "0-15");
        assert_true(cJSON_IsTrue(get(freq, "boost")));
        assert_string_equal(str(freq, "boost_source"), "intel_pstate/no_turbo");
        assert_string_equal(str(get(info, "thp"), "enabled"), "always");
        assert_string_equal(str(get(info, "thp"), "defrag"), "madvise");
        assert_string_equal(str(get(info, "kernel"), "release"), "6.1.0-18-amd64");
        assert_string_equal(str(info, "cpu_model"), "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
        const cJSON *mem = get(info, "memory");
        assert_true(num(mem, "total_bytes") == 131072000.0 * 1024);
        assert_true(num(mem, "swap_used_bytes") == 512.0 * 1024 * 1024);
        assert_true(cJSON_IsNull(get(info, "java")));

        const cJSON *w = get(info, "warnings");
        assert_true(json_array_has(w, "governor is powersave on cpus 8-15"));
        assert_true(json_array_has(w, "swap in use: 512.0 MiB of 2048.0 MiB"));
        assert_int_equal(cJSON_GetArraySize(w), 2);
        cJSON_Delete(info);
}

static void test_vm_without_cpufreq(void **state) {
        cJSON *info = NULL;
        assert_int_equal(host_info_json(fixture_root("vm"), &no_java, &info), 0);
        const cJSON *topo = get(info, "topology");
        assert_true(num(topo, "sockets") == 1);
        assert_true(num(topo, "cores") == 2);
        assert_true(num(topo, "threads_per_core") == 1);
        assert_true(cJSON_IsFalse(get(get(topo, "smt"), "active")));
        assert_string_equal(str(get(topo, "smt"), "control"), "notsupported");

        for (int cpu = 0; cpu < 2; cpu++) {
                const cJSON *c = cpu_entry(info, cpu);
                assert_true(cJSON_IsNull(get(c, "governor")));
                assert_true(cJSON_IsNull(get(c, "freq_mhz")));
                assert_true(cJSON_IsNull(get(c, "max_mhz")));
                char want[128];
                snprintf(want, sizeof want, "cpufreq not exposed (no /sys/devices/system/cpu/cpu%d/cpufreq)", cpu);
                assert_string_equal(str(c, "cpufreq_reason"), want);
        }
        const cJSON *freq = get(info, "cpufreq");
        assert_string_equal(str(freq, "exposed_cpus"), "");
        assert_true(cJSON_IsNull(get(freq, "boost")));
        assert_non_null(strstr(str(freq, "boost_reason"), "neither"));
        assert_string_equal(str(get(info, "thp"), "enabled"), "madvise");
        assert_true(num(get(info, "memory"), "swap_used_bytes") == 0);

        const cJSON *w = get(info, "warnings");
        assert_true(json_array_has(w, "governor and frequency unknown on cpus 0-1: cpufreq not exposed "
                                      "(no /sys/devices/system/cpu/cpu0/cpufreq)"));
        assert_int_equal(cJSON_GetArraySize(w), 1);
        cJSON_Delete(info);
}

static void test_missing_root(void **state) {
        cJSON *info = (cJSON *) 0x1;
        assert_int_equal(host_info_json("/nonexistent/slicelab", &no_java, &info), -ENOENT);
        assert_true(info == (cJSON *) 0x1);
}

/* Whatever this machine is, every CPU has a governor or says why not, and the facts agree
 * with what libc and the kernel report by other routes. */
static void test_real_host(void **state) {
        cJSON *info = NULL;
        assert_int_equal(host_info_json("", NULL, &info), 0);
        assert_true(num(info, "cpu_count") == sysconf(_SC_NPROCESSORS_ONLN));
        struct utsname u;
        assert_int_equal(uname(&u), 0);
        assert_string_equal(str(get(info, "kernel"), "release"), u.release);
        assert_string_equal(str(get(info, "kernel"), "machine"), u.machine);

        const cJSON *c;
        cJSON_ArrayForEach(c, get(info, "cpus")) {
                char dir[128];
                struct stat st;
                snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cpufreq", (int) num(c, "cpu"));
                if (stat(dir, &st) == 0) {
                        assert_true(cJSON_IsString(get(c, "governor")));
                } else {
                        assert_true(cJSON_IsNull(get(c, "governor")));
                        assert_true(cJSON_IsNull(get(c, "freq_mhz")));
                        assert_true(strlen(str(c, "cpufreq_reason")) > 0);
                }
        }
        char java[PATH_MAX];
        if (host_java_find(getenv("PATH"), java, sizeof java) == 0) {
                const cJSON *j = get(info, "java");
                assert_string_equal(str(j, "path"), java);
                assert_true(strlen(str(j, "version")) > 0);
        } else {
                assert_true(cJSON_IsNull(get(info, "java")));
                assert_string_equal(str(info, "java_reason"), "no java on PATH");
        }
        _cleanup_free_ char *text = cJSON_Print(info);
        fputs(text, stdout); /* for the log: what this host looks like */
        fputc('\n', stdout);
        cJSON_Delete(info);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_numa2),
                cmocka_unit_test(test_vm_without_cpufreq),
                cmocka_unit_test(test_missing_root),
                cmocka_unit_test(test_real_host),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
