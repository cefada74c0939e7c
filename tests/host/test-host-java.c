/* test-host-java.c: finding java on PATH, asking it for its version (real JDK and stand-ins
 * that misbehave), and the cache that keeps GET /v1/host from starting a JVM per request.
 * The stand-ins are /bin/sh scripts; the code under test runs them without a shell. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "host/host-java.h"
#include "host-test-util.h"
#include "test-tmp.h"
#include "basic/macro.h"

/* root/bin/java with this script body, executable. */
static void fake_java(const char *root, const char *body) {
        char text[1024], path[PATH_MAX];
        snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
        tmp_put(root, "bin/java", text);
        snprintf(path, sizeof path, "%s/bin/java", root);
        assert_int_equal(chmod(path, 0755), 0);
}

static void no_children_left(void) {
        assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
        assert_int_equal(errno, ECHILD);
}

static void test_find(void **state) {
        char *root = tmp_dir_new("host");
        fake_java(root, "exit 0");
        char bin[PATH_MAX], path_env[3 * PATH_MAX], found[PATH_MAX];
        snprintf(bin, sizeof bin, "%s/bin", root);

        snprintf(path_env, sizeof path_env, "/nonexistent:%s:/usr/bin", bin);
        assert_int_equal(host_java_find(path_env, found, sizeof found), 0);
        snprintf(path_env, sizeof path_env, "%s/java", bin);
        assert_string_equal(found, path_env);

        /* relative and empty entries are never searched, even when the cwd holds a java */
        char cwd[PATH_MAX];
        assert_non_null(getcwd(cwd, sizeof cwd));
        assert_int_equal(chdir(bin), 0);
        assert_int_equal(host_java_find(":.:bin", found, sizeof found), -ENOENT);
        assert_int_equal(chdir(cwd), 0);

        /* not executable, or a directory, does not count */
        snprintf(path_env, sizeof path_env, "%s/java", bin);
        assert_int_equal(chmod(path_env, 0644), 0);
        assert_int_equal(host_java_find(bin, found, sizeof found), -ENOENT);
        assert_int_equal(unlink(path_env), 0);
        assert_int_equal(mkdir(path_env, 0755), 0);
        assert_int_equal(host_java_find(bin, found, sizeof found), -ENOENT);
        assert_int_equal(host_java_find(NULL, found, sizeof found), -ENOENT);
        assert_int_equal(host_java_find("", found, sizeof found), -ENOENT);

        assert_int_equal(rmdir(path_env), 0);
        fake_java(root, "exit 0");
        char tiny[8];
        assert_int_equal(host_java_find(bin, tiny, sizeof tiny), -ENAMETOOLONG);
        tmp_dir_free(root);
}

static void probe_fake(const char *body, int timeout_ms, int expect, struct host_java *j) {
        char *root = tmp_dir_new("host");
        fake_java(root, body);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/bin/java", root);
        assert_int_equal(host_java_probe(path, timeout_ms, j), expect);
        no_children_left();
        tmp_dir_free(root);
}

static void test_probe_stand_ins(void **state) {
        struct host_java j = { .version = "untouched" };
        /* JAVA_TOOL_OPTIONS makes the JVM print a line before the version */
        probe_fake("echo 'Picked up JAVA_TOOL_OPTIONS: -Xss1m' >&2\n"
                   "echo 'openjdk version \"21.0.2\" 2024-01-16' >&2\necho 'OpenJDK Runtime' >&2",
                   5000, 0, &j);
        assert_string_equal(j.version, "21.0.2");
        assert_string_equal(j.description, "openjdk version \"21.0.2\" 2024-01-16");
        /* old style */
        probe_fake("echo 'java version \"1.8.0_392\"' >&2", 5000, 0, &j);
        assert_string_equal(j.version, "1.8.0_392");

        j = (struct host_java){ .version = "untouched" };
        probe_fake("echo 'no idea'", 5000, -EBADMSG, &j);
        probe_fake("exit 3", 5000, -ECHILD, &j);
        probe_fake("printf 'openjdk version \"1\\001\"\\n' >&2", 5000, -EBADMSG, &j);
        assert_string_equal(j.version, "untouched"); /* untouched on failure */
}

