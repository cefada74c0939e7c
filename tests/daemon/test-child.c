/* test-child.c: a child's end as the run's event loop sees it (daemon/child.h's child_watch and
 * child_stop, with perf's and jcmd's results by daemon/profile.h's profile_child_result): a
 * child that exits, fails, or ends by the SIGINT that stops perf is told with its result and
 * reaped; one that outlives its grace is killed, told -ETIMEDOUT and reaped, or handed to the
 * owner's overrun; teardown's reap kills and reaps without telling. Real processes (sh)
 * on a real sd-event loop; nothing is waited for but their events. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/child.h"
#include "daemon/profile.h"

extern char **environ;

struct outcome {
        bool ended;
        int result;
};

static void on_end(struct child *c, void *userdata) {
        struct outcome *o = userdata;
        assert_int_equal(c->pidfd, -1);
        assert_false(c->running);
        o->ended = true;
        o->result = profile_child_result(c);
}

static struct child spawn_sh(const char *script) {
        pid_t pid;
        char *argv[] = { "sh", "-c", (char *) script, NULL };
        assert_int_equal(posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ), 0);
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        assert_true(pidfd >= 0);
        struct child c = CHILD_INIT("sh");
        c.pid = pid;
        c.pidfd = pidfd;
        c.running = true;
        return c;
}

/* Not ours any more: reaped. */
static void assert_reaped(pid_t pid) {
        assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
        assert_int_equal(errno, ECHILD);
}

static int end_of(const char *script, uint64_t limit_us) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        struct child c = spawn_sh(script);
        struct outcome o = { 0 };
        assert_int_equal(child_watch(&c, e, on_end, &o), 0);
        assert_int_equal(child_stop(&c, e, 0, limit_us, NULL), 0);
        assert_true(child_pending(&c));
        while (!o.ended)
                assert_true(sd_event_run(e, UINT64_MAX) >= 0);
        assert_false(child_pending(&c));
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

/* The SUT's stop: SIGTERM, then the owner's word once the grace passes (the run kills the slice). */
static void on_overrun(struct child *c, void *userdata) {
        struct outcome *o = userdata;
        assert_true(c->running);
        o->ended = true;
        o->result = -ETIMEDOUT;
        child_reap(c);
}

static void test_stop_signal_and_overrun(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        /* SIGTERM ends it: told with its signal */
        struct child c = spawn_sh("exec sleep 600");
        struct outcome o = { 0 };
        assert_int_equal(child_watch(&c, e, on_end, &o), 0);
        assert_int_equal(child_stop(&c, e, SIGTERM, LONG_US, on_overrun), 0);
        while (!o.ended)
                assert_true(sd_event_run(e, UINT64_MAX) >= 0);
        assert_true(c.exited);
        assert_int_equal(c.signal, SIGTERM);
        assert_reaped(c.pid);
        /* SIGTERM ignored, a grace of 1 ms: the overrun is the owner's, who reaps. Ignored from
         * its exec on (a disposition the child inherits), not by a trap the signal could beat. */
        struct sigaction ignore = { .sa_handler = SIG_IGN }, saved;
        assert_int_equal(sigaction(SIGTERM, &ignore, &saved), 0);
        c = spawn_sh("while :; do sleep 1; done");
        assert_int_equal(sigaction(SIGTERM, &saved, NULL), 0);
        o = (struct outcome){ 0 };
        assert_int_equal(child_watch(&c, e, on_end, &o), 0);
        assert_int_equal(child_stop(&c, e, SIGTERM, 1000, on_overrun), 0);
        while (!o.ended)
                assert_true(sd_event_run(e, UINT64_MAX) >= 0);
        assert_int_equal(o.result, -ETIMEDOUT);
        assert_false(child_pending(&c));
        assert_reaped(c.pid);
        sd_event_unref(e);
}

static void test_teardown_reap(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        struct child c = spawn_sh("exec sleep 600");
        struct outcome o = { 0 };
        assert_int_equal(child_watch(&c, e, on_end, &o), 0);
        assert_int_equal(child_stop(&c, e, 0, LONG_US, NULL), 0);
        child_reap(&c);
        assert_false(child_pending(&c));
        assert_true(c.exited);
        assert_int_equal(c.signal, SIGKILL);
        assert_reaped(c.pid);
        /* nothing left on the loop: no source fires, on_end never runs */
        assert_int_equal(sd_event_run(e, 0), 0);
        assert_false(o.ended);
        child_reap(&c); /* twice is harmless */
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
                cmocka_unit_test(test_stop_signal_and_overrun),
                cmocka_unit_test(test_teardown_reap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
