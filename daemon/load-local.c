/* load-local.c: the local load, slicelab-inject or the external command in the run's load slice
 * (see load.h), and the load process it shares with the capacity steps (see load-local.h). */
#include "daemon/load-local.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "daemon/run-files.h"
#include "daemon/run-plan.h"
#include "daemon/warmup-watch.h"
#include "definition/definition.h"

/* ---- the load process ----------------------------------------------------------------------- */

void load_process_init(struct load_process *p, const struct load_run *run, load_process_exit_fn on_exit, void *userdata) {
        *p = (struct load_process){ .run = run, .child = CHILD_INIT("load"), .on_exit = on_exit, .userdata = userdata };
        p->out.pipe_fd = p->out.file.fd = -1;
}

static void on_process_exit(struct child *c, void *userdata) {
        struct load_process *p = userdata;
        if (c->code == 0) {
                p->on_exit(p, p->userdata);
                return;
        }
        struct child_end end;
        char message[sizeof end.how + sizeof end.tail + 64];
        child_describe_end(c, &p->out, &end);
        snprintf(message, sizeof message, "the load %s; its last output:\n%s", end.how, end.tail);
        p->run->events->finished(p->run->userdata, -ECHILD, "load_failed", message);
}

int load_process_spawn(struct load_process *p, char **argv, char **env) {
        const struct load_run *run = p->run;
        char path[PATH_MAX];
        int out_fd = -1;
        capture_close(&p->out);
        if (snprintf(path, sizeof path, "%s/load.log", run->dir) >= (int) sizeof path)
                return -ENAMETOOLONG;
        int k = capture_open(&p->out, run->event, path, NULL, NULL, NULL, &out_fd);
        if (k < 0)
                return k;
        struct spawn_params sp = {
                .argv = argv,
                .envp = env,
                .cwd = run->dir,
                .stdin_fd = -1,
                .stdout_fd = out_fd,
                .stderr_fd = out_fd,
                .set_user = run->set_user,
                .uid = run->uid,
                .gid = run->gid,
                .death_signal = CHILD_LOAD_DEATH_SIGNAL,
        };
        k = child_start(&p->child, run->event, run->cg, SLICE_LOAD, &sp, on_process_exit, p);
        close(out_fd);
        if (k >= 0)
                run->events->started(run->userdata);
        return k;
}

void load_process_reap(struct load_process *p) {
        child_reap(&p->child);
        capture_close(&p->out);
}

/* ---- the local load ------------------------------------------------------------------------- */

struct load_local {
        struct load load;
        struct load_process process;
        sd_event_source *phase_timer;   /* warmup's end; with warmup "auto", its bound */
        struct warmup_watch *watch;     /* warmup "auto": while it lasts */
        bool auto_steady;               /* warmup "auto" ended on a steady run (else at its bound) */
        char auto_message[512];         /* why it ended */
};

static struct load_local *local_of(const struct load *l) {
        return (struct load_local *) l; /* its head */
}

static void on_local_exit(struct load_process *p, void *userdata) {
        struct load_local *ll = userdata;
        ll->phase_timer = sd_event_source_disable_unref(ll->phase_timer);
        ll->watch = warmup_watch_free(ll->watch);
        p->run->events->finished(p->run->userdata, 0, NULL, NULL);
}

static int local_new(const struct load_run *run, struct load **ret) {
        struct load_local *ll = calloc(1, sizeof *ll);
        if (!ll)
                return -ENOMEM;
        load_process_init(&ll->process, run, on_local_exit, ll);
        *ret = &ll->load;
        return 0;
}

/* Measure begins here and in the injector at once: a warmup "auto" is the daemon's to end. */
static void end_warmup(struct load_local *ll, const char *message) {
        const struct load_run *run = ll->load.run;
        ll->phase_timer = sd_event_source_disable_unref(ll->phase_timer);
        ll->watch = warmup_watch_free(ll->watch);
        if (run->def->load.warmup_auto && ll->process.child.running)
                (void) kill(ll->process.child.pid, SIGUSR1);
        run->events->measure(run->userdata, message);
}

#define WARMUP_HEADER_RECHECK_US (USEC_PER_SEC / 10)

/* The injector's warmup runs from its schedule's start, which it writes in the timeline's header
 * with the measure phase's start once connected and calibrated (0.7-2.6 s after the spawn): the
 * daemon's measure begins at that instant too. A timer from the spawn began it early: the
 * counters' window (throttling, CPU, other work, energy, the profile) took in the warmup's last
 * seconds, and a warmup "auto" reached its bound with 7.4 s of a 10 s one warmed. Until the
 * header is there, the timer looks again shortly (the injector's exit disarms it). True when
 * the end was moved. */
