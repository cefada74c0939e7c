/* test-run-plan.c: what a run is built from its definition (daemon/run-plan.h): the slices'
 * limits with the quota in microseconds, the CPUs a run uses, the SUT's argv (the JVM flags
 * before the cell's jvm_args) and environment, the load's argv and environment, the deadline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "basic/cpulist.h"
#include "basic/host-limits.h"
#include "basic/macro.h"
#include "daemon/run-plan.h"
#include "definition/definition.h"

#define DIR "/var/lib/slicelab/runs/r1"

/* Two cells on a JVM with an injector on cpus 0-1: "a" pinned with a quota, its own LANG and a
 * jvm_arg; "b" with nothing of its own. */
static const char jvm_body[] =
        "{\"name\":\"plan\",\"sut\":{\"command\":[\"java\",\"-Xmx1g\",\"-jar\",\"app.jar\"],\"jvm\":true,"
        "\"env\":{\"TZ\":\"UTC\",\"PATH\":\"/opt/jdk/bin\"},\"memory_max\":\"2G\"},"
        "\"load\":{\"target\":\"http://LocalHost:9080/work?x=1\",\"rate\":6000,\"arrival\":\"poisson\","
        "\"connections\":8,\"timeout_ms\":500,\"warmup_s\":10,\"measure_s\":200,\"cpus\":\"0-1\"},"
        "\"cells\":[{\"name\":\"a\",\"cpus\":\"2-3\",\"cpu_quota\":1.5,\"cpu_period_us\":50000,"
        "\"cpu_burst_us\":1000,\"memory_max\":\"1G\",\"env\":{\"LANG\":\"en_US.UTF-8\"},"
        "\"jvm_args\":[\"-XX:-UseContainerSupport\"]},{\"name\":\"b\"}]}";

/* The C control benchmark: no load, not a JVM. */
static const char spin_body[] =
        "{\"name\":\"spin\",\"sut\":{\"command\":[\"slicelab-spin\",\"--threads\",\"2\"]},"
        "\"cells\":[{\"name\":\"half\",\"cpus\":\"5\",\"cpu_quota\":0.5}]}";

/* An external load without a cpuset of its own. */
static const char external_body[] =
        "{\"name\":\"ext\",\"sut\":{\"command\":[\"/usr/bin/server\"]},"
        "\"load\":{\"command\":[\"wrk\",\"-t2\",\"http://127.0.0.1:9080/\"],\"timeline\":\"t.bin\",\"timeout_s\":90},"
        "\"cells\":[{\"name\":\"a\",\"cpus\":\"4-5\"}]}";

static struct host_limits host;

static int setup(void **state) {
        if (cpulist_parse("0-7", &host.cpus) < 0 || cpulist_parse("0", &host.mems) < 0)
                return -1;
        host.memory_bytes = UINT64_C(64) << 30;
        return 0;
}

static struct definition *parse(const char *body) {
        struct definition *d = NULL;
        struct error err = { 0 };
        int r = definition_parse(body, strlen(body), &host, &d, &err);
        if (r < 0)
                fail_msg("%s: %s", err.field, err.message);
        return d;
}

static void assert_cpus(const struct cpulist *c, const char *want) {
        char buf[256];
        assert_int_equal(cpulist_format(c, buf, sizeof buf), 0);
        assert_string_equal(buf, want);
}

/* The value after OPTION in an argv, or NULL. */
static const char *argv_option(char **argv, const char *option) {
        for (size_t i = 0; argv[i] && argv[i + 1]; i++)
                if (strcmp(argv[i], option) == 0)
                        return argv[i + 1];
        return NULL;
}

static void assert_strv(char **l, const char *const *want, size_t n) {
        for (size_t i = 0; i < n; i++) {
                assert_non_null(l[i]);
                assert_string_equal(l[i], want[i]);
        }
        assert_null(l[n]);
}

