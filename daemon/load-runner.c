/* load-runner.c: peer loads on the event loop (see load-runner.h). */
#include "daemon/load-runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "cgroup/cgroup.h"
#include "daemon/capture.h"
#include "daemon/child.h"
#include "daemon/run-files.h"
#include "daemon/run-plan.h"
#include "definition/definition.h"
#include "storage/loads.h"

#define LOADS_MAX 64
/* A stopped injector (SIGTERM) sends nothing more at once and closes its files after at most a
 * second of drain; one stopped while it still calibrates finishes that first (a fraction of a
 * second, seen above 2 s on a loaded machine). Past this the slice kill ends it. */
#define STOP_GRACE_USEC (10 * USEC_PER_SEC)

struct load {
        struct load_runner *runner;
        char id[ID_LEN + 1];
        struct cpulist cpus;
        char dir[300];          /* the state dir is at most 200 characters */
        struct cgroup_run *cg;
        struct child injector;
        sd_event_source *lease_timer;
        struct capture out;     /* load.log: the injector's stdout and stderr */
        struct {                /* the end decided when it was asked to stop */
                bool asked;
                const char *state, *reason;
                char message[256];
        } stop;
};

struct load_runner {
        struct run_context ctx;
        struct load *active[LOADS_MAX];
        size_t n_active;
        void (*changed)(void *userdata);
        void *userdata;
        bool shutting_down;
};

int load_runner_new(const struct run_context *ctx, void (*changed)(void *userdata), void *userdata,
                    struct load_runner **ret) {
        struct load_runner *lr = calloc(1, sizeof *lr);
        if (!lr)
                return -ENOMEM;
        *lr = (struct load_runner){ .ctx = *ctx, .changed = changed, .userdata = userdata };
        *ret = lr;
        return 0;
}

size_t load_runner_active(const struct load_runner *lr) {
        return lr ? lr->n_active : 0;
}

void load_runner_cpus(const struct load_runner *lr, struct cpulist *ret) {
        *ret = (struct cpulist){ 0 };
        for (size_t i = 0; lr && i < lr->n_active; i++)
                cpulist_union(ret, &lr->active[i]->cpus);
}

/* ---- the end of a load -------------------------------------------------------------------- */

static void load_free(struct load *l) {
        l->lease_timer = sd_event_source_disable_unref(l->lease_timer);
        child_reap(&l->injector);
        capture_close(&l->out);
        cgroup_run_free(l->cg);
        free(l);
}

static void forget(struct load_runner *lr, struct load *l) {
        for (size_t i = 0; i < lr->n_active; i++)
                if (lr->active[i] == l) {
                        lr->active[i] = lr->active[--lr->n_active];
                        break;
                }
}

/* Kill the slice (the last word on every process of the load), reap, record the end. */
static void load_end(struct load *l, const char *state, const char *reason, const char *message, const char *summary) {
        struct load_runner *lr = l->runner;
        l->lease_timer = sd_event_source_disable_unref(l->lease_timer);
        if (l->cg) {
                int k = cgroup_run_destroy(l->cg);
                if (k < 0)
                        log_error_errno(k, "load %s: removing its slice", l->id);
        }
        child_reap(&l->injector);
        int k = loads_finish(lr->ctx.db, l->id, state, reason, message, summary);
        if (k < 0)
                log_error_errno(k, "load %s: cannot record its end", l->id);
        log_full(strcmp(state, "succeeded") == 0 ? LOG_INFO : LOG_WARNING, 0, NULL, NULL, "load %s: %s%s%s%s%s", l->id,
                 state, reason ? " (" : "", reason ? reason : "", reason ? "): " : "", message ? message : "");
        forget(lr, l);
        load_free(l);
        if (!lr->shutting_down && lr->changed)
                lr->changed(lr->userdata);
}

/* The injector's summary.json, as the run user left it: read beneath the load's directory, no
 * symlink, bounded, and JSON. */
static char *read_summary(const struct load *l, char *why, size_t why_size) {
        _cleanup_close_ int fd = -1;
        if (run_file_open(l->dir, "summary.json", RUN_FILE_CAP_SUMMARY, &fd, why, why_size) < 0)
                return NULL;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int k = read_fd_bounded(fd, RUN_FILE_CAP_SUMMARY, &text, &len);
        if (k < 0) {
                snprintf(why, why_size, "cannot read summary.json: %s", strerror(-k));
                return NULL;
        }
        _cleanup_json_ cJSON *j = cJSON_ParseWithLength(text, len);
        char *compact = j ? cJSON_PrintUnformatted(j) : NULL;
        if (!compact)
                snprintf(why, why_size, "summary.json is not JSON");
        return compact;
}

