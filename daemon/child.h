/* child.h: a process of a run (the SUT, the load), spawned into one of the run's slices and
 * watched through its pidfd on the event loop: its exit recorded as the run's exits show it, and
 * reaped after the slice kill that is the last word on every process of a run. */
#pragma once

#include <stdbool.h>
#include <signal.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "cgroup/cgroup.h"

struct capture;
struct cJSON;

struct child {
        const char *what;       /* "SUT", "load" */
        pid_t pid;
        int pidfd;
        sd_event_source *source;
        bool running;
        bool exited;            /* status below is valid */
        int code;               /* exit code, or -1 when killed */
        int signal;             /* killing signal, or 0 */
};

/* A child that never ran. */
#define CHILD_INIT(w) ((struct child){ .what = (w), .pidfd = -1 })

/* slice_spawn() into kind's slice, then on_exit(userdata) on the loop when it exits (call
 * child_record() there). When it cannot be watched it is left running: the slice kill ends it. */
int child_spawn(struct child *c, sd_event *e, struct cgroup_run *cg, enum slice_kind kind, const struct spawn_params *p,
                sd_event_child_handler_t on_exit, void *userdata);
void child_record(struct child *c, const siginfo_t *si);
/* After a slice kill: the process is gone or going; its status collected here. Idempotent. */
void child_reap(struct child *c);
/* {"code": N, "signal": null} or {"code": null, "signal": N}; null when it never exited. */
struct cJSON *child_exit_json(const struct child *c);

/* How a child ended and the last lines it wrote, for the run's failure message. */
struct child_end {
        char how[96];
        char tail[2048];
};
/* out is closed (what is left read) before its tail is taken. */
void child_describe_end(const struct child *c, struct capture *out, struct child_end *ret);