static void test_limits(void **state) {
        _cleanup_(definition_freep) struct definition *d = parse(jvm_body);
        struct slice_limits sut, load;

        run_plan_limits(d, 0, &sut, &load);
        assert_cpus(&sut.cpus, "2-3");
        assert_false(sut.has_mems);
        assert_int_equal(sut.cpu_quota_us, 75000); /* 1.5 CPUs x 50 ms, as the definition rounded it */
        assert_int_equal(sut.cpu_quota_us, d->cells[0].cpu_quota_us);
        assert_int_equal(sut.cpu_period_us, 50000);
        assert_int_equal(sut.cpu_burst_us, 1000);
        assert_int_equal(sut.memory_max, UINT64_C(1) << 30);
        assert_true(sut.pids_max > 0);
        assert_cpus(&load.cpus, "0-1");
        assert_int_equal(load.cpu_quota_us, 0);
        assert_int_equal(load.memory_max, UINT64_C(1) << 30);   /* the load slice's default */
        assert_true(load.pids_max > 0);

        /* a cell of its own nothing: every CPU of the root, unlimited, sut.memory_max */
        run_plan_limits(d, 1, &sut, &load);
        assert_cpus(&sut.cpus, "");
        assert_int_equal(sut.cpu_quota_us, 0);
        assert_int_equal(sut.cpu_burst_us, 0);
        assert_int_equal(sut.memory_max, UINT64_C(2) << 30);

        _cleanup_(definition_freep) struct definition *spin = parse(spin_body);
        run_plan_limits(spin, 0, &sut, &load);
        assert_int_equal(sut.cpu_quota_us, 50000); /* 0.5 x the default period */
        assert_cpus(&load.cpus, "");
}

static void test_cpus(void **state) {
        _cleanup_(definition_freep) struct definition *d = parse(jvm_body);
        _cleanup_(definition_freep) struct definition *spin = parse(spin_body);
        _cleanup_(definition_freep) struct definition *ext = parse(external_body);
        struct run_cpus c;

        run_plan_cpus(d, 0, &host.cpus, &c);
        assert_cpus(&c.sut, "2-3");
        assert_cpus(&c.load, "0-1");
        assert_cpus(&c.all, "0-3");

        /* a slice without a cpuset runs on every online CPU */
        run_plan_cpus(d, 1, &host.cpus, &c);
        assert_cpus(&c.sut, "0-7");
        assert_cpus(&c.all, "0-7");
        run_plan_cpus(ext, 0, &host.cpus, &c);
        assert_cpus(&c.sut, "4-5");
        assert_cpus(&c.load, "0-7");

        /* without load the run uses the SUT's CPUs only */
        run_plan_cpus(spin, 0, &host.cpus, &c);
        assert_cpus(&c.load, "");
        assert_cpus(&c.all, "5");

        /* the daemon's own reading of the online CPUs is never empty */
        struct cpulist online;
        assert_int_equal(cpulist_read_online(&online), 0);
        assert_true(cpulist_count(&online) > 0);
}

static void test_sut_argv(void **state) {
        _cleanup_(definition_freep) struct definition *d = parse(jvm_body);
        _cleanup_(definition_strv_freep) char **argv = NULL;
        assert_int_equal(run_plan_sut_argv(d, 0, DIR, &argv), 0);
        static const char *const want[] = {
                "java",
                "-XX:+PrintFlagsFinal",
                "-Xlog:gc*,safepoint:file=" DIR "/gc.log:uptimenanos,timenanos,level,tags:filecount=5,filesize=20m",
                "-XX:+PerfDataSaveToFile",
                "-XX:PerfDataSaveFile=" DIR "/hsperfdata",
                "-XX:-UseContainerSupport", /* after the design's flags: a cell may override them */
                "-Xmx1g", "-jar", "app.jar",
        };
        assert_strv(argv, want, ELEMENTSOF(want));

        /* not a JVM: the command as given */
        _cleanup_(definition_freep) struct definition *spin = parse(spin_body);
        _cleanup_(definition_strv_freep) char **plain = NULL;
        assert_int_equal(run_plan_sut_argv(spin, 0, DIR, &plain), 0);
        static const char *const want_plain[] = { "slicelab-spin", "--threads", "2" };
        assert_strv(plain, want_plain, ELEMENTSOF(want_plain));
}