static void on_injector_exit(struct child *c, void *userdata) {
        struct load *l = userdata;
        int code = c->code;
        struct child_end end;
        child_describe_end(c, &l->out, &end);
        char why[512] = "";
        if (l->stop.asked) {
                /* Stopped by us: the end was decided then; its files are complete (the summary
                 * says "stopped"), kept for a coordinator that wants the partial timeline. */
                _cleanup_free_ char *partial = code == 0 ? read_summary(l, why, sizeof why) : NULL;
                load_end(l, l->stop.state, l->stop.reason, l->stop.message, partial);
                return;
        }
        if (code != 0) {
                char message[3072];
                snprintf(message, sizeof message, "the injector %s%s; its last output:\n%s", c->signal ? "was " : "", end.how,
                         end.tail);
                load_end(l, "failed", "load_failed", message, NULL);
                return;
        }
        _cleanup_free_ char *summary = read_summary(l, why, sizeof why);
        if (!summary)
                load_end(l, "failed", "collect", why, NULL);
        else
                load_end(l, "succeeded", NULL, NULL, summary);
}

static void on_grace_over(struct child *c, void *userdata) {
        struct load *l = userdata;
        load_end(l, l->stop.state, l->stop.reason, l->stop.message, NULL);
}

/* Cancel or a lapsed lease: SIGTERM first, so the injector sends nothing more at once and closes
 * its timeline and summary whole (what a coordinator keeps of a failed run); the slice kill
 * follows when it has exited, or after STOP_GRACE_USEC. */
static void load_stop(struct load *l, const char *state, const char *reason, const char *message) {
        if (l->stop.asked)
                return;
        l->stop.asked = true;
        l->stop.state = state;
        l->stop.reason = reason;
        snprintf(l->stop.message, sizeof l->stop.message, "%s", message);
        l->lease_timer = sd_event_source_disable_unref(l->lease_timer);
        if (!l->injector.running || child_stop(&l->injector, l->runner->ctx.event, SIGTERM, STOP_GRACE_USEC, on_grace_over) < 0)
                load_end(l, state, reason, message, NULL);
}

/* ---- the lease ---------------------------------------------------------------------------- */

/* Renewals move the lease's end in the store; the timer fires at the end it knew and looks
 * again, so a renewal needs no wakeup of the loop. */
static int on_lease(sd_event_source *s, uint64_t usec, void *userdata) {
        struct load *l = userdata;
        int64_t expires;
        bool cancel;
        int k = loads_lease(l->runner->ctx.db, l->id, &expires, &cancel);
        if (k < 0) {
                load_end(l, "failed", "internal", "cannot read the load's lease", NULL);
                return 0;
        }
        if (cancel) {
                load_stop(l, "cancelled", "cancelled", "the load was cancelled (DELETE)");
                return 0;
        }
        int64_t now = now_mono_ns();
        if (expires <= now) {
                char message[256];
                snprintf(message, sizeof message,
                         "the coordinator did not renew the lease: it lapsed %.3f s ago, and the load was stopped",
                         (double) (now - expires) / (double) NSEC_PER_SEC);
                load_stop(l, "expired", "lease_expired", message);
                return 0;
        }
        k = sd_event_source_set_time(s, (uint64_t) expires / NSEC_PER_USEC);
        if (k >= 0)
                k = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (k < 0)
                load_end(l, "failed", "internal", "cannot re-arm the lease timer", NULL);
        return 0;
}

static int arm_lease(struct load *l) {
        int64_t expires;
        bool cancel;
        int k = loads_lease(l->runner->ctx.db, l->id, &expires, &cancel);
        if (k < 0)
                return k;
        /* sd-event's CLOCK_MONOTONIC is ours, in microseconds. */
        return sd_event_add_time(l->runner->ctx.event, &l->lease_timer, CLOCK_MONOTONIC,
                                 (uint64_t) MAX(expires, (int64_t) 1) / NSEC_PER_USEC, 1000, on_lease, l);
}

/* ---- the start ---------------------------------------------------------------------------- */