static bool warmup_end_moved(struct load_local *ll, sd_event_source *s, uint64_t usec) {
        struct timeline_header h;
        uint64_t at;
        int r = run_file_timeline_header(ll->load.run->dir, "timeline.bin", &h);
        if (r == -ENODATA)
                at = usec + WARMUP_HEADER_RECHECK_US;
        else if (r < 0 || h.measure_start_ns <= 0)
                return false;   /* measured from here; the collection says what is wrong with the file */
        else
                at = (uint64_t) h.measure_start_ns / NSEC_PER_USEC;
        if (at <= usec)
                return false;
        return sd_event_source_set_time(s, at) >= 0 && sd_event_source_set_enabled(s, SD_EVENT_ONESHOT) >= 0;
}

static int on_warmup_over(sd_event_source *s, uint64_t usec, void *userdata) {
        struct load_local *ll = userdata;
        const struct load_run *run = ll->load.run;
        if (warmup_end_moved(ll, s, usec))
                return 0;
        if (ll->watch) {
                char where[384];
                warmup_watch_describe(ll->watch, where, sizeof where);
                snprintf(ll->auto_message, sizeof ll->auto_message,
                         "warmup \"auto\": not steady when warmup_max_s (%u s) ran out, measured from there: %s",
                         run->def->load.warmup_s, where);
                run->events->warn(run->userdata, ll->auto_message);
        }
        end_warmup(ll, ll->watch ? ll->auto_message : NULL);
        return 0;
}

static void on_steady(void *userdata, const char *why) {
        struct load_local *ll = userdata;
        ll->auto_steady = true;
        snprintf(ll->auto_message, sizeof ll->auto_message, "warmup \"auto\": steady: %s", why);
        end_warmup(ll, ll->auto_message);
}

static int start_warmup_watch(struct load_local *ll) {
        const struct load_run *run = ll->load.run;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/timeline.bin", run->dir) >= (int) sizeof path)
                return -ENAMETOOLONG;
        return warmup_watch_new(run->event, path, run->def->load.mode == DEFINITION_MODE_MAX, run->def->sut.jvm,
                                run->series, on_steady, ll, &ll->watch);
}

/* The injector's warmup is a timer from its start; an external tool measures from its start. */
static int local_start(struct load *l, char *why, size_t why_size) {
        struct load_local *ll = local_of(l);
        const struct load_run *run = l->run;
        const struct definition_load *d = &run->def->load;
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL;
        int k = run_plan_load_argv(run->def, run->dir, run->injector_path, &argv);
        if (k >= 0)
                k = run_plan_load_env(&env);
        if (k >= 0)
                k = load_process_spawn(&ll->process, argv, env);
        if (k < 0) {
                snprintf(why, why_size, "cannot start the load %s: %s", argv ? argv[0] : "", strerror(-k));
                return k;
        }
        if (d->kind != DEFINITION_LOAD_INJECTOR || d->warmup_s == 0) {
                run->events->measure(run->userdata, NULL);
                return 0;
        }
        run->events->warmup(run->userdata, NULL);
        uint64_t now;
        sd_event_now(run->event, CLOCK_MONOTONIC, &now);
        k = sd_event_add_time(run->event, &ll->phase_timer, CLOCK_MONOTONIC, now + (uint64_t) d->warmup_s * USEC_PER_SEC,
                              1000, on_warmup_over, ll);
        if (k < 0) {
                snprintf(why, why_size, "cannot time the load's warmup: %s", strerror(-k));
                return k;
        }
        if (d->warmup_auto && (k = start_warmup_watch(ll)) < 0)
                snprintf(why, why_size, "cannot watch the warmup for a steady state: %s", strerror(-k));
        return k;
}

/* metrics.warmup_auto: how the warmup ended. */
static void local_metrics(const struct load *l, cJSON *metrics) {
        const struct load_local *ll = local_of(l);
        if (!l->run->def->load.warmup_auto || !ll->auto_message[0])
                return;
        cJSON *o = cJSON_AddObjectToObject(metrics, "warmup_auto");
        if (!o)
                return;
        cJSON_AddBoolToObject(o, "steady", ll->auto_steady);
        cJSON_AddStringToObject(o, "message", ll->auto_message);
}

static void local_reap(struct load *l) {
        struct load_local *ll = local_of(l);
        ll->phase_timer = sd_event_source_disable_unref(ll->phase_timer);
        ll->watch = warmup_watch_free(ll->watch);
        load_process_reap(&ll->process);
}

static const struct child *local_child(const struct load *l) {
        return &local_of(l)->process.child;
}

static void local_free(struct load *l) {
        local_reap(l);
        free(local_of(l));
}

const struct load_ops load_local_ops = {
        .name = "local",
        .slice = true,
        .new = local_new,
        .start = local_start,
        .reap = local_reap,
        .child = local_child,
        .metrics = local_metrics,
        .free = local_free,
};