static void test_sut_env(void **state) {
        _cleanup_(definition_freep) struct definition *d = parse(jvm_body);
        _cleanup_(definition_strv_freep) char **a = NULL, **b = NULL;

        /* the definition's first (sorted, the cell's winning), then what it left unset */
        assert_int_equal(run_plan_sut_env(d, 0, DIR, &a), 0);
        static const char *const want_a[] = { "LANG=en_US.UTF-8", "PATH=/opt/jdk/bin", "TZ=UTC", "HOME=" DIR };
        assert_strv(a, want_a, ELEMENTSOF(want_a));

        assert_int_equal(run_plan_sut_env(d, 1, DIR, &b), 0);
        static const char *const want_b[] = { "PATH=/opt/jdk/bin", "TZ=UTC", "HOME=" DIR, "LANG=C.UTF-8" };
        assert_strv(b, want_b, ELEMENTSOF(want_b));
}

static void test_load(void **state) {
        _cleanup_(definition_freep) struct definition *d = parse(jvm_body);
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL, **ext_argv = NULL;

        assert_int_equal(run_plan_load_argv(d, DIR, "/usr/bin/slicelab-inject", &argv), 0);
        static const char *const want[] = {
                "/usr/bin/slicelab-inject",
                "--url", "http://localhost:9080/work?x=1", /* as canonical JSON writes it */
                "--rate", "6000", "--arrival", "poisson",
                "--connections", "8", "--warmup", "10s", "--duration", "200s", "--timeout", "500ms",
                "--timeline", DIR "/timeline.bin", "--summary", DIR "/summary.json",
        };
        assert_strv(argv, want, ELEMENTSOF(want));
        assert_int_equal(run_plan_deadline_s(d), 210 + 52); /* the phases and a quarter of them */

        /* the URL the injector gets is the one the stored definition shows */
        char canonical[256];
        def_format_url(canonical, sizeof canonical, &d->load.target);
        assert_string_equal(argv[2], canonical);
        assert_non_null(strstr(d->canonical, "\"target\":\"http://localhost:9080/work?x=1\""));

        assert_int_equal(run_plan_load_env(&env), 0);
        static const char *const want_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8" };
        assert_strv(env, want_env, ELEMENTSOF(want_env));

        _cleanup_(definition_freep) struct definition *ext = parse(external_body);
        assert_int_equal(run_plan_load_argv(ext, DIR, "/usr/bin/slicelab-inject", &ext_argv), 0);
        static const char *const want_ext[] = { "wrk", "-t2", "http://127.0.0.1:9080/" };
        assert_strv(ext_argv, want_ext, ELEMENTSOF(want_ext));
        assert_int_equal(run_plan_deadline_s(ext), 90);

        _cleanup_(definition_freep) struct definition *spin = parse(spin_body);
        char **none = NULL;
        assert_int_equal(run_plan_load_argv(spin, DIR, "/usr/bin/slicelab-inject", &none), -EINVAL);
        assert_null(none);
        assert_int_equal(run_plan_deadline_s(spin), 24 * 3600);
}

/* A capacity step: the step's rate and phases, its own timeline and summary; the run's one load
 * argv does not apply, and the deadline is a step's. */
