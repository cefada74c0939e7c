/* test-definition.c: the experiment definition parser against the shared table of bad
 * definitions (each on a 2-CPU fixture, a 16-CPU fixture and this host), the good definitions,
 * canonical JSON round trips, body-level attacks that a text table cannot hold, warnings, the
 * effective argv/env of a cell and run plans in each order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/cpulist.h"
#include "definition/definition.h"
#include "basic/fileio.h"
#include "basic/macro.h"

static struct host_limits host2, host16, host_real;

static void fixture(struct host_limits *h, const char *cpus, const char *mems, uint64_t mem) {
        assert_int_equal(cpulist_parse(cpus, &h->cpus), 0);
        assert_int_equal(cpulist_parse(mems, &h->mems), 0);
        h->memory_bytes = mem;
}

static int setup(void **state) {
        fixture(&host2, "0-1", "0", UINT64_C(8) << 30);
        fixture(&host16, "0-15", "0", UINT64_C(64) << 30);
        /* this host as the daemon sees it: the good/ definitions must pass here too */
        return host_limits_read(&host_real) < 0 ? -1 : 0;
}

static char *src_path(const char *rel) {
        const char *src = getenv("SLICELAB_SRC");
        char *p = NULL;
        assert_non_null(src);
        assert_true(asprintf(&p, "%s/tests/definition/%s", src, rel) > 0);
        return p;
}

static char *read_src(const char *rel, size_t *len) {
        _cleanup_free_ char *p = src_path(rel);
        char *buf = NULL;
        assert_int_equal(read_file_bounded(p, 4 << 20, &buf, len), 0);
        return buf;
}

/* Parse and expect a rejection; *ret must stay untouched. */
static void expect_error(const char *body, size_t len, const struct host_limits *host,
                         struct error *err) {
        struct definition sentinel, *d = &sentinel;
        *err = (struct error){ 0 };
        int r = definition_parse(body, len, host, &d, err);
        assert_true(r < 0);
        assert_ptr_equal(d, &sentinel);
        assert_true(err->status > 0);
        assert_true(err->code[0] != '\0');
        assert_true(err->message[0] != '\0');
}

static struct definition *expect_ok(const char *body, size_t len, const struct host_limits *host) {
        struct definition *d = NULL;
        struct error err = { 0 };
        int r = definition_parse(body, len, host, &d, &err);
        if (r < 0)
                print_error("unexpected rejection: %d %s [%s] %s\n", err.status, err.code, err.field,
                            err.message);
        assert_int_equal(r, 0);
        assert_non_null(d);
        assert_int_equal(err.status, 0);
        return d;
}

static void test_bad_table(void **state) {
        const struct host_limits *hosts[] = { &host2, &host16, &host_real };
        _cleanup_free_ char *table = read_src("bad-definitions.tsv", NULL);
        unsigned cases = 0, failures = 0, lineno = 0;
        char *save = NULL;

        for (char *line = strtok_r(table, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                lineno++; /* strtok_r skips empty lines; numbers count non-empty lines */
                if (line[0] == '#')
                        continue;
                char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
                assert_non_null(t2);
                *t1 = *t2 = '\0';
                int status = atoi(line);
                const char *field = strcmp(t1 + 1, "-") == 0 ? "" : t1 + 1, *body = t2 + 1;
                cases++;
                for (size_t h = 0; h < ELEMENTSOF(hosts); h++) {
                        struct error err;
                        expect_error(body, strlen(body), hosts[h], &err);
                        if (err.status != status || strcmp(err.field, field) != 0) {
                                print_error("case %u (host %zu): want %d [%s], got %d %s [%s] %s\n  body: %.200s\n",
                                            cases, h, status, field, err.status, err.code, err.field,
                                            err.message, body);
                                failures++;
                        }
                }
        }
        print_message("%u bad definitions checked\n", cases);
        assert_int_equal(failures, 0);
        assert_true(cases >= 40);
}

/* parse(canonical) gives canonical back, byte for byte. */
static void assert_roundtrip(const struct definition *d, const struct host_limits *host) {
        struct definition *again = expect_ok(d->canonical, strlen(d->canonical), host);
        assert_string_equal(again->canonical, d->canonical);
        char *formatted = definition_format_json(again);
        assert_string_equal(formatted, d->canonical);
        free(formatted);
        definition_free(again);
}

static void assert_plan_shape(const struct definition *d) {
        for (int o = DEFINITION_ORDER_INTERLEAVED; o <= DEFINITION_ORDER_RANDOM; o++) {
                struct definition copy = *d;
                copy.order = (enum definition_order) o;
                struct planned_run *runs = NULL;
                size_t n = 0;
                assert_int_equal(definition_plan_runs(&copy, 1, &runs, &n), 0);
                assert_int_equal(n, d->n_cells * d->iterations);
                /* every (cell, iteration) exactly once */
                _cleanup_free_ unsigned char *seen = calloc(n, 1);
                for (size_t i = 0; i < n; i++) {
                        assert_true(runs[i].cell < d->n_cells && runs[i].iteration < d->iterations);
                        size_t k = runs[i].cell * d->iterations + runs[i].iteration;
                        assert_int_equal(seen[k], 0);
                        seen[k] = 1;
                }
                free(runs);
        }
}

/* Every .json in dir parses on each of hosts and round-trips; with need_description, each also
 * carries a description. */
static void check_good_dir(const char *dir, const struct host_limits *const *hosts, size_t n_hosts,
                           bool need_description) {
        _cleanup_free_ char *path = src_path(dir);
        DIR *dd = opendir(path);
        unsigned files = 0;
        struct dirent *de;

        assert_non_null(dd);
        while ((de = readdir(dd))) {
                size_t l = strlen(de->d_name);
                if (l < 5 || strcmp(de->d_name + l - 5, ".json") != 0)
                        continue;
                char rel[512];
                size_t len;
                snprintf(rel, sizeof rel, "%s/%s", dir, de->d_name);
                _cleanup_free_ char *body = read_src(rel, &len);
                print_message("%s\n", rel);
                for (size_t h = 0; h < n_hosts; h++) {
                        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, hosts[h]);
                        if (need_description)
                                assert_non_null(d->description);
                        assert_roundtrip(d, hosts[h]);
                        assert_plan_shape(d);
                }
                files++;
        }
        closedir(dd);
        assert_true(files > 0);
}

