/* test-host-freq.c: the frequency sampler over a scratch sysfs tree whose files the test
 * rewrites between samples, over the committed fixtures, and over the real host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "alloc-count.h"
#include "host/host-cpufreq.h"
#include "host-test-util.h"
#include "test-tmp.h"
#include "basic/json-util.h"

static void set_freq(const char *root, unsigned cpu, const char *khz) {
        char path[128];
        snprintf(path, sizeof path, "sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq", cpu);
        tmp_put(root, path, khz);
}

static void set_governor(const char *root, unsigned cpu, const char *gov) {
        char path[128];
        snprintf(path, sizeof path, "sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
        tmp_put(root, path, gov);
}

/* cpus 2 and 3 with cpufreq, cpu 5 without */
static char *make_tree(void) {
        char *root = tmp_dir_new("host");
        set_freq(root, 2, "2000000\n");
        set_freq(root, 3, "1000000\n");
        set_governor(root, 2, "performance\n");
        set_governor(root, 3, "powersave\n");
        tmp_put(root, "sys/devices/system/cpu/cpu5/topology/core_id", "5\n");
        return root;
}

static const struct host_cpu_freq *find(const struct host_freq_sampler *s, unsigned cpu) {
        size_t n;
        const struct host_cpu_freq *c = host_freq_sampler_cpus(s, &n);
        for (size_t i = 0; i < n; i++)
                if (c[i].cpu == cpu)
                        return &c[i];
        fail_msg("cpu %u not sampled", cpu);
        return NULL;
}

static void test_sampling(void **state) {
        char *root = make_tree();
        struct cpulist cpus;
        assert_int_equal(cpulist_parse("2-3,5", &cpus), 0);
        int fds_before = count_open_fds();
        struct host_freq_sampler *s = NULL;
        assert_int_equal(host_freq_sampler_new(root, &cpus, &s), 0);

        /* cpu 2: 2000, 2600, 2300 MHz; cpu 3 stays at 1000 */
        host_freq_sampler_sample(s);
        set_freq(root, 2, "2600000\n");
        host_freq_sampler_sample(s);
        set_freq(root, 2, "2300000"); /* no newline: also accepted */
        host_freq_sampler_sample(s);

        const struct host_cpu_freq *c2 = find(s, 2), *c3 = find(s, 3), *c5 = find(s, 5);
        assert_int_equal(c2->samples, 3);
        assert_true(c2->min_mhz == 2000 && c2->max_mhz == 2600);
        assert_true(c2->mean_mhz > 2299.999 && c2->mean_mhz < 2300.001);
        assert_string_equal(c2->governor, "performance");
        assert_false(c2->governor_changed);
        assert_true(c3->mean_mhz == 1000 && c3->min_mhz == 1000 && c3->max_mhz == 1000);
        assert_string_equal(c3->governor, "powersave");
        assert_int_equal(c5->samples, 0);
        assert_string_equal(c5->governor, "");
        assert_string_equal(c5->reason, "cpufreq not exposed (no /sys/devices/system/cpu/cpu5/cpufreq)");

        /* the design's "cpu" object */
        size_t n;
        const struct host_cpu_freq *all = host_freq_sampler_cpus(s, &n);
        assert_int_equal(n, 3);
        cJSON *j = host_cpu_freq_json(all, n);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        assert_string_equal(text,
                "{\"governor\":{\"2\":\"performance\",\"3\":\"powersave\",\"5\":null},"
                "\"freq_mhz\":{\"2\":{\"mean\":2300,\"min\":2000,\"max\":2600},"
                "\"3\":{\"mean\":1000,\"min\":1000,\"max\":1000},\"5\":null}}");

        /* a governor switched mid-run is noticed; a value that stops parsing counts as an error */
        set_governor(root, 3, "performance\n");
        set_freq(root, 3, "garbage\n");
        host_freq_sampler_sample(s);
        c3 = find(s, 3);
        assert_true(c3->governor_changed);
        assert_string_equal(c3->governor_last, "performance");
        assert_int_equal(c3->errors, 1);
        assert_int_equal(c3->samples, 3);

        /* reset at the start of measure: warmup figures are gone */
        host_freq_sampler_reset(s);
        set_freq(root, 3, "1100000\n");
        host_freq_sampler_sample(s);
        c3 = find(s, 3);
        assert_int_equal(c3->samples, 1);
        assert_true(c3->mean_mhz == 1100);
        assert_false(c3->governor_changed);
        assert_string_equal(c3->governor, "performance");

        s = host_freq_sampler_free(s);
        assert_int_equal(count_open_fds(), fds_before); /* every fd closed */
        tmp_dir_free(root);
}

