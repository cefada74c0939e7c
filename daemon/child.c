/* child.c: a process of a run in one of its slices, watched on the loop (see child.h). */
#include "daemon/child.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/log.h"
#include "daemon/capture.h"

int child_spawn(struct child *c, sd_event *e, struct cgroup_run *cg, enum slice_kind kind, const struct spawn_params *p,
                sd_event_child_handler_t on_exit, void *userdata) {
        int k = slice_spawn(cg, kind, p, &c->pid, &c->pidfd);
        if (k < 0)
                return k;
        c->running = true;
        k = sd_event_add_child_pidfd(e, &c->source, c->pidfd, WEXITED, on_exit, userdata);
        if (k < 0)
                return log_full(LOG_ERR, k, NULL, NULL, "cannot watch the %s (pid %d)", c->what, (int) c->pid);
        return 0;
}

void child_record(struct child *c, const siginfo_t *si) {
        c->running = false;
        c->exited = true;
        c->code = si->si_code == CLD_EXITED ? si->si_status : -1;
        c->signal = si->si_code == CLD_EXITED ? 0 : si->si_status;
}

void child_reap(struct child *c) {
        c->source = sd_event_source_disable_unref(c->source);
        if (c->running && c->pidfd >= 0) {
                siginfo_t si = { 0 };
                if (waitid(P_PIDFD, (id_t) c->pidfd, &si, WEXITED) == 0)
                        child_record(c, &si);
                c->running = false;
        }
        if (c->pidfd >= 0)
                close(c->pidfd);
        c->pidfd = -1;
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