static void test_good(void **state) {
        const struct host_limits *all[] = { &host2, &host16, &host_real, NULL };
        const struct host_limits *big[] = { &host16, NULL };
        check_good_dir("good", all, ELEMENTSOF(all), false);
        check_good_dir("good-16cpu", big, ELEMENTSOF(big), false);
}

/* The shipped examples (contrib/examples) parse, and each says in its description what it needs
 * and how long it runs: first-try.json and gc-latency.json on any 2-CPU host, all on 16 CPUs. */
static void test_examples(void **state) {
        static const char *const two_cpus[] = { "first-try.json", "gc-latency.json" };
        const struct host_limits *big[] = { &host16, NULL };
        check_good_dir("../../contrib/examples", big, ELEMENTSOF(big), true);
        for (size_t i = 0; i < ELEMENTSOF(two_cpus); i++) {
                char rel[128];
                size_t len;
                snprintf(rel, sizeof rel, "../../contrib/examples/%s", two_cpus[i]);
                _cleanup_free_ char *body = read_src(rel, &len);
                _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host2);
        }
}

/* Cells from a template: each cell's expansion (definition_parse_cell()), cell 0's by
 * definition_parse(); a cell's jvm_args take its own vars; the canonical JSON keeps the
 * placeholders and the vars and parses back to itself; a '{' that opens no placeholder is text;
 * without vars nothing is a placeholder. */
static void test_template(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good/template.json", &len);
        _cleanup_(definition_freep) struct definition *first = expect_ok(body, len, &host2);
        struct definition *second = NULL;
        struct error err = { 0 };
        assert_int_equal(definition_parse_cell(body, len, 1, &second, &err), 0);
        assert_string_equal(first->sut.command[2], "/opt/app/app-1.4.2.jar");
        assert_string_equal(first->sut.command[4], "9090");
        assert_string_equal(second->sut.command[2], "/opt/app/app-1.4.3.jar");
        assert_string_equal(second->sut.command[4], "9091");
        assert_int_equal(first->load.target.port, 9090);
        assert_int_equal(second->load.target.port, 9091);
        assert_int_equal(second->sut.ready.http.port, 9091);
        assert_non_null(strstr(second->load.target.path, "cpu_us=700"));
        for (const struct definition *d = first;; d = second) {
                assert_string_equal(d->cells[0].jvm_args[0], "-Xmx128m");
                assert_string_equal(d->cells[1].jvm_args[0], "-Xmx256m");
                assert_string_equal(d->cells[1].jvm_args[1], "-Dx={x");
                if (d == second)
                        break;
        }
        assert_string_equal(first->canonical, second->canonical);
        assert_non_null(strstr(first->canonical, "\"command\":[\"java\",\"-jar\",\"/opt/app/app-{version}.jar\",\"--port\",\"{port}\"]"));
        assert_non_null(strstr(first->canonical, "\"target\":\"http://127.0.0.1:{port}/work?cpu_us={cpu_us}\""));
        assert_non_null(strstr(first->canonical, "\"vars\":{\"cpu_us\":\"500\",\"heap\":\"128m\",\"port\":\"9090\",\"version\":\"1.4.2\"}"));
        assert_roundtrip(first, &host2);
        definition_free(second);
        second = NULL;
        assert_int_equal(definition_parse_cell(body, len, 2, &second, &err), -EINVAL);
        assert_null(second);
        assert_string_equal(err.field, "cells");

        static const char plain[] = "{\"name\":\"p\",\"sut\":{\"command\":[\"/bin/x\",\"{port}\"]},"
                                    "\"cells\":[{\"name\":\"a\"}]}";
        _cleanup_(definition_freep) struct definition *p = expect_ok(plain, strlen(plain), &host2);
        assert_string_equal(p->sut.command[1], "{port}");
        assert_null(p->template);
}