static void test_probe_timeout(void **state) {
        struct host_java j;
        /* hangs with its output open */
        probe_fake("exec sleep 30", 200, -ETIMEDOUT, &j);
        /* closes its output and lingers: still bounded, still reaped */
        probe_fake("exec >/dev/null 2>&1\nexec sleep 30", 200, -ETIMEDOUT, &j);
}

/* The daemon blocks signals for sd-event; the probe must not hand that mask to java. The
 * stand-in prints its blocked-signal mask as its "version". */
static void test_probe_signal_mask(void **state) {
        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGCHLD);
        sigaddset(&block, SIGTERM);
        assert_int_equal(sigprocmask(SIG_BLOCK, &block, &old), 0);
        struct host_java j;
        probe_fake("m=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status)\n"
                   "echo \"x version \\\"$m\\\"\" >&2",
                   5000, 0, &j);
        assert_int_equal(sigprocmask(SIG_SETMASK, &old, NULL), 0);
        assert_string_equal(j.version, "0000000000000000");
}

static void test_real_java(void **state) {
        char java[PATH_MAX];
        if (host_java_find(getenv("PATH"), java, sizeof java) < 0)
                skip();
        struct host_java j;
        assert_int_equal(host_java_probe(java, HOST_JAVA_PROBE_TIMEOUT_MS, &j), 0);
        assert_string_equal(j.path, java);
        /* "17.0.15", "21", "1.8.0_392": starts with a digit */
        assert_true(j.version[0] >= '1' && j.version[0] <= '9');
        assert_non_null(strstr(j.description, j.version));
        no_children_left();
}

/* The stand-in counts its runs in a file: two lookups, one run; a changed binary, a new run. */
static void test_cache(void **state) {
        char *root = tmp_dir_new("host");
        char body[PATH_MAX + 128], bin[PATH_MAX], count_file[PATH_MAX];
        snprintf(count_file, sizeof count_file, "%s/runs", root);
        snprintf(body, sizeof body, "echo x >> '%s'\necho 'openjdk version \"17.0.1\"' >&2", count_file);
        fake_java(root, body);
        snprintf(bin, sizeof bin, "%s/bin", root);
        _cleanup_free_ char *saved = strdup(getenv("PATH") ? getenv("PATH") : "");
        assert_int_equal(setenv("PATH", bin, 1), 0);

        struct host_java j;
        assert_int_equal(host_java_get(&j), 0);
        assert_string_equal(j.version, "17.0.1");
        assert_int_equal(host_java_get(&j), 0);
        _cleanup_free_ char *runs = NULL;
        size_t size;
        assert_int_equal(read_file_bounded(count_file, 1024, &runs, &size), 0);
        assert_int_equal(size, 2); /* one run */

        /* replaced binary (another size): probed again */
        snprintf(body, sizeof body, "echo x >> '%s'\necho 'openjdk version \"17.0.99\"' >&2", count_file);
        fake_java(root, body);
        assert_int_equal(host_java_get(&j), 0);
        assert_string_equal(j.version, "17.0.99");
        free(runs);
        runs = NULL;
        assert_int_equal(read_file_bounded(count_file, 1024, &runs, &size), 0);
        assert_int_equal(size, 4);

        /* no java on PATH */
        assert_int_equal(setenv("PATH", "/nonexistent", 1), 0);
        assert_int_equal(host_java_get(&j), -ENOENT);
        assert_int_equal(setenv("PATH", saved, 1), 0);
        no_children_left();
        tmp_dir_free(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_probe_stand_ins),
                cmocka_unit_test(test_probe_timeout),
                cmocka_unit_test(test_probe_signal_mask),
                cmocka_unit_test(test_real_java),
                cmocka_unit_test(test_cache),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