static int make_dir(struct load *l, const struct run_context *ctx) {
        if (snprintf(l->dir, sizeof l->dir, "%s/runs/load-%s", ctx->state_dir, l->id) >= (int) sizeof l->dir)
                return -ENAMETOOLONG;
        if (mkdir(l->dir, 0750) < 0 && errno != EEXIST)
                return negative_errno();
        /* The injector writes its timeline and summary here as the --run-as user. */
        if (ctx->set_user && chown(l->dir, ctx->uid, ctx->gid) < 0)
                return negative_errno();
        return 0;
}

static int spawn_injector(struct load *l, const struct definition *d, const struct queued_load *q, char *why,
                          size_t why_size) {
        const struct run_context *ctx = &l->runner->ctx;
        const struct run_plan_peer peer = { .start_at_ns = q->start_at_ns, .phase_ns = q->phase_ns, .seed = q->seed };
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL;
        int k = run_plan_peer_load_argv(d, l->dir, ctx->injector_path, &peer, &argv);
        if (k >= 0)
                k = run_plan_load_env(&env);
        if (k < 0) {
                snprintf(why, why_size, "cannot build the injector's command: %s", strerror(-k));
                return k;
        }
        char path[sizeof l->dir + 16];
        snprintf(path, sizeof path, "%s/load.log", l->dir);
        int out_fd = -1;
        k = capture_open(&l->out, ctx->event, path, NULL, NULL, NULL, &out_fd);
        if (k < 0) {
                snprintf(why, why_size, "cannot capture the injector's output in %s: %s", path, strerror(-k));
                return k;
        }
        struct spawn_params p = {
                .argv = argv, .envp = env, .cwd = l->dir, .stdin_fd = -1, .stdout_fd = out_fd, .stderr_fd = out_fd,
                .set_user = ctx->set_user, .uid = ctx->uid, .gid = ctx->gid,
                .death_signal = CHILD_LOAD_DEATH_SIGNAL,
        };
        k = child_spawn(&l->injector, l->cg, SLICE_LOAD, &p);
        close(out_fd);
        if (k < 0) {
                snprintf(why, why_size, "cannot start %s: %s", argv[0], strerror(-k));
                return k;
        }
        k = child_watch(&l->injector, ctx->event, on_injector_exit, l);
        if (k < 0)
                snprintf(why, why_size, "cannot watch the injector: %s", strerror(-k));
        return k;
}

/* Slice, row to running, injector, lease timer; a step that fails ends the load failed (the
 * slice kill in load_end undoes the rest). */
static void start_one(struct load_runner *lr, const struct queued_load *q) {
        struct load *l = calloc(1, sizeof *l);
        if (!l) {
                (void) loads_finish(lr->ctx.db, q->id, "failed", "internal", "out of memory", NULL);
                return;
        }
        *l = (struct load){ .runner = lr, .cpus = q->cpus, .injector = CHILD_INIT("injector") };
        l->out.pipe_fd = l->out.file.fd = -1;
        snprintf(l->id, sizeof l->id, "%s", q->id);
        lr->active[lr->n_active++] = l;

        char why[1024] = "";
        struct error err = { 0 };
        _cleanup_(definition_freep) struct definition *d = NULL;
        int k = definition_parse(q->definition, strlen(q->definition), NULL, &d, &err);
        if (k < 0) {
                snprintf(why, sizeof why, "the stored load no longer parses: %s: %s", err.field, err.message);
                goto fail;
        }
        k = make_dir(l, &lr->ctx);
        if (k < 0) {
                snprintf(why, sizeof why, "cannot create the load's directory %s: %s", l->dir, strerror(-k));
                goto fail;
        }
        struct slice_limits sut, limits;
        run_plan_limits(d, 0, &sut, &limits);
        limits.cpus = q->cpus;
        k = cgroup_load_create(lr->ctx.cgroups, l->id, &limits, &l->cg);
        if (k < 0) {
                snprintf(why, sizeof why, "cannot create the load's slice under %s: %s", cgroup_manager_root(lr->ctx.cgroups),
                         strerror(-k));
                goto fail;
        }
        k = loads_set_running(lr->ctx.db, l->id, slice_cgroup_path(l->cg, SLICE_LOAD));
        if (k == -ESTALE) {
                /* Cancelled (or ended) between the read and now: nothing ran. */
                load_end(l, "cancelled", "cancelled", "the load was cancelled before it started", NULL);
                return;
        }
        if (k >= 0)
                k = spawn_injector(l, d, q, why, sizeof why);
        if (k >= 0)
                k = arm_lease(l);
        if (k >= 0) {
                log_info("load %s: running on CPUs of slice %s", l->id, slice_cgroup_path(l->cg, SLICE_LOAD));
                return;
        }
        if (!why[0])
                snprintf(why, sizeof why, "cannot start the load: %s", strerror(-k));
fail:
        load_end(l, "failed", "start_failed", why, NULL);
}