/* description: optional, echoed in the canonical JSON only when given. */
static void test_description(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good/description.json", &len);
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host2);
        assert_non_null(d->description);
        assert_non_null(strstr(d->canonical, "\"name\":\"described\",\"description\":\"Needs CPUs 0-1"));
        _cleanup_free_ char *minimal = read_src("good/minimal.json", &len);
        _cleanup_(definition_freep) struct definition *m = expect_ok(minimal, len, &host2);
        assert_null(m->description);
        assert_null(strstr(m->canonical, "description"));
}

static void test_design_example(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good-16cpu/design-example.json", &len);
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host16);

        assert_string_equal(d->name, "quota-vs-cpuset");
        assert_int_equal(d->iterations, 10);
        assert_int_equal(d->order, DEFINITION_ORDER_INTERLEAVED);
        assert_int_equal(d->sut.n_command, 8);
        assert_true(d->sut.jvm);
        assert_int_equal(d->sut.env.n, 1);
        assert_int_equal(d->sut.ready.kind, DEFINITION_READY_TCP);
        assert_string_equal(d->sut.ready.tcp_host, "127.0.0.1");
        assert_int_equal(d->sut.ready.tcp_port, 9080);
        assert_int_equal(d->sut.memory_max, UINT64_C(4) << 30);
        assert_int_equal(d->load.kind, DEFINITION_LOAD_INJECTOR);
        assert_string_equal(d->load.target.host, "127.0.0.1");
        assert_int_equal(d->load.target.port, 9080);
        assert_string_equal(d->load.target.path, "/work");
        assert_true(d->load.rate == 6000);
        assert_int_equal(d->load.measure_s, 240);
        assert_int_equal(d->n_cells, 3);
        assert_false(d->cells[0].has_quota);
        assert_int_equal(d->cells[1].cpu_quota_us, 400000);
        assert_int_equal(d->cells[1].cpu_period_us, 100000);
        assert_int_equal(d->cells[2].n_jvm_args, 1);
        assert_string_equal(d->host.governor, "performance");
        assert_int_equal(d->n_warnings, 0); /* load.cpus 0-7 and the cells' 8-15 are disjoint */
        assert_string_equal(
                d->canonical,
                "{\"name\":\"quota-vs-cpuset\",\"iterations\":10,\"max_consecutive_failures\":3,\"order\":\"interleaved\","
                "\"sut\":{\"command\":[\"java\",\"-Xms1g\",\"-Xmx1g\",\"-XX:+UseParallelGC\",\"-jar\","
                "\"app.jar\",\"--port\",\"9080\"],\"jvm\":true,\"env\":{\"TZ\":\"UTC\"},"
                "\"ready\":{\"tcp\":\"127.0.0.1:9080\",\"timeout_s\":60},\"memory_max\":4294967296},"
                "\"load\":{\"target\":\"http://127.0.0.1:9080/work\",\"mode\":\"rate\",\"rate\":6000,"
                "\"arrival\":\"uniform\",\"connections\":32,\"timeout_ms\":5000,\"warmup_s\":60,"
                "\"measure_s\":240,\"cpus\":\"0-7\"},"
                "\"cells\":[{\"name\":\"4cpu-100\",\"cpus\":\"8-11\"},"
                "{\"name\":\"8cpu-50\",\"cpus\":\"8-15\",\"cpu_quota\":4,\"cpu_period_us\":100000,"
                "\"cpu_burst_us\":0},"
                "{\"name\":\"8cpu-50-nocs\",\"cpus\":\"8-15\",\"cpu_quota\":4,\"cpu_period_us\":100000,"
                "\"cpu_burst_us\":0,\"jvm_args\":[\"-XX:-UseContainerSupport\"]}],"
                "\"host\":{\"governor\":\"performance\",\"on_mismatch\":\"fail\"}}");

        /* jvm_args go right after argv[0] */
        _cleanup_(definition_strv_freep) char **argv = NULL;
        assert_int_equal(definition_cell_argv(d, 2, &argv), 0);
        assert_string_equal(argv[0], "java");
        assert_string_equal(argv[1], "-XX:-UseContainerSupport");
        assert_string_equal(argv[2], "-Xms1g");
        assert_string_equal(argv[8], "9080");
        assert_null(argv[9]);

        /* the verbatim example needs CPUs 8-15: on a 2-CPU host it is refused, naming the field */
        struct error err;
        expect_error(body, len, &host2, &err);
        assert_int_equal(err.status, 400);
        assert_string_equal(err.code, "not_on_host");
        assert_string_equal(err.field, "load.cpus");
        assert_non_null(strstr(err.message, "2-7"));
}