static void test_sampling_allocates_nothing(void **state) {
        if (!alloc_count_available())
                skip();
        char *root = make_tree();
        struct cpulist cpus;
        assert_int_equal(cpulist_parse("2-3,5", &cpus), 0);
        struct host_freq_sampler *s = NULL;
        uint64_t setup = alloc_count();
        assert_int_equal(host_freq_sampler_new(root, &cpus, &s), 0);
        assert_true(alloc_count() > setup); /* the counter does see this code's allocations */
        uint64_t before = alloc_count();
        for (int i = 0; i < 1000; i++)
                host_freq_sampler_sample(s);
        assert_int_equal(alloc_count() - before, 0);
        assert_int_equal(find(s, 2)->samples, 1000);
        host_freq_sampler_free(s);
        tmp_dir_free(root);
}

static void test_sampler_fixture_and_errors(void **state) {
        struct cpulist cpus, none = { 0 };
        assert_int_equal(cpulist_parse("6-9", &cpus), 0);
        struct host_freq_sampler *s = NULL;
        assert_int_equal(host_freq_sampler_new(fixture_root("numa2"), &cpus, &s), 0);
        host_freq_sampler_sample(s);
        assert_true(find(s, 7)->mean_mhz == 3000);
        assert_true(find(s, 8)->mean_mhz == 1200);
        assert_string_equal(find(s, 9)->governor, "powersave");
        host_freq_sampler_free(s);

        s = (struct host_freq_sampler *) 0x1;
        assert_int_equal(host_freq_sampler_new(fixture_root("numa2"), &none, &s), -EINVAL);
        assert_true(s == (struct host_freq_sampler *) 0x1);
}

static void test_boost_sources(void **state) {
        struct host_boost b;
        assert_int_equal(host_boost_read(fixture_root("numa2"), &b), 0);
        assert_true(b.have && b.enabled);
        assert_string_equal(b.source, "intel_pstate/no_turbo");

        char *root = tmp_dir_new("host");
        tmp_put(root, "sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
        assert_int_equal(host_boost_read(root, &b), 0);
        assert_true(b.have && !b.enabled); /* no_turbo = 1: turbo off */
        /* cpufreq/boost wins where both exist */
        tmp_put(root, "sys/devices/system/cpu/cpufreq/boost", "1\n");
        assert_int_equal(host_boost_read(root, &b), 0);
        assert_true(b.have && b.enabled);
        assert_string_equal(b.source, "cpufreq/boost");
        tmp_put(root, "sys/devices/system/cpu/cpufreq/boost", "7\n");
        assert_int_equal(host_boost_read(root, &b), 0);
        assert_false(b.have);
        assert_non_null(strstr(b.reason, "not 0 or 1"));
        tmp_dir_free(root);
}

/* On the real host the sampler works whether or not cpufreq is there, and says which. */
static void test_real_host(void **state) {
        struct cpulist online;
        assert_int_equal(cpulist_read_file("/sys/devices/system/cpu/online", &online), 0);
        struct host_freq_sampler *s = NULL;
        assert_int_equal(host_freq_sampler_new("", &online, &s), 0);
        host_freq_sampler_sample(s);
        host_freq_sampler_sample(s);
        size_t n;
        const struct host_cpu_freq *c = host_freq_sampler_cpus(s, &n);
        assert_int_equal(n, cpulist_count(&online));
        for (size_t i = 0; i < n; i++) {
                struct host_cpufreq now;
                assert_int_equal(host_cpufreq_read("", c[i].cpu, &now), 0);
                if (now.have_cur)
                        assert_int_equal(c[i].samples, 2);
                else
                        assert_true(c[i].samples == 0 && strlen(c[i].reason) > 0);
        }
        cJSON *j = host_cpu_freq_json(c, n);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "governor")), (int) n);
        cJSON_Delete(j);
        host_freq_sampler_free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sampling),
                cmocka_unit_test(test_sampling_allocates_nothing),
                cmocka_unit_test(test_sampler_fixture_and_errors),
                cmocka_unit_test(test_boost_sources),
                cmocka_unit_test(test_real_host),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
