/* test-profile-child.c: perf's and jcmd's ends as the run's event loop sees them
 * (daemon/profile.h's profile_child_watch): a child that exits, fails, or ends by the SIGINT that
 * stops perf is told with its result and reaped; one that outlives its limit is killed, told
 * -ETIMEDOUT and reaped; teardown's reap kills and reaps without telling. Real processes (sh)
 * on a real sd-event loop; nothing is waited for but their events. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/profile.h"

extern char **environ;

struct outcome {
        bool ended;
        int result;
};

static void on_end(struct profile_child *c, int result, void *userdata) {
        struct outcome *o = userdata;
        assert_int_equal(c->pidfd, -1);
        o->ended = true;
        o->result = result;
}

static struct profile_child spawn_sh(const char *script) {
        pid_t pid;
        char *argv[] = { "sh", "-c", (char *) script, NULL };
        assert_int_equal(posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ), 0);
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        assert_true(pidfd >= 0);
        return (struct profile_child){ .pid = pid, .pidfd = pidfd };
}

/* Not ours any more: reaped. */
static void assert_reaped(pid_t pid) {
        assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
        assert_int_equal(errno, ECHILD);
}

static int end_of(const char *script, uint64_t limit_us) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        struct profile_child c = spawn_sh(script);
        struct outcome o = { 0 };
        assert_int_equal(profile_child_watch(e, &c, limit_us, on_end, &o), 0);
        assert_true(profile_child_pending(&c));
        while (!o.ended)
                assert_true(sd_event_run(e, UINT64_MAX) >= 0);
        assert_false(profile_child_pending(&c));
        assert_reaped(c.pid);
        sd_event_unref(e);
        return o.result;
}

#define LONG_US (600 * 1000000ULL)

static void test_exits(void **state) {
        assert_int_equal(end_of("exit 0", LONG_US), 0);
        assert_int_equal(end_of("exit 3", LONG_US), -ECHILD);
        /* perf record re-raises the SIGINT that stopped it once its data is out: a clean end */
        assert_int_equal(end_of("kill -INT $$", LONG_US), 0);
        assert_int_equal(end_of("kill -KILL $$", LONG_US), -ECHILD);
}

static void test_overrun_killed(void **state) {
        /* a limit of 1 ms: the child cannot end by itself before it, however slow the machine */
        assert_int_equal(end_of("exec sleep 600", 1000), -ETIMEDOUT);
}

static void test_teardown_reap(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        struct profile_child c = spawn_sh("exec sleep 600");
        struct outcome o = { 0 };
        assert_int_equal(profile_child_watch(e, &c, LONG_US, on_end, &o), 0);
        profile_child_reap(&c);
        assert_false(profile_child_pending(&c));
        assert_reaped(c.pid);
        /* nothing left on the loop: no source fires, on_end never runs */
        assert_int_equal(sd_event_run(e, 0), 0);
        assert_false(o.ended);
        profile_child_reap(&c); /* twice is harmless */
        sd_event_unref(e);
}

int main(void) {
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD); /* as the daemon does: child events come through the loop */
        sigprocmask(SIG_BLOCK, &mask, NULL);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_exits),
                cmocka_unit_test(test_overrun_killed),
                cmocka_unit_test(test_teardown_reap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
