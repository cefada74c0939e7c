/* child.h: a process the daemon starts for a run or a peer's load (the SUT, the injector or
 * external load, perf, jcmd), spawned into one of the slices and watched through its pidfd on
 * the event loop: its exit recorded and reaped when it comes, a signal and a grace to stop it
 * (past the grace the owner's word, else SIGKILL), and a reap after the slice kill that is the
 * last word on every process of a run. */
#pragma once

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "cgroup/cgroup.h"

struct capture;
struct cJSON;
struct child;

typedef void (*child_fn)(struct child *c, void *userdata);

struct child {
        const char *what;       /* "SUT", "load", "perf", "jcmd", "injector" */
        pid_t pid;
        int pidfd;              /* -1: never spawned, or reaped */
        sd_event_source *exit_source, *grace_timer;
        bool running;           /* spawned and not yet exited */
        bool exited;            /* code and signal below are valid */
        int code;               /* exit code, or -1 when killed */
        int signal;             /* killing signal, or 0 */
        bool killed;            /* by SIGKILL once its grace passed (child_stop() without on_overrun) */
        child_fn on_exit, on_overrun;
        void *userdata;
};

/* The parent-death signal of a load process (the local injector or external load, a capacity
 * step, a peer's injector): a load whose daemon died goes on sending to its target with nobody
 * to measure it, stop it or hold its lease, so it dies with the daemon's main thread (the loop,
 * where every child is spawned). SIGKILL, not the SIGTERM of a stop: nobody is left to read what
 * a drain would write (the next daemon marks the load interrupted), and a drain can take seconds.
 * The SUT, perf and jcmd have none: they load nobody else, and the next daemon's start kills what
 * is left in a run's slices. */
#define CHILD_LOAD_DEATH_SIGNAL SIGKILL

/* A child that never ran. */
#define CHILD_INIT(w) ((struct child){ .what = (w), .pidfd = -1 })

/* slice_spawn() into kind's slice; not watched yet. */
int child_spawn(struct child *c, struct cgroup_run *cg, enum slice_kind kind, const struct spawn_params *p);
/* on_exit(c, userdata) on the loop once it has exited (at once when it already has): the status
 * recorded, the child reaped, its pidfd closed. On failure it is left as it is (the slice kill
 * or child_reap() ends it). */
int child_watch(struct child *c, sd_event *e, child_fn on_exit, void *userdata);
/* child_spawn() then child_watch(). */
int child_start(struct child *c, sd_event *e, struct cgroup_run *cg, enum slice_kind kind, const struct spawn_params *p,
                child_fn on_exit, void *userdata);
/* Signal it (sig 0: none; a failure is logged) and give it grace_us to exit: past that
 * on_overrun(c, userdata), or without one SIGKILL (c->killed; its exit follows). A watched child
 * only; 0 when it has already been reaped; -errno when the grace cannot be timed. */
int child_stop(struct child *c, sd_event *e, int sig, uint64_t grace_us, child_fn on_overrun);
/* Spawned and not yet reaped. */
bool child_pending(const struct child *c);
/* Kill it (its slice usually was) and reap it now, its watch and grace dropped, on_exit not
 * called; the status recorded when it could be collected. Idempotent. */
void child_reap(struct child *c);

/* {"code": N, "signal": null} or {"code": null, "signal": N}; null when it never exited. */
struct cJSON *child_exit_json(const struct child *c);

/* How a child ended and the last lines it wrote, for a failure message. */
struct child_end {
        char how[96];
        char tail[2048];
};
/* out is closed (what is left read) before its tail is taken. */
void child_describe_end(const struct child *c, struct capture *out, struct child_end *ret);
