/* test-definition-policy.c: which JVM options the policy refuses, what --allow-jvm-option lets
 * in, and the field a refused definition names. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "basic/fileio.h"

#include "definition/definition.h"
#include "definition/definition-policy.h"

static void test_options(void **state) {
        static const char *const refused[] = {
                "-XX:OnError=touch /tmp/x", "-XX:OnOutOfMemoryError=kill -9 %p", "-agentpath:/x.so", "-agentlib:jdwp=y",
                "-javaagent:/a.jar", "-Xrunhprof", "-XX:Flags=/tmp/f", "-XX:VMOptionsFile=/tmp/f", "@/tmp/args",
                "-Xshare:dump", "-XX:HeapDumpPath=/var/tmp", "-XX:HeapDumpPath=../up", "-XX:ErrorFile=/tmp/e",
                "-XX:LogFile=/tmp/l", "-Xloggc:/tmp/gc", "-Xlog:gc:file=/etc/x", "-Xlog:gc*:/etc/x",
                "-Xlog:gc:file=\"/tmp/a:b\"", "-Xlog:gc:file=a/../../x", "-XX:HeapDumpPath=",
                "-XX:StartFlightRecording=duration=1s,filename=/tmp/r.jfr", "-XX:FlightRecorderOptions=repository=/tmp",
                "-XX:PerfDataSaveFile=/tmp/p",
        };
        static const char *const fine[] = {
                "-Xmx64m", "-XX:+UseSerialGC", "-Xlog:gc", "-Xlog:gc*:stdout", "-Xlog:gc:stderr:uptime",
                "-Xlog:gc::uptime", "-Xlog:gc:file=gc.log:uptime", "-Xlog:gc:logs/gc.log", "-XX:HeapDumpPath=dumps/",
                "-XX:+HeapDumpOnOutOfMemoryError", "-XX:StartFlightRecording=filename=r.jfr", "-XX:ErrorFile=hs_err_%p.log",
                "-XX:+UnlockDiagnosticVMOptions", "-Xlog:disable",
        };
        for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
                if (!definition_policy_jvm_option_refused(refused[i], NULL))
                        fail_msg("not refused: %s", refused[i]);
        for (size_t i = 0; i < sizeof fine / sizeof *fine; i++)
                if (definition_policy_jvm_option_refused(fine[i], NULL))
                        fail_msg("refused: %s", fine[i]);
        char *allow[] = { "-XX:HeapDumpPath=/var/tmp/", "-javaagent:/opt/agent.jar", NULL };
        struct definition_policy p = { .allow_jvm_option = allow, .n_allow_jvm_option = 2 };
        assert_null(definition_policy_jvm_option_refused("-XX:HeapDumpPath=/var/tmp/d", &p));
        assert_null(definition_policy_jvm_option_refused("-javaagent:/opt/agent.jar=opts", &p));
        assert_non_null(definition_policy_jvm_option_refused("-XX:HeapDumpPath=/etc", &p));
        assert_non_null(definition_policy_jvm_option_refused("-javaagent:/tmp/a.jar", &p));
}

static void check_field(const char *json, const struct definition_policy *p, const char *field) {
        struct definition *d = NULL;
        struct error err = { 0 };
        assert_int_equal(definition_parse(json, strlen(json), NULL, &d, &err), 0);
        int r = definition_policy_check(d, p, &err);
        definition_free(d);
        if (!field) {
                assert_int_equal(r, 0);
                return;
        }
        assert_int_equal(r, -EINVAL);
        assert_int_equal(err.status, 400);
        assert_string_equal(err.code, "not_allowed");
        assert_string_equal(err.field, field);
}

static void test_fields(void **state) {
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/java\",\"-Xmx1g\",\"-XX:OnError=x\",\"-jar\",\"a.jar\","
                    "\"-XX:OnError=app-arg\"],\"jvm\":true},\"cells\":[{\"name\":\"a\"}]}",
                    NULL, "sut.command[2]");
        /* After -jar they are the application's arguments, not the JVM's. */
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/java\",\"-cp\",\"@x\",\"Main\",\"@y\"],\"jvm\":true},"
                    "\"cells\":[{\"name\":\"a\"}]}",
                    NULL, NULL);
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/java\",\"-jar\",\"a.jar\"],\"jvm\":true},"
                    "\"cells\":[{\"name\":\"a\"},{\"name\":\"b\",\"jvm_args\":[\"-Xmx1g\",\"-javaagent:/a.jar\"]}]}",
                    NULL, "cells[1].jvm_args[1]");
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"a\","
                    "\"env\":{\"_JAVA_OPTIONS\":\"-Xmx1g -XX:OnError=id\"}}]}",
                    NULL, "cells[0].env._JAVA_OPTIONS");
        char *exec[] = { "/bin/true", NULL };
        struct definition_policy p = { .allow_exec = exec, .n_allow_exec = 1 };
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"a\"}]}", &p, NULL);
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/false\"]},\"cells\":[{\"name\":\"a\"}]}", &p,
                    "sut.command[0]");
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"true\"]},\"cells\":[{\"name\":\"a\"}]}", &p, "sut.command[0]");
        check_field("{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/true\"]},\"load\":{\"command\":[\"/bin/sh\"],"
                    "\"timeline\":\"t.bin\"},\"cells\":[{\"name\":\"a\"}]}",
                    &p, "load.command[0]");
}