static void test_defaults_and_env(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good/random-unicode.json", &len);
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host2);

        assert_string_equal(d->name, "Kühlschrank ☃ 実験 — random");
        assert_true(d->has_seed);
        assert_int_equal(d->seed, UINT64_C(9007199254740991));
        assert_non_null(strstr(d->canonical, "\"seed\":9007199254740991,"));
        assert_int_equal(d->load.target.port, 9083);
        assert_string_equal(d->load.target.path, "/");
        assert_int_equal(d->load.connections, 32);
        assert_int_equal(d->load.warmup_s, 30);
        assert_int_equal(d->load.measure_s, 60);
        assert_int_equal(d->load.timeout_ms, 5000);
        assert_int_equal(d->load.arrival, DEFINITION_ARRIVAL_POISSON);
        assert_non_null(strstr(d->canonical, "\"rate\":0.5,"));
        assert_int_equal(d->sut.ready.kind, DEFINITION_READY_LOG);
        assert_int_equal(d->cells[1].cpu_quota_us, 15000);
        assert_int_equal(d->cells[1].memory_max, UINT64_C(768) << 20);
        assert_false(d->cells[2].has_cpus);

        _cleanup_(definition_strv_freep) char **env = NULL;
        assert_int_equal(definition_cell_env(d, 0, &env), 0);
        assert_string_equal(env[0], "B=cell wins");
        assert_string_equal(env[1], "TZ=Europe/Zürich");
        assert_string_equal(env[2], "_UNDERSCORE=");
        assert_null(env[3]);
        /* the cell without cpus shares load.cpus: warned, not refused */
        assert_int_equal(d->n_warnings, 1);
        assert_non_null(strstr(d->warnings[0], "cells[2]"));

        /* ready defaults to the target's host:port for the built-in injector */
        static const char minimal_load[] =
                "{\"name\":\"x\",\"sut\":{\"command\":[\"srv\"]},\"load\":{\"target\":\"http://[::1]:8080/\","
                "\"mode\":\"max\"},\"cells\":[{\"name\":\"a\"}]}";
        _cleanup_(definition_freep) struct definition *m = expect_ok(minimal_load, strlen(minimal_load), &host2);
        assert_int_equal(m->sut.ready.kind, DEFINITION_READY_TCP);
        assert_string_equal(m->sut.ready.tcp_host, "::1");
        assert_true(m->sut.ready.tcp_ipv6);
        assert_non_null(strstr(m->canonical, "\"ready\":{\"tcp\":\"[::1]:8080\",\"timeout_s\":60}"));
        assert_non_null(strstr(m->canonical, "\"mode\":\"max\",\"connections\":32"));
        assert_int_equal(m->n_warnings, 0);

        /* memory sizes in every accepted form come out in bytes */
        static const char sizes[] = "{\"name\":\"x\",\"sut\":{\"command\":[\"srv\"],\"memory_max\":\"1g\"},"
                                    "\"cells\":[{\"name\":\"a\",\"memory_max\":1048576},"
                                    "{\"name\":\"b\",\"memory_max\":\"2048K\"}]}";
        _cleanup_(definition_freep) struct definition *s = expect_ok(sizes, strlen(sizes), &host2);
        assert_int_equal(s->sut.memory_max, UINT64_C(1) << 30);
        assert_int_equal(definition_cell_memory_max(s, 0), UINT64_C(1) << 20);
        assert_int_equal(definition_cell_memory_max(s, 1), UINT64_C(2) << 20);
        assert_roundtrip(s, &host2);
}

/* profile: off by default and then absent from the canonical JSON; on, hz defaults to 99 and a
 * JVM gets -XX:+PreserveFramePointer before the cell's jvm_args, with a warning saying so. */