static void test_capacity_step(void **state) {
        static const char body[] =
                "{\"name\":\"c\",\"sut\":{\"command\":[\"java\",\"-jar\",\"a.jar\"],\"jvm\":true},"
                "\"load\":{\"target\":\"http://127.0.0.1:9080/work\",\"mode\":\"capacity\","
                "\"sla\":[{\"percentile\":99,\"max_ms\":20}],\"rate_min\":100,\"rate_max\":2000,"
                "\"step\":{\"warmup_s\":1,\"measure_s\":2},\"connections\":64},"
                "\"cells\":[{\"name\":\"a\",\"cpus\":\"0\"}]}";
        _cleanup_(definition_freep) struct definition *d = parse(body);
        _cleanup_(definition_strv_freep) char **argv = NULL;
        char **none = NULL;
        assert_int_equal(run_plan_step_argv(d, DIR, "/usr/bin/slicelab-inject", 3, 447.2135955, &argv), 0);
        static const char *const want[] = {
                "/usr/bin/slicelab-inject", "--url", "http://127.0.0.1:9080/work",
                "--rate", "447.214", "--arrival", "uniform",
                "--connections", "64", "--warmup", "1s", "--duration", "2s", "--timeout", "5000ms",
                "--timeline", DIR "/timeline-step-3.bin", "--summary", DIR "/summary-step-3.json",
        };
        assert_strv(argv, want, ELEMENTSOF(want));
        assert_int_equal(run_plan_load_argv(d, DIR, "/usr/bin/slicelab-inject", &none), -EINVAL);
        assert_null(none);
        assert_true(run_plan_deadline_s(d) >= 3 && run_plan_deadline_s(d) <= 3 + 60);
}

/* The search's own warmup (load.warmup_s in mode capacity) lengthens step 0's warmup only, and
 * the deadline a step's start arms covers step 0's phases. */
static void test_capacity_search_warmup(void **state) {
        static const char body[] =
                "{\"name\":\"c\",\"sut\":{\"command\":[\"java\",\"-jar\",\"a.jar\"],\"jvm\":true},"
                "\"load\":{\"target\":\"http://127.0.0.1:9080/work\",\"mode\":\"capacity\","
                "\"sla\":[{\"percentile\":99,\"max_ms\":20}],\"rate_min\":100,\"rate_max\":2000,"
                "\"warmup_s\":5,\"step\":{\"warmup_s\":1,\"measure_s\":2}},"
                "\"cells\":[{\"name\":\"a\",\"cpus\":\"0\"}]}";
        _cleanup_(definition_freep) struct definition *d = parse(body);
        _cleanup_(definition_strv_freep) char **first = NULL, **later = NULL;
        assert_int_equal(run_plan_step_argv(d, DIR, "/usr/bin/slicelab-inject", 0, 447.2135955, &first), 0);
        assert_int_equal(run_plan_step_argv(d, DIR, "/usr/bin/slicelab-inject", 1, 800, &later), 0);
        assert_string_equal(argv_option(first, "--warmup"), "6s");
        assert_string_equal(argv_option(later, "--warmup"), "1s");
        assert_string_equal(argv_option(first, "--duration"), "2s");
        assert_true(run_plan_deadline_s(d) >= 5 + 1 + 2);
}

/* load.warmup_s "auto": the injector warms for at most warmup_max_s, until the daemon's SIGUSR1;
 * the deadline counts the bound whole. */
static void test_warmup_auto(void **state) {
        static const char body[] =
                "{\"name\":\"w\",\"sut\":{\"command\":[\"java\",\"-jar\",\"a.jar\"],\"jvm\":true},"
                "\"load\":{\"target\":\"http://127.0.0.1:9080/work\",\"rate\":100,\"warmup_s\":\"auto\","
                "\"warmup_max_s\":90,\"measure_s\":5},\"cells\":[{\"name\":\"a\",\"cpus\":\"0\"}]}";
        _cleanup_(definition_freep) struct definition *d = parse(body);
        _cleanup_(definition_strv_freep) char **argv = NULL;
        assert_true(d->load.warmup_auto);
        assert_int_equal(run_plan_load_argv(d, DIR, "/usr/bin/slicelab-inject", &argv), 0);
        assert_string_equal(argv_option(argv, "--warmup"), "90s");
        bool flag = false;
        for (char **a = argv; *a; a++)
                flag = flag || strcmp(*a, "--warmup-until-signal") == 0;
        assert_true(flag);
        assert_true(run_plan_deadline_s(d) >= 90 + 5);
        assert_non_null(strstr(d->canonical, "\"warmup_s\":\"auto\",\"warmup_max_s\":90"));

        _cleanup_(definition_freep) struct definition *fixed = parse(jvm_body);
        _cleanup_(definition_strv_freep) char **fixed_argv = NULL;
        assert_int_equal(run_plan_load_argv(fixed, DIR, "/usr/bin/slicelab-inject", &fixed_argv), 0);
        for (char **a = fixed_argv; *a; a++)
                assert_string_not_equal(*a, "--warmup-until-signal");
}