/* A queued load that may not start: cancelled, its lease already over, or CPUs taken. */
static bool refuse_queued(struct load_runner *lr, const struct queued_load *q, const struct cpulist *busy) {
        int64_t expires;
        bool cancel;
        if (loads_lease(lr->ctx.db, q->id, &expires, &cancel) < 0)
                return false;
        const char *state = NULL, *reason = NULL, *message = NULL;
        struct cpulist held;
        load_runner_cpus(lr, &held);
        if (cancel)
                state = "cancelled", reason = "cancelled", message = "the load was cancelled before it started";
        else if (expires <= now_mono_ns())
                state = "expired", reason = "lease_expired", message = "the lease lapsed before the load started";
        else if (cpulist_intersects(&q->cpus, busy) || cpulist_intersects(&q->cpus, &held))
                state = "failed", reason = "cpus_busy", message = "a run or another load took its CPUs first";
        else
                return false;
        int k = loads_finish(lr->ctx.db, q->id, state, reason, message, NULL);
        if (k < 0)
                log_error_errno(k, "load %s: cannot record its end", q->id);
        log_warning("load %s: %s (%s): %s", q->id, state, reason, message);
        return true;
}

static void honour_cancels(struct load_runner *lr) {
        for (size_t i = 0; i < lr->n_active;) {
                struct load *l = lr->active[i];
                int64_t expires;
                bool cancel = false;
                size_t before = lr->n_active;
                if (!l->stop.asked && loads_lease(lr->ctx.db, l->id, &expires, &cancel) >= 0 && cancel)
                        load_stop(l, "cancelled", "cancelled", "the load was cancelled (DELETE)");
                if (lr->n_active < before)
                        continue;   /* it ended and the array moved: look at index i again */
                i++;
        }
}

void load_runner_kick(struct load_runner *lr, const struct cpulist *busy) {
        if (lr->shutting_down)
                return;
        honour_cancels(lr);
        struct queued_load *q = NULL;
        size_t n = 0;
        if (loads_next_queued(lr->ctx.db, LOADS_MAX, &q, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                if (refuse_queued(lr, &q[i], busy))
                        continue;
                if (lr->n_active == LOADS_MAX)
                        break;
                start_one(lr, &q[i]);
        }
        queued_loads_free(q, n);
}

/* ---- start and stop of the daemon --------------------------------------------------------- */

static bool keep_group(const char *load_id, void *userdata) {
        struct load_runner *lr = userdata;
        bool known = false;
        int r = loads_known(lr->ctx.db, load_id, &known);
        if (r < 0) {
                log_error_errno(r, "cgroup: cannot tell whether load %s is ours; its group stays", load_id);
                return true;
        }
        if (!known)
                log_warning("cgroup: load-%s under the root is not a load of this daemon's database; left alone", load_id);
        return !known;
}

int load_runner_recover(struct load_runner *lr) {
        int64_t n = 0;
        /* A daemon that stops ends its loads itself: what is left, a dead one left, and its
         * injectors died with it (CHILD_LOAD_DEATH_SIGNAL); the slices' removal below is the
         * last word. */
        static const char message[] = "the daemon died while this load was queued or running; nothing of it runs any more";
        int r = loads_interrupt_unfinished(lr->ctx.db, message, &n);
        if (r < 0)
                return log_error_errno(r, "cannot mark unfinished loads as interrupted");
        if (n > 0)
                log_warning("%lld load(s) left unfinished by the previous daemon are now interrupted", (long long) n);
        r = cgroup_reconcile_loads(lr->ctx.cgroups, keep_group, lr);
        if (r < 0)
                return log_error_errno(r, "cannot clean up the load slices left by the previous daemon");
        return 0;
}

void load_runner_shutdown(struct load_runner *lr) {
        if (!lr)
                return;
        lr->shutting_down = true;
        while (lr->n_active > 0)
                load_end(lr->active[lr->n_active - 1], "interrupted", "daemon_shutdown",
                         "the daemon was stopped while this load was in progress", NULL);
}

void load_runner_free(struct load_runner *lr) {
        if (!lr)
                return;
        load_runner_shutdown(lr);
        free(lr);
}