static void test_profile(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good/profile.json", &len);
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host2);
        assert_true(d->profile.cpu);
        assert_int_equal(d->profile.hz, DEFINITION_PROFILE_HZ_DEFAULT);
        assert_non_null(strstr(d->canonical, "\"profile\":{\"cpu\":true,\"hz\":99}"));
        _cleanup_(definition_strv_freep) char **argv = NULL;
        assert_int_equal(definition_cell_argv(d, 0, &argv), 0);
        assert_string_equal(argv[0], "java");
        assert_string_equal(argv[1], DEFINITION_PROFILE_JVM_ARG);
        assert_string_equal(argv[2], "-Xmx64m");
        assert_string_equal(argv[3], "-jar");
        assert_int_equal(d->n_warnings, 1);
        assert_non_null(strstr(d->warnings[0], "PreserveFramePointer"));

        static const char native[] = "{\"name\":\"x\",\"sut\":{\"command\":[\"srv\"]},\"cells\":[{\"name\":\"a\"}],"
                                     "\"profile\":{\"cpu\":true,\"hz\":999}}";
        _cleanup_(definition_freep) struct definition *n = expect_ok(native, strlen(native), &host2);
        assert_int_equal(n->profile.hz, 999);
        assert_int_equal(n->n_warnings, 1);
        assert_non_null(strstr(n->warnings[0], "native frames only"));
        _cleanup_(definition_strv_freep) char **nargv = NULL;
        assert_int_equal(definition_cell_argv(n, 0, &nargv), 0);
        assert_null(nargv[1]);

        static const char off[] = "{\"name\":\"x\",\"sut\":{\"command\":[\"srv\"]},\"cells\":[{\"name\":\"a\"}],"
                                  "\"profile\":{\"cpu\":false}}";
        _cleanup_(definition_freep) struct definition *o = expect_ok(off, strlen(off), &host2);
        assert_false(o->profile.cpu);
        assert_null(strstr(o->canonical, "profile"));

        /* A cell may run unprofiled beside a profiled twin: no frame pointers, no perf, said. */
        _cleanup_free_ char *twins = read_src("good/profile-overhead.json", &len);
        _cleanup_(definition_freep) struct definition *t = expect_ok(twins, len, &host2);
        assert_false(definition_cell_profiled(t, 0));
        assert_true(definition_cell_profiled(t, 1));
        _cleanup_(definition_strv_freep) char **plain = NULL, **profiled = NULL;
        assert_int_equal(definition_cell_argv(t, 0, &plain), 0);
        assert_int_equal(definition_cell_argv(t, 1, &profiled), 0);
        assert_string_equal(plain[1], "-jar");
        assert_string_equal(profiled[1], DEFINITION_PROFILE_JVM_ARG);
        assert_non_null(strstr(t->canonical, "{\"name\":\"plain\",\"profile\":false}"));
        assert_non_null(strstr(t->canonical, "{\"name\":\"profiled\"}"));
        assert_int_equal(t->n_warnings, 2);
        assert_non_null(strstr(t->warnings[1], "cells[0].profile is false"));
}

static void test_warnings(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good/design-example.json", &len);
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host2);
        /* load.cpus 0 overlaps cells 1 and 2 (0-1), not cell 0 (1) */
        assert_int_equal(d->n_warnings, 2);
        assert_non_null(strstr(d->warnings[0], "cells[1].cpus"));
        assert_non_null(strstr(d->warnings[1], "cells[2].cpus"));
        assert_null(d->warnings[2]);

        static const char jvm[] =
                "{\"name\":\"x\",\"sut\":{\"command\":[\"java\",\"-Xmx1g\",\"-jar\",\"a.jar\",\"-Xmx9g\"],"
                "\"jvm\":true,\"memory_max\":\"512M\"},"
                "\"cells\":[{\"name\":\"a\",\"memory_max\":\"2G\",\"jvm_args\":[\"-Xmx4g\"]},"
                "{\"name\":\"b\",\"jvm_args\":[\"-XX:+UseSerialGC\"]}]}";
        _cleanup_(definition_freep) struct definition *j = expect_ok(jvm, strlen(jvm), &host2);
        /* a: the command's -Xmx1g overrides -Xmx4g (1g < 2G: no OOM warning); b: 1g >= 512M */
        assert_int_equal(j->n_warnings, 2);
        assert_non_null(strstr(j->warnings[0], "cells[0].jvm_args[0] is overridden by sut.command[1]"));
        assert_non_null(strstr(j->warnings[1], "cells[1]"));
        assert_non_null(strstr(j->warnings[1], "OOM"));

        static const char java[] = "{\"name\":\"x\",\"sut\":{\"command\":[\"/usr/bin/java\",\"-jar\",\"a.jar\"]},"
                                   "\"cells\":[{\"name\":\"a\"}]}";
        _cleanup_(definition_freep) struct definition *k = expect_ok(java, strlen(java), &host2);
        assert_int_equal(k->n_warnings, 1);
        assert_non_null(strstr(k->warnings[0], "sut.jvm is false"));
}

