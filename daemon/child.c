/* child.c: a process in a slice, watched on the loop (see child.h). */
#include "daemon/child.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/macro.h"
#include "daemon/capture.h"

static int send_signal(const struct child *c, int sig) {
        return syscall(SYS_pidfd_send_signal, c->pidfd, sig, NULL, 0) < 0 ? negative_errno() : 0;
}

static void record(struct child *c, const siginfo_t *si) {
        c->running = false;
        c->exited = true;
        c->code = si->si_code == CLD_EXITED ? si->si_status : -1;
        c->signal = si->si_code == CLD_EXITED ? 0 : si->si_status;
}

static void unwatch(struct child *c) {
        c->exit_source = sd_event_source_disable_unref(c->exit_source);
        c->grace_timer = sd_event_source_disable_unref(c->grace_timer);
        if (c->pidfd >= 0)
                close(c->pidfd);
        c->pidfd = -1;
}

int child_spawn(struct child *c, struct cgroup_run *cg, enum slice_kind kind, const struct spawn_params *p) {
        int k = slice_spawn(cg, kind, p, &c->pid, &c->pidfd);
        if (k < 0)
                return k;
        c->running = true;
        c->exited = c->killed = false;
        return 0;
}

static int on_child_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        struct child *c = userdata;
        record(c, si);
        /* reaped here, while the pidfd is ours (sd-event's own reap after us then finds nothing) */
        siginfo_t reaped = { 0 };
        (void) waitid(P_PIDFD, (id_t) c->pidfd, &reaped, WEXITED | WNOHANG);
        unwatch(c);
        c->on_exit(c, c->userdata);
        return 0;
}

int child_watch(struct child *c, sd_event *e, child_fn on_exit, void *userdata) {
        if (c->pidfd < 0)
                return -ECHILD;
        c->on_exit = on_exit;
        c->userdata = userdata;
        int k = sd_event_add_child_pidfd(e, &c->exit_source, c->pidfd, WEXITED, on_child_exit, c);
        if (k < 0)
                return log_full(LOG_ERR, k, NULL, NULL, "cannot watch the %s (pid %d)", c->what, (int) c->pid);
        return 0;
}

int child_start(struct child *c, sd_event *e, struct cgroup_run *cg, enum slice_kind kind, const struct spawn_params *p,
                child_fn on_exit, void *userdata) {
        int k = child_spawn(c, cg, kind, p);
        return k < 0 ? k : child_watch(c, e, on_exit, userdata);
}

static int on_grace_over(sd_event_source *s, uint64_t usec, void *userdata) {
        struct child *c = userdata;
        c->grace_timer = sd_event_source_disable_unref(c->grace_timer);
        if (c->on_overrun) {
                c->on_overrun(c, c->userdata);
                return 0;
        }
        c->killed = true;
        (void) send_signal(c, SIGKILL);
        return 0; /* on_child_exit() reaps it and tells */
}

int child_stop(struct child *c, sd_event *e, int sig, uint64_t grace_us, child_fn on_overrun) {
        if (c->pidfd < 0)
                return 0;
        uint64_t now;
        c->on_overrun = on_overrun;
        c->grace_timer = sd_event_source_disable_unref(c->grace_timer);
        int k = sd_event_now(e, CLOCK_MONOTONIC, &now);
        if (k >= 0)
                k = sd_event_add_time(e, &c->grace_timer, CLOCK_MONOTONIC, now + grace_us, 1000, on_grace_over, c);
        if (k < 0)
                return k;
        /* one that cannot be signalled is going already: its exit or the grace comes */
        int e_sig = sig ? send_signal(c, sig) : 0;
        if (e_sig < 0)
                log_full(LOG_WARNING, e_sig, NULL, NULL, "cannot send signal %d to the %s (pid %d)", sig, c->what, (int) c->pid);
        return 0;
}

bool child_pending(const struct child *c) {
        return c->pidfd >= 0;
}

void child_reap(struct child *c) {
        c->exit_source = sd_event_source_disable_unref(c->exit_source);
        if (c->running && c->pidfd >= 0) {
                siginfo_t si = { 0 };
                (void) send_signal(c, SIGKILL);
                if (waitid(P_PIDFD, (id_t) c->pidfd, &si, WEXITED) == 0)
                        record(c, &si);
                c->running = false;
        }
        unwatch(c);
}

cJSON *child_exit_json(const struct child *c) {
        if (!c->exited)
                return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject();
        if (c->signal)
                cJSON_AddNullToObject(o, "code");
        else
                cJSON_AddNumberToObject(o, "code", c->code);
        if (c->signal)
                cJSON_AddNumberToObject(o, "signal", c->signal);
        else
                cJSON_AddNullToObject(o, "signal");
        return o;
}

void child_describe_end(const struct child *c, struct capture *out, struct child_end *ret) {
        if (c->signal)
                snprintf(ret->how, sizeof ret->how, "killed by signal %d (%s)", c->signal, strsignal(c->signal));
        else
                snprintf(ret->how, sizeof ret->how, "exited with code %d", c->code);
        capture_close(out);
        capture_tail(out, ret->tail, sizeof ret->tail);
}