/* The config file's own example, "#allow-exec = PATH" in units/slicelabd.conf, resolved as the
 * daemon resolves --allow-exec (symlinks followed), lets every shipped example in. */
static void test_examples_allowed(void **state) {
        const char *src = getenv("SLICELAB_SRC");
        assert_non_null(src);
        char path[PATH_MAX], exe[PATH_MAX] = "", real[PATH_MAX];
        snprintf(path, sizeof path, "%s/units/slicelabd.conf", src);
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        char line[512];
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "#allow-exec = %4095s", exe) == 1)
                        break;
        fclose(f);
        assert_true(exe[0] == '/');
        if (!realpath(exe, real))
                skip(); /* no java here: the daemon would refuse to start with this allow-exec */
        char *exec[] = { real, NULL };
        struct definition_policy p = { .allow_exec = exec, .n_allow_exec = 1 };

        snprintf(path, sizeof path, "%s/contrib/examples", src);
        DIR *dd = opendir(path);
        assert_non_null(dd);
        unsigned examples = 0;
        for (struct dirent *de; (de = readdir(dd));) {
                size_t l = strlen(de->d_name);
                if (l < 5 || strcmp(de->d_name + l - 5, ".json") != 0)
                        continue;
                char file[PATH_MAX + 256];
                snprintf(file, sizeof file, "%s/%s", path, de->d_name);
                char *body = NULL;
                size_t len = 0;
                assert_int_equal(read_file_bounded(file, DEFINITION_BODY_MAX, &body, &len), 0);
                struct definition *d = NULL;
                struct error err = { 0 };
                assert_int_equal(definition_parse(body, len, NULL, &d, &err), 0);
                if (definition_policy_check(d, &p, &err) < 0)
                        fail_msg("%s is refused by allow-exec = %s: %s: %s", de->d_name, exe, err.field, err.message);
                definition_free(d);
                free(body);
                examples++;
        }
        closedir(dd);
        assert_true(examples >= 3);
}

/* Load hosts must match --peer-allow; without a pattern no host is allowed. */
static void test_peers(void **state) {
        static const char json[] = "{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"a\"}],"
                                   "\"load\":{\"target\":\"http://10.0.0.1/\",\"rate\":5,\"hosts\":["
                                   "{\"host\":\"bench02.lab\",\"cpus\":\"0\"},{\"host\":\"10.9.0.3\",\"cpus\":\"0\"}]}}";
        check_field(json, NULL, "load.hosts[0].host");
        char *lab[] = { "BENCH*.lab", NULL };
        struct definition_policy p = { .peer_allow = lab, .n_peer_allow = 1 };
        check_field(json, &p, "load.hosts[1].host");
        char *both[] = { "bench*.lab", "10.9.0.*", NULL };
        p = (struct definition_policy){ .peer_allow = both, .n_peer_allow = 2 };
        check_field(json, &p, NULL);

        /* A name that begins like an allowed address is no address: the coordinator would
         * resolve it and send the lab's token wherever it points. */
        static const char named[] = "{\"name\":\"x\",\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"a\"}],"
                                    "\"load\":{\"target\":\"http://10.0.0.1/\",\"rate\":5,\"hosts\":["
                                    "{\"host\":\"bench02.lab\",\"cpus\":\"0\"},{\"host\":\"10.9.0.evil.invalid\",\"cpus\":\"0\"}]}}";
        check_field(named, &p, "load.hosts[1].host");
        char *block[] = { "10.9.0.0/24", "*.lab", NULL };
        p = (struct definition_policy){ .peer_allow = block, .n_peer_allow = 2 };
        check_field(json, &p, NULL);
        check_field(named, &p, "load.hosts[1].host");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_options),
                cmocka_unit_test(test_fields),
                cmocka_unit_test(test_examples_allowed),
                cmocka_unit_test(test_peers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