static void test_body_level(void **state) {
        static const char good[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}";
        struct error err;

        /* bytes a text table cannot carry */
        static const struct {
                const char *body;
                size_t len;
        } bad[] = {
#define B(s) { s, sizeof(s) - 1 }
                B("{\"name\":\"t\0\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}"),
                B("{\"name\":\"t\x01\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}"),
                B("{\"name\":\"tab\there\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}"),
                B("\xef\xbb\xbf{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}"),
                B("{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}\0"),
                B("{\"name\":\"t\",\x0b\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}"),
                B("{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]"),
                B("{\"name\":\"\\ud800\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}"),
#undef B
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                expect_error(bad[i].body, bad[i].len, &host2, &err);
                assert_int_equal(err.status, 400);
                assert_string_equal(err.field, "");
        }

        /* invalid UTF-8 in a string: 400 invalid_utf8 naming the field, whatever the sequence */
        static const struct {
                const char *body;
                size_t len;
                const char *field;
        } utf8[] = {
#define U(s, f) { s, sizeof(s) - 1, f }
                U("{\"name\":\"\xff\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}", "name"),
                U("{\"name\":\"\xc0\xaf\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}", "name"),
                U("{\"name\":\"\xed\xa0\x80\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}", "name"),
                U("{\"name\":\"\xf4\x90\x80\x80\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}", "name"),
                U("{\"name\":\"\xe2\x82\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}]}", "name"),
                U("{\"name\":\"t\",\"sut\":{\"command\":[\"x\",\"\xfe\"]},\"cells\":[{\"name\":\"a\"}]}",
                  "sut.command[1]"),
                U("{\"name\":\"t\",\"sut\":{\"command\":[\"x\"],\"env\":{\"LANG\":\"C\",\"K\":\"\x80\"}},"
                  "\"cells\":[{\"name\":\"a\"}]}", "sut.env.K"),
                U("{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"},{\"name\":\"b\xff\"}]}",
                  "cells[1].name"),
                /* in a key: the object it is a key of */
                U("{\"name\":\"t\",\"sut\":{\"command\":[\"x\"],\"env\":{\"\xff\":\"v\"}},\"cells\":[{\"name\":\"a\"}]}",
                  "sut.env"),
                U("{\"\xc3\":1}", ""),
                /* a key that does not read well in a path ends it at its parent */
                U("{\"name\":\"t\",\"sut\":{\"command\":[\"x\"],\"env\":{\"A B\":\"\xff\"}},\"cells\":[{\"name\":\"a\"}]}",
                  "sut.env"),
                U("\"\xff\"", ""),
#undef U
        };
        for (size_t i = 0; i < ELEMENTSOF(utf8); i++) {
                expect_error(utf8[i].body, utf8[i].len, &host2, &err);
                assert_int_equal(err.status, 400);
                assert_string_equal(err.code, "invalid_utf8");
                assert_string_equal(err.field, utf8[i].field);
                assert_non_null(strstr(err.message, "must be UTF-8"));
        }

        /* the length is what counts, not a NUL: valid JSON followed by bytes outside the body */
        char buf[256];
        snprintf(buf, sizeof buf, "%s garbage", good);
        struct definition *d = expect_ok(buf, strlen(good), &host2);
        definition_free(d);

        /* 1 MiB is the limit, inclusive; one byte more is 413 */
        size_t big = DEFINITION_BODY_MAX + 1;
        _cleanup_free_ char *pad = malloc(big);
        assert_non_null(pad);
        memcpy(pad, good, strlen(good));
        memset(pad + strlen(good), ' ', big - strlen(good));
        d = expect_ok(pad, DEFINITION_BODY_MAX, &host2);
        definition_free(d);
        expect_error(pad, big, &host2, &err);
        assert_int_equal(err.status, 413);
        assert_string_equal(err.code, "body_too_large");

        /* a body of many tiny values is refused before cJSON builds a node for each */
        size_t n = 0;
        pad[n++] = '[';
        while (n < 400000) {
                pad[n++] = '0';
                pad[n++] = ',';
        }
        pad[n++] = '0';
        pad[n++] = ']';
        expect_error(pad, n, &host2, &err);
        assert_string_equal(err.code, "too_many_values");

        expect_error("{}", 2, &host2, &err);
        assert_string_equal(err.code, "missing_field");
        assert_string_equal(err.field, "name");
}