/* A load run for another host: the run's injector plus the start in the peer's clock, the seed
 * (open loop) and the phase (uniform only, when not 0); the closed loop takes neither. */
static void test_peer_load(void **state) {
        _cleanup_(definition_freep) struct definition *poisson = parse(jvm_body);
        _cleanup_(definition_strv_freep) char **argv = NULL, **uniform_argv = NULL, **max_argv = NULL;
        const struct run_plan_peer peer = { .start_at_ns = 1000000000123, .phase_ns = 0, .seed = 42 };
        assert_int_equal(run_plan_peer_load_argv(poisson, DIR, "/usr/bin/slicelab-inject", &peer, &argv), 0);
        static const char *const want[] = {
                "/usr/bin/slicelab-inject",
                "--url", "http://localhost:9080/work?x=1",
                "--rate", "6000", "--arrival", "poisson",
                "--connections", "8", "--warmup", "10s", "--duration", "200s", "--timeout", "500ms",
                "--timeline", DIR "/timeline.bin", "--summary", DIR "/summary.json",
                "--start-at", "1000000000123", "--seed", "42",
        };
        assert_strv(argv, want, ELEMENTSOF(want));

        static const char uniform_body[] =
                "{\"name\":\"u\",\"sut\":{\"command\":[\"/bin/true\"]},"
                "\"load\":{\"target\":\"http://10.0.0.1:9080/\",\"rate\":500,\"warmup_s\":2,\"measure_s\":5},"
                "\"cells\":[{\"name\":\"a\"}]}";
        _cleanup_(definition_freep) struct definition *uniform = parse(uniform_body);
        const struct run_plan_peer phased = { .start_at_ns = 7, .phase_ns = 999999, .seed = 1 };
        assert_int_equal(run_plan_peer_load_argv(uniform, DIR, "/i", &phased, &uniform_argv), 0);
        static const char *const want_uniform[] = {
                "/i", "--url", "http://10.0.0.1:9080/", "--rate", "500", "--arrival", "uniform",
                "--connections", "32", "--warmup", "2s", "--duration", "5s", "--timeout", "5000ms",
                "--timeline", DIR "/timeline.bin", "--summary", DIR "/summary.json",
                "--start-at", "7", "--seed", "1", "--phase", "999999",
        };
        assert_strv(uniform_argv, want_uniform, ELEMENTSOF(want_uniform));

        static const char max_body[] =
                "{\"name\":\"m\",\"sut\":{\"command\":[\"/bin/true\"]},"
                "\"load\":{\"target\":\"http://10.0.0.1:9080/\",\"mode\":\"max\",\"warmup_s\":0,\"measure_s\":5},"
                "\"cells\":[{\"name\":\"a\"}]}";
        _cleanup_(definition_freep) struct definition *max = parse(max_body);
        assert_int_equal(run_plan_peer_load_argv(max, DIR, "/i", &phased, &max_argv), 0);
        static const char *const want_max[] = {
                "/i", "--url", "http://10.0.0.1:9080/", "--mode", "max",
                "--connections", "32", "--warmup", "0s", "--duration", "5s", "--timeout", "5000ms",
                "--timeline", DIR "/timeline.bin", "--summary", DIR "/summary.json", "--start-at", "7",
        };
        assert_strv(max_argv, want_max, ELEMENTSOF(want_max));

        _cleanup_(definition_freep) struct definition *ext = parse(external_body);
        char **none = NULL;
        assert_int_equal(run_plan_peer_load_argv(ext, DIR, "/i", &peer, &none), -EINVAL);
        assert_null(none);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_peer_load),
                cmocka_unit_test(test_capacity_step),
                cmocka_unit_test(test_capacity_search_warmup),
                cmocka_unit_test(test_warmup_auto),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_cpus),
                cmocka_unit_test(test_sut_argv),
                cmocka_unit_test(test_sut_env),
                cmocka_unit_test(test_load),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