static void test_messages(void **state) {
        /* the message names the rule and the value seen */
        static const char quota[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},"
                                    "\"cells\":[{\"name\":\"a\",\"cpus\":\"0\"},{\"name\":\"b\",\"cpus\":\"0-1\",\"cpu_quota\":3}]}";
        struct error err;
        expect_error(quota, strlen(quota), &host16, &err);
        assert_string_equal(err.field, "cells[1].cpu_quota");
        assert_string_equal(err.code, "conflict");
        assert_non_null(strstr(err.message, "at most 2,"));
        assert_non_null(strstr(err.message, "got 3"));

        static const char online[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\",\"cpus\":\"1-20\"}]}";
        expect_error(online, strlen(online), &host16, &err);
        assert_string_equal(err.code, "not_on_host");
        assert_string_equal(err.field, "cells[0].cpus");
        /* the CPUs missing and the ones the host has: a user of a host-specific example sees
         * what to change it to */
        assert_non_null(strstr(err.message, "cpus 16-20 not online (this host has 0-15 online)"));

        /* hostile strings are quoted, escaped and cut in messages */
        static const char hostile[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\","
                                      "\"cpus\":\"\\\"evil\\\\\\\" AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}]}";
        expect_error(hostile, strlen(hostile), &host16, &err);
        assert_string_equal(err.field, "cells[0].cpus");
        assert_non_null(strstr(err.message, "\\\"evil\\\\\\\""));
        assert_non_null(strstr(err.message, "...\""));

        /* without a host, host-dependent checks are skipped */
        static const char far[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"],\"memory_max\":\"100T\"},"
                                  "\"cells\":[{\"name\":\"a\",\"cpus\":\"1000\",\"mems\":\"7\"}]}";
        struct definition *d = expect_ok(far, strlen(far), NULL);
        definition_free(d);
        expect_error(far, strlen(far), &host16, &err);
        assert_string_equal(err.field, "sut.memory_max");
}

/* env and labels share one parser (definition-kv.c); each keeps its own rules and words. */
static void test_kv_messages(void **state) {
        /* members: before, then a value of n bytes (list false) or n labels (list true), then after */
        static const struct {
                const char *before, *after;
                int n;
                bool list;
                const char *field, *code, *words;
        } cases[] = {
                { "\"env\":{\"A\":\"1\",\"A\":\"2\"}", "", 0, false, "sut.env.A", "duplicate_field", "variable \"A\" appears" },
                { "\"env\":{\"a-b\":\"1\"}", "", 0, false, "sut.env", "invalid_value", "variable names must match" },
                { "\"env\":{\"A\":\"", "\"}", 4097, false, "sut.env.A", "out_of_range", "4096" },
                { "\"labels\":{\"t\":\"1\",\"t\":\"2\"}", "", 0, false, "labels.t", "duplicate_field", "label \"t\" appears" },
                { "\"labels\":{\"A-B\":\"1\"}", "", 0, false, "labels", "invalid_value", "label keys must be 1 to 63" },
                { "\"labels\":{\"t\":\"", "\"}", 257, false, "labels.t", "out_of_range", "256" },
                { "\"labels\":{", "}", 33, true, "labels", "out_of_range", "at most 32 labels, got 33" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char fill[4200] = "", members[4300], body[4400];
                for (int j = 0, k = 0; j < cases[i].n; j++)
                        k += cases[i].list ? snprintf(fill + k, sizeof fill - (size_t) k, "%s\"l%d\":\"\"", j ? "," : "", j)
                                           : snprintf(fill + k, sizeof fill - (size_t) k, "x");
                snprintf(members, sizeof members, "%s%s%s", cases[i].before, fill, cases[i].after);
                if (strncmp(members, "\"env\"", 5) == 0)
                        snprintf(body, sizeof body, "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"],%s},\"cells\":[{\"name\":\"a\"}]}",
                                 members);
                else
                        snprintf(body, sizeof body, "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}],%s}",
                                 members);
                struct error err;
                expect_error(body, strlen(body), &host2, &err);
                if (strcmp(err.field, cases[i].field) != 0 || strcmp(err.code, cases[i].code) != 0 ||
                    !strstr(err.message, cases[i].words))
                        print_error("case %zu: want %s [%s] \"%s\", got %s [%s] %s\n", i, cases[i].code,
                                    cases[i].field, cases[i].words, err.code, err.field, err.message);
                assert_string_equal(err.field, cases[i].field);
                assert_string_equal(err.code, cases[i].code);
                assert_non_null(strstr(err.message, cases[i].words));
        }
}

/* One governor rule with preflight's (basic/governor.h): 15 characters of [a-z0-9_-] pass, 16 do
 * not (the 20-character case is in bad-definitions.tsv). */
static void test_governor(void **state) {
        static const char fmt[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}],"
                                  "\"host\":{\"governor\":\"%s\"}}";
        char body[256];
        struct error err;

        snprintf(body, sizeof body, fmt, "ondemand-low_15");
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, strlen(body), &host2);
        assert_string_equal(d->host.governor, "ondemand-low_15");
        assert_roundtrip(d, &host2);

        snprintf(body, sizeof body, fmt, "ondemand-low_16x");
        expect_error(body, strlen(body), &host2, &err);
        assert_string_equal(err.code, "invalid_value");
        assert_string_equal(err.field, "host.governor");
        assert_non_null(strstr(err.message, "1 to 15 of [a-z0-9_-]"));
}

static struct definition *plan_definition(const char *order, unsigned iterations) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"name\":\"p\",\"iterations\":%u,\"order\":\"%s\",\"sut\":{\"command\":[\"x\"]},"
                 "\"cells\":[{\"name\":\"A\"},{\"name\":\"B\"},{\"name\":\"C\"}]}",
                 iterations, order);
        return expect_ok(body, strlen(body), &host2);
}

static void plan_string(const struct definition *d, uint64_t seed, char *buf, size_t size) {
        struct planned_run *runs = NULL;
        size_t n = 0, o = 0;
        assert_int_equal(definition_plan_runs(d, seed, &runs, &n), 0);
        for (size_t i = 0; i < n && o + 8 < size; i++)
                o += (size_t) snprintf(buf + o, size - o, "%s%c%u", i ? " " : "", (char) ('A' + runs[i].cell),
                                       runs[i].iteration + 1);
        free(runs);
}

static void test_plan(void **state) {
        char buf[256], other[256];
        _cleanup_(definition_freep) struct definition *il = plan_definition("interleaved", 3);
        _cleanup_(definition_freep) struct definition *sq = plan_definition("sequential", 3);
        _cleanup_(definition_freep) struct definition *rnd = plan_definition("random", 3);

        plan_string(il, 0, buf, sizeof buf);
        assert_string_equal(buf, "A1 B1 C1 A2 B2 C2 A3 B3 C3");
        plan_string(il, 99, other, sizeof other); /* the seed matters to random only */
        assert_string_equal(buf, other);
        plan_string(sq, 0, buf, sizeof buf);
        assert_string_equal(buf, "A1 A2 A3 B1 B2 B3 C1 C2 C3");

        /* random: deterministic for a seed, pinned so that a stored seed replays its order */
        plan_string(rnd, 42, buf, sizeof buf);
        plan_string(rnd, 42, other, sizeof other);
        assert_string_equal(buf, other);
        print_message("random, seed 42: %s\n", buf);
        assert_string_equal(buf, "A1 C1 B1 B2 C2 A2 C3 A3 B3");
        /* each round runs every cell once */
        for (unsigned round = 0; round < 3; round++) {
                unsigned mask = 0;
                for (unsigned k = 0; k < 3; k++) {
                        const char *run = buf + (round * 3 + k) * 3;
                        assert_int_equal(run[1] - '0', (int) round + 1);
                        mask |= 1u << (run[0] - 'A');
                }
                assert_int_equal(mask, 7);
        }
        /* and the seed changes the order */
        unsigned distinct = 0;
        for (uint64_t seed = 0; seed < 20; seed++) {
                plan_string(rnd, seed, other, sizeof other);
                distinct += strcmp(other, buf) != 0;
        }
        assert_true(distinct >= 10);

        /* the largest plan */
        _cleanup_(definition_freep) struct definition *one = plan_definition("random", 1000);
        struct planned_run *runs = NULL;
        size_t n = 0;
        assert_int_equal(definition_plan_runs(one, UINT64_MAX, &runs, &n), 0);
        assert_int_equal(n, 3000);
        free(runs);
}

/* load.hosts: what the parser keeps, what it leaves to the peers, and the bound. */
static void test_load_hosts(void **state) {
        size_t len;
        _cleanup_free_ char *body = read_src("good/load-hosts.json", &len);
        _cleanup_(definition_freep) struct definition *d = expect_ok(body, len, &host2);
        assert_int_equal(d->load.n_hosts, 3);
        assert_string_equal(d->load.hosts[0].host, "bench02.lab");
        assert_int_equal(cpulist_count(&d->load.hosts[0].cpus), 64); /* the peer's, not host2's */
        assert_true(d->load.hosts[0].share == 1);
        assert_true(d->load.hosts[1].share == 2);
        assert_string_equal(d->load.hosts[2].host, "fd00::3");
        assert_false(d->load.has_cpus);
        assert_non_null(strstr(d->canonical, "\"hosts\":[{\"host\":\"bench02.lab\",\"cpus\":\"0-63\",\"share\":1}"));

        /* the refusal of load.cpus says what to write instead */
        static const char cpus[] = "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}],"
                                   "\"load\":{\"target\":\"http://10.0.0.1/\",\"rate\":5,\"cpus\":\"0\","
                                   "\"hosts\":[{\"host\":\"a\",\"cpus\":\"0\"}]}}";
        struct error err;
        expect_error(cpus, strlen(cpus), &host2, &err);
        assert_string_equal(err.field, "load.cpus");
        assert_non_null(strstr(err.message, "load.hosts[N].cpus"));

        /* at most DEFINITION_LOAD_HOSTS_MAX: a record keeps its host in 8 bits */
        _cleanup_free_ char *many = NULL;
        size_t size = 64 * 1024, at = 0;
        many = malloc(size);
        at += (size_t) snprintf(many, size, "{\"name\":\"t\",\"sut\":{\"command\":[\"x\"]},\"cells\":[{\"name\":\"a\"}],"
                                "\"load\":{\"target\":\"http://10.0.0.1/\",\"rate\":5,\"hosts\":[");
        for (unsigned i = 0; i <= DEFINITION_LOAD_HOSTS_MAX; i++) {
                at += (size_t) snprintf(many + at, size - at, "%s{\"host\":\"h%u\",\"cpus\":\"0\"}", i ? "," : "", i);
                if (i + 1 == DEFINITION_LOAD_HOSTS_MAX) {
                        snprintf(many + at, size - at, "]}}");
                        definition_free(expect_ok(many, strlen(many), &host2));
                }
        }
        snprintf(many + at, size - at, "]}}");
        expect_error(many, strlen(many), &host2, &err);
        assert_string_equal(err.field, "load.hosts");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bad_table),      cmocka_unit_test(test_good),
                cmocka_unit_test(test_design_example), cmocka_unit_test(test_defaults_and_env),
                cmocka_unit_test(test_warnings),       cmocka_unit_test(test_body_level),
                cmocka_unit_test(test_messages),       cmocka_unit_test(test_plan),
                cmocka_unit_test(test_governor),       cmocka_unit_test(test_kv_messages),
                cmocka_unit_test(test_examples),       cmocka_unit_test(test_description),
                cmocka_unit_test(test_load_hosts),     cmocka_unit_test(test_profile),
                cmocka_unit_test(test_template),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
