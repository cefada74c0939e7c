/* run.c: one run's state machine on the event loop. */
#include "daemon/run.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/capacity-steps.h"
#include "daemon/capture.h"
#include "cgroup/cgroup.h"
#include "daemon/collect.h"
#include "daemon/collect-worker.h"
#include "storage/db.h"
#include "definition/definition.h"
#include "definition/definition-policy.h"
#include "basic/id.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "daemon/preflight.h"
#include "daemon/run-peers.h"
#include "daemon/run-plan.h"
#include "host/host-cpufreq.h"
#include "host/host-info.h"
#include "daemon/probe.h"
#include "daemon/profile.h"
#include "host/host-java.h"
#include "host/host-perf.h"
#include "daemon/samples.h"
#include "basic/time-util.h"
#include "basic/utf8.h"

#define SUT_STOP_GRACE_US (10 * 1000000ULL)
#define FREQ_SAMPLE_US 250000
#define SERIES_SAMPLE_US 1000000

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

struct run {
        struct run_context ctx;
        char id[ID_LEN + 1];
        char experiment_id[ID_LEN + 1];
        struct definition *def;
        size_t cell;
        int state;
        char dir[PATH_MAX];
        struct run_cpus cpus;
        struct cgroup_run *cg;
        struct child sut, load;
        struct capture sut_out, sut_err, load_out;
        struct capture_file sut_log;    /* stdout and stderr together */
        regex_t ready_regex;
        bool has_ready_regex, ready;
        struct probe *probe;
        sd_event_source *ready_timer, *phase_timer, *deadline_timer, *grace_timer, *done_defer, *freq_timer;
        struct host_freq_sampler *freq;
        sd_event_source *series_timer;
        struct samples series;
        struct host_rapl rapl;
        bool has_rapl;
        int64_t measure_start_ns, measure_end_ns;
        struct collect_baseline baseline, end;
        /* a capacity search (load.mode capacity): steps of the injector within this SUT's life */
        bool capacity;
        struct capacity_steps search;
        sd_event_source *step_defer;
        struct collect_worker *collector;       /* collecting: the worker thread, or NULL */
        struct run_peers *remote;               /* load.hosts: the peers' loads, on a thread */
        bool remote_done;                       /* its thread has finished (FINISHED told) */
        struct {                                /* a stop asked for while the worker ran */
                bool asked;
                int state;
                char reason[64], message[512];
        } stop;
        /* profile.cpu: perf record through measure, the JIT's perf map at its end */
        char perf_path[PATH_MAX];
        struct profile_child perf, jcmd;
        struct profile_input profile;
        cJSON *warnings;
        bool tearing_down;
        bool housekeeping_warned;
        run_done_fn done;
        void *userdata;
};

static void run_fail(struct run *r, const char *reason, const char *fmt, ...) _printf_(3, 4);
static void run_teardown(struct run *r, int state, const char *reason, const char *message, cJSON *metrics);
static int on_step_done(sd_event_source *s, void *userdata);
static int prepare_slices(struct run *r);

const char *run_get_id(const struct run *r) {
        return r->id;
}

const char *run_get_experiment_id(const struct run *r) {
        return r->experiment_id;
}

unsigned run_get_max_consecutive_failures(const struct run *r) {
        return r->def ? r->def->max_consecutive_failures : DEFINITION_MAX_CONSECUTIVE_FAILURES_DEFAULT;
}

const struct cpulist *run_get_cpus(const struct run *r) {
        return &r->cpus.all;
}

void run_get_pids(const struct run *r, pid_t pids[2]) {
        pids[0] = r->sut.running ? r->sut.pid : 0;
        pids[1] = r->load.running ? r->load.pid : 0;
}

/* Persist a transition; the loop's store is local, so a failure here is logged, not fatal. */
static void advance(struct run *r, int state, const char *message) {
        r->state = state;
        int k = runs_advance(r->ctx.db, r->id, r->experiment_id, run_state_to_string(state), NULL, message);
        if (k < 0)
                log_full(LOG_ERR, k, r->experiment_id, r->id, "run %s: cannot record state %s", r->id,
                         run_state_to_string(state));
        log_full(LOG_INFO, 0, r->experiment_id, r->id, "run %s: %s%s%s", r->id, run_state_to_string(state),
                 message ? ": " : "", message ? message : "");
}

static void warn(struct run *r, const char *fmt, ...) _printf_(2, 3);
static void warn(struct run *r, const char *fmt, ...) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        buf[utf8_complete_len(buf, strlen(buf))] = '\0';
        cJSON_AddItemToArray(r->warnings, cJSON_CreateString(buf));
        log_full(LOG_WARNING, 0, r->experiment_id, r->id, "run %s: %s", r->id, buf);
}

void run_warn_housekeeping(struct run *r, const char *message) {
        if (r->housekeeping_warned || r->tearing_down)
                return;
        r->housekeeping_warned = true;
        warn(r, "%s", message);
}

/* ---- children ----------------------------------------------------------------------------- */

static void child_record(struct child *c, const siginfo_t *si) {
        c->running = false;
        c->exited = true;
        c->code = si->si_code == CLD_EXITED ? si->si_status : -1;
        c->signal = si->si_code == CLD_EXITED ? 0 : si->si_status;
}

/* After a slice kill: the process is gone or going; collect its status ourselves. */
static void child_reap(struct child *c) {
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

static cJSON *child_exit_json(const struct child *c) {
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

/* How a child ended and the last lines it wrote, for the run's failure message. */
struct child_end {
        char how[96];
        char tail[2048];
};

static void describe_end(const struct child *c, struct capture *out, struct child_end *ret) {
        if (c->signal)
                snprintf(ret->how, sizeof ret->how, "killed by signal %d (%s)", c->signal, strsignal(c->signal));
        else
                snprintf(ret->how, sizeof ret->how, "exited with code %d", c->code);
        capture_close(out);
        capture_tail(out, ret->tail, sizeof ret->tail);
}

static int spawn_child(struct run *r, enum slice_kind kind, struct child *c, char **argv, char **envp,
                       int out_fd, int err_fd, sd_event_child_handler_t on_exit) {
        struct spawn_params p = {
                .argv = argv,
                .envp = envp,
                .cwd = r->dir,
                .stdin_fd = -1,
                .stdout_fd = out_fd,
                .stderr_fd = err_fd,
                .set_user = r->ctx.set_user,
                .uid = r->ctx.uid,
                .gid = r->ctx.gid,
        };
        int k = slice_spawn(r->cg, kind, &p, &c->pid, &c->pidfd);
        if (k < 0)
                return k;
        c->running = true;
        k = sd_event_add_child_pidfd(r->ctx.event, &c->source, c->pidfd, WEXITED, on_exit, r);
        if (k < 0) {
                /* Unwatched, it must not live: the slice kill in teardown ends it. */
                return log_full(LOG_ERR, k, r->experiment_id, r->id, "run %s: cannot watch the %s", r->id, c->what);
        }
        return 0;
}

/* ---- run files ---------------------------------------------------------------------------- */

static int make_run_dir(struct run *r) {
        snprintf(r->dir, sizeof r->dir, "%s/runs/%s", r->ctx.state_dir, r->id);
        if (mkdir(r->dir, 0750) < 0 && errno != EEXIST)
                return negative_errno();
        /* The SUT writes gc.log and hsperfdata here, as the --run-as user when there is one. */
        if (r->ctx.set_user && chown(r->dir, r->ctx.uid, r->ctx.gid) < 0)
                return negative_errno();
        return 0;
}

/* Run directories are short (state dir <= 200 characters): a path that does not fit is a bug
 * caught here rather than a file written elsewhere. */
static void run_path(const struct run *r, const char *name, char *buf, size_t size) {
        if (snprintf(buf, size, "%s/%s", r->dir, name) >= (int) size)
                buf[0] = '\0';
}

/* ---- timers ------------------------------------------------------------------------------- */

static int arm_timer(struct run *r, sd_event_source **s, uint64_t after_us, sd_event_time_handler_t cb) {
        uint64_t now;
        sd_event_now(r->ctx.event, CLOCK_MONOTONIC, &now);
        *s = sd_event_source_disable_unref(*s);
        return sd_event_add_time(r->ctx.event, s, CLOCK_MONOTONIC, now + after_us, 1000, cb, r);
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        struct run *r = userdata;
        run_fail(r, "timeout", "the run passed its deadline in state %s", run_state_to_string(r->state));
        return 0;
}

static int on_freq_sample(sd_event_source *s, uint64_t usec, void *userdata) {
        struct run *r = userdata;
        host_freq_sampler_sample(r->freq);
        sd_event_source_set_time(s, usec + FREQ_SAMPLE_US);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static void take_series_sample(struct run *r) {
        samples_take(&r->series, r->cg, r->sut.running ? r->sut.pid : 0, r->def->sut.jvm, &r->cpus.all);
}

static int on_series_sample(sd_event_source *s, uint64_t usec, void *userdata) {
        struct run *r = userdata;
        take_series_sample(r);
        sd_event_source_set_time(s, usec + SERIES_SAMPLE_US);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* From readiness to the end of measure: the run's CPUs' frequencies every 250 ms (pread only),
 * and the 1 s series of the slices' and the JVM's counters. */
static void start_sampling(struct run *r) {
        r->has_rapl = host_rapl_open("", &r->rapl) >= 0;
        r->series.rapl = r->has_rapl ? &r->rapl : NULL;
        take_series_sample(r);
        arm_timer(r, &r->series_timer, SERIES_SAMPLE_US, on_series_sample);
        if (host_freq_sampler_new("", &r->cpus.all, &r->freq) < 0)
                return;
        host_freq_sampler_sample(r->freq);
        arm_timer(r, &r->freq_timer, FREQ_SAMPLE_US, on_freq_sample);
}

/* The measure window only: warmup's compilation and class loading stay out of the profile. */
static void start_profile(struct run *r) {
        if (!definition_cell_profiled(r->def, r->cell) || !r->sut.running)
                return;
        int k = profile_record_start(r->cg, r->perf_path, r->dir, r->sut.pid, r->def->profile.hz, &r->perf);
        if (k < 0)
                warn(r, "profile: cannot start %s record: %s; the run has no profile", r->perf_path, strerror(-k));
}

static void stop_sut(struct run *r);

/* Both perf and jcmd have ended (or were never started): what collection reads is settled. */
static void on_profile_child_end(struct profile_child *c, int result, void *userdata) {
        struct run *r = userdata;
        if (c == &r->jcmd && result < 0)
                warn(r, "profile: jcmd %d Compiler.perfmap failed (%s): JIT-compiled frames may be unnamed",
                     (int) r->profile.sut_pid, result == -ETIMEDOUT ? "killed: it overran its time" : strerror(-result));
        if (c == &r->perf)
                r->profile.recorded = result >= 0;
        if (profile_child_pending(&r->perf) || profile_child_pending(&r->jcmd) || r->tearing_down)
                return;
        stop_sut(r);
}

/* At the end of measure, while the SUT still runs: perf stops (SIGINT) and the JVM writes its
 * perf map for the JIT-compiled code perf saw. Both are watched on the loop, each with its time
 * limit; the SUT is stopped once both have ended (jcmd needs it alive). Returns whether they are
 * pending. */
static bool stop_profile(struct run *r) {
        if (r->perf.pidfd < 0)
                return false;
        r->profile = (struct profile_input){
                .perf = r->perf_path,
                .dir = r->dir,
                .sut_pid = r->sut.pid,
                .jvm = r->def->sut.jvm,
                .map_owner = r->ctx.set_user ? r->ctx.uid : geteuid(),
        };
        profile_record_stop(&r->perf);
        if (profile_child_watch(r->ctx.event, &r->perf, PROFILE_PERF_STOP_US, on_profile_child_end, r) < 0)
                warn(r, "profile: cannot watch perf record: its samples may be incomplete");
        if (r->def->sut.jvm && r->sut.running) {
                int k = profile_perfmap_start(r->cg, r->sut.pid, r->ctx.set_user, r->ctx.uid, r->ctx.gid, &r->jcmd);
                if (k >= 0)
                        k = profile_child_watch(r->ctx.event, &r->jcmd, PROFILE_JCMD_WAIT_US, on_profile_child_end, r);
                if (k < 0)
                        warn(r, "profile: jcmd %d Compiler.perfmap failed (%s): JIT-compiled frames may be unnamed",
                             (int) r->sut.pid, strerror(-k));
        }
        return profile_child_pending(&r->perf) || profile_child_pending(&r->jcmd);
}

/* Figures cover the measure phase: counters are read now and subtracted at the end. */
static void begin_measure(struct run *r, const char *message) {
        if (r->freq)
                host_freq_sampler_reset(r->freq);
        r->measure_start_ns = now_mono_ns();
        collect_baseline_take(r->cg, r->sut.running ? r->sut.pid : 0, r->def->sut.jvm, r->series.rapl, &r->baseline);
        advance(r, RUN_MEASURING, message);
        start_profile(r);
}

static int on_measure(sd_event_source *s, uint64_t usec, void *userdata) {
        begin_measure(userdata, NULL);
        return 0;
}

/* ---- collecting and the end --------------------------------------------------------------- */

/* The worker has finished (its thread joined): a stop asked for meanwhile wins over its result,
 * which is then dropped whole. */
static void on_collected(struct collect_worker *w, void *userdata) {
        struct run *r = userdata;
        cJSON *metrics = NULL;
        char why[512] = "";
        int k = collect_worker_result(w, &metrics, r->warnings, why, sizeof why);
        r->collector = collect_worker_free(r->collector);
        if (r->stop.asked) {
                cJSON_Delete(metrics);
                run_teardown(r, r->stop.state, r->stop.reason, r->stop.message, NULL);
        } else if (k < 0)
                run_teardown(r, RUN_FAILED, k == -ENOTCONN ? "load_failed" : "collect_failed", why[0] ? why : strerror(-k), NULL);
        else {
                if (r->capacity)
                        cJSON_ReplaceItemInObjectCaseSensitive(metrics, "capacity", capacity_steps_metrics(&r->search));
                cJSON *load = cJSON_GetObjectItemCaseSensitive(metrics, "load");
                if (r->remote && cJSON_IsObject(load))
                        cJSON_AddItemToObject(load, "hosts", run_peers_hosts_json(r->remote));
                run_teardown(r, RUN_SUCCEEDED, NULL, NULL, metrics);
        }
}

static void finish_collect(struct run *r) {
        /* perf and jcmd end first (on_profile_child_end() comes back here) */
        if (r->collector || profile_child_pending(&r->perf) || profile_child_pending(&r->jcmd))
                return;
        r->grace_timer = sd_event_source_disable_unref(r->grace_timer);
        if (r->sut.running)
                (void) slice_kill(r->cg, SLICE_SUT);
        if (r->load.running)
                (void) slice_kill(r->cg, SLICE_LOAD);
        child_reap(&r->sut);
        child_reap(&r->load);
        capture_close(&r->sut_out);
        capture_close(&r->sut_err);
        capture_close(&r->load_out);

        struct collect_input in = {
                .def = r->def,
                .cell = r->cell,
                .dir = r->dir,
                .cg = r->cg,
                .sut_last_line = r->sut_out.last_line,
                .measure_start_ns = r->measure_start_ns,
                .measure_end_ns = r->measure_end_ns ? r->measure_end_ns : now_mono_ns(),
                .baseline = &r->baseline,
                .end = &r->end,
                .freq = r->freq,
                .series = &r->series,
                .rapl = r->series.rapl,
                .run_id = r->id,
                .profile = r->profile.perf ? &r->profile : NULL,
        };
        /* Everything the worker reads stays as it is until it reports: the children are
         * reaped, the captures closed and the samplers stopped above. */
        int k = collect_worker_start(r->ctx.event, r->ctx.storage, r->ctx.collect_db, &in, on_collected, r, &r->collector);
        if (k < 0)
                run_fail(r, "collect_failed", "cannot start collecting: %s", strerror(-k));
}

static int on_grace_over(sd_event_source *s, uint64_t usec, void *userdata) {
        struct run *r = userdata;
        warn(r, "the SUT did not exit within 10 s of SIGTERM and was killed");
        finish_collect(r);
        return 0;
}

/* Ask nicely first: a JVM flushes its GC log and hsperfdata on SIGTERM. */
static void stop_sut(struct run *r) {
        if (!r->sut.running) {
                finish_collect(r);
                return;
        }
        if (syscall(SYS_pidfd_send_signal, r->sut.pidfd, SIGTERM, NULL, 0) < 0)
                log_full(LOG_WARNING, -errno, r->experiment_id, r->id, "run %s: SIGTERM to the SUT", r->id);
        arm_timer(r, &r->grace_timer, SUT_STOP_GRACE_US, on_grace_over);
}

static void start_collect(struct run *r) {
        if (r->state == RUN_COLLECTING)
                return;
        r->measure_end_ns = now_mono_ns();
        collect_baseline_take(r->cg, r->sut.running ? r->sut.pid : 0, r->def->sut.jvm, r->series.rapl, &r->end);
        r->freq_timer = sd_event_source_disable_unref(r->freq_timer);
        if (r->series_timer) {
                take_series_sample(r);
                r->series_timer = sd_event_source_disable_unref(r->series_timer);
        }
        r->phase_timer = sd_event_source_disable_unref(r->phase_timer);
        r->deadline_timer = sd_event_source_disable_unref(r->deadline_timer);
        advance(r, RUN_COLLECTING, NULL);
        if (!stop_profile(r))
                stop_sut(r);
}

static int on_load_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        struct run *r = userdata;
        child_record(&r->load, si);
        if (r->tearing_down)
                return 0;
        if (r->load.code == 0 && r->capacity) {
                /* judged from a deferred event, never under the child source being replaced */
                if (!r->step_defer)
                        sd_event_add_defer(r->ctx.event, &r->step_defer, on_step_done, r);
                return 0;
        }
        if (r->load.code == 0) {
                start_collect(r);
                return 0;
        }
        struct child_end end;
        describe_end(&r->load, &r->load_out, &end);
        run_fail(r, "load_failed", "the load %s; its last output:\n%s", end.how, end.tail);
        return 0;
}

static bool slice_saw_oom(struct run *r) {
        struct slice_stats st;
        return slice_read_stats(r->cg, SLICE_SUT, &st) >= 0 && st.has_oom_kills && st.oom_kills > 0;
}

static int on_sut_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        struct run *r = userdata;
        child_record(&r->sut, si);
        if (r->tearing_down)
                return 0;
        if (r->state == RUN_COLLECTING) {
                finish_collect(r);
                return 0;
        }
        /* A SUT without load is the measurement: its clean exit is the end of the run. */
        if (r->def->load.kind == DEFINITION_LOAD_NONE && r->ready && r->sut.code == 0) {
                start_collect(r);
                return 0;
        }
        struct child_end end;
        describe_end(&r->sut, &r->sut_err, &end);
        if (slice_saw_oom(r))
                run_fail(r, "oom", "the SUT was OOM-killed in its slice (memory_max %llu bytes); it %s",
                         (unsigned long long) definition_cell_memory_max(r->def, r->cell), end.how);
        else if (r->capacity) {
                char where[256];
                capacity_steps_describe_stop(&r->search, where, sizeof where);
                run_fail(r, "sut_exit", "the SUT %s during %s; last lines of its stderr:\n%s", end.how, where, end.tail);
        } else
                run_fail(r, "sut_exit", "the SUT %s in state %s; last lines of its stderr:\n%s", end.how,
                         run_state_to_string(r->state), end.tail);
        return 0;
}

/* The load (the injector, a capacity step's, or an external command) in its slice, its output
 * captured to load.log. */
static int spawn_load(struct run *r, char **argv, char **env) {
        char path[PATH_MAX];
        int out_fd = -1;
        run_path(r, "load.log", path, sizeof path);
        int k = capture_open(&r->load_out, r->ctx.event, path, NULL, NULL, NULL, &out_fd);
        if (k >= 0) {
                k = spawn_child(r, SLICE_LOAD, &r->load, argv, env, out_fd, out_fd, on_load_exit);
                close(out_fd);
        }
        return k;
}

/* ---- capacity search: its steps are capacity-steps.c's -------------------------------------- */

/* A step's injector, as the run's load: the previous step's output closed, the deadline anew. */
static int spawn_step(void *userdata, char **argv, char **env) {
        struct run *r = userdata;
        capture_close(&r->load_out);
        int k = spawn_load(r, argv, env);
        if (k >= 0)
                arm_timer(r, &r->deadline_timer, run_plan_deadline_s(r->def) * 1000000ULL, on_deadline);
        return k;
}

static void warn_step(void *userdata, const char *message) {
        warn(userdata, "%s", message);
}

/* A step's injector finished: the search judges it and starts the next step or ends. */
static int on_step_done(sd_event_source *src, void *userdata) {
        struct run *r = userdata;
        r->step_defer = sd_event_source_disable_unref(r->step_defer);
        if (r->tearing_down)
                return 0;
        child_reap(&r->load);
        char why[512];
        int k = capacity_steps_next(&r->search, why, sizeof why);
        if (k < 0)
                run_fail(r, "load_failed", "%s", why);
        else if (k == 0)
                start_collect(r);
        return 0;
}

static void start_search(struct run *r) {
        struct capacity_steps_run run = {
                .def = r->def,
                .dir = r->dir,
                .injector_path = r->ctx.injector_path,
                .db = r->ctx.db,
                .id = r->id,
                .experiment_id = r->experiment_id,
                .spawn_load = spawn_step,
                .warn = warn_step,
                .userdata = r,
        };
        char message[160], why[512];
        r->capacity = true;
        capacity_steps_init(&r->search, &run, message, sizeof message);
        begin_measure(r, message);
        if (capacity_steps_start(&r->search, why, sizeof why) < 0)
                run_fail(r, "load_failed", "%s", why);
}

/* ---- load on load hosts ------------------------------------------------------------------ */

static int arm_timer_at(struct run *r, sd_event_source **s, int64_t at_ns, sd_event_time_handler_t cb) {
        *s = sd_event_source_disable_unref(*s);
        return sd_event_add_time(r->ctx.event, s, CLOCK_MONOTONIC, (uint64_t) MAX(at_ns, 0) / 1000, 1000, cb, r);
}

static int on_remote_warmup(sd_event_source *s, uint64_t usec, void *userdata) {
        struct run *r = userdata;
        const struct definition_load *l = &r->def->load;
        advance(r, RUN_WARMUP, "the load hosts' schedules started");
        arm_timer_at(r, &r->phase_timer, run_peers_start_ns(r->remote) + (int64_t) l->warmup_s * NSEC_PER_SEC, on_measure);
        return 0;
}

/* The thread found every peer answering (CHECKED: preflight goes on to the slices and the SUT),
 * has the loads posted (STARTED: the phases follow the instant they start at on this host's
 * clock) or is done (FINISHED: the merged timeline is the run's, or the run fails; a stop asked
 * for meanwhile waited for it, the peers' loads are deleted). */
static void on_remote(struct run_peers *p, enum run_peers_event ev, void *userdata) {
        struct run *r = userdata;
        if (ev == RUN_PEERS_CHECKED) {
                if (!r->stop.asked && !r->tearing_down)
                        (void) prepare_slices(r);
                return;
        }
        if (ev == RUN_PEERS_STARTED) {
                run_peers_clock_warnings(p, r->warnings);
                if (r->stop.asked)
                        return;
                int64_t at = run_peers_start_ns(p);
                arm_timer_at(r, &r->phase_timer, at, r->def->load.warmup_s > 0 ? on_remote_warmup : on_measure);
                log_full(LOG_INFO, 0, r->experiment_id, r->id, "run %s: %zu load hosts start in %.3f s", r->id,
                         r->def->load.n_hosts, seconds_from_ns(at - now_mono_ns()));
                return;
        }
        r->remote_done = true;
        const char *reason, *message;
        int k = run_peers_result(p, &reason, &message);
        if (r->stop.asked)
                run_teardown(r, r->stop.state, r->stop.reason, r->stop.message, NULL);
        else if (k < 0)
                run_fail(r, reason, "%s", message);
        else
                start_collect(r);
}

static void start_remote_load(struct run *r) {
        run_peers_go(r->remote);
        arm_timer(r, &r->deadline_timer, run_plan_deadline_s(r->def) * 1000000ULL, on_deadline);
}

/* ---- load --------------------------------------------------------------------------------- */

static void start_load(struct run *r) {
        const struct definition_load *l = &r->def->load;
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL;
        if (l->kind == DEFINITION_LOAD_INJECTOR && l->mode == DEFINITION_MODE_CAPACITY) {
                start_search(r);
                return;
        }
        if (l->n_hosts > 0) {
                start_remote_load(r);
                return;
        }
        int k = run_plan_load_argv(r->def, r->dir, r->ctx.injector_path, &argv);
        if (k >= 0)
                k = run_plan_load_env(&env);
        if (k >= 0)
                k = spawn_load(r, argv, env);
        if (k < 0) {
                run_fail(r, "load_failed", "cannot start the load %s: %s", argv ? argv[0] : "", strerror(-k));
                return;
        }
        arm_timer(r, &r->deadline_timer, run_plan_deadline_s(r->def) * 1000000ULL, on_deadline);
        if (l->kind == DEFINITION_LOAD_INJECTOR && l->warmup_s > 0) {
                advance(r, RUN_WARMUP, NULL);
                arm_timer(r, &r->phase_timer, (uint64_t) l->warmup_s * 1000000ULL, on_measure);
        } else
                begin_measure(r, NULL);
}

/* ---- readiness ---------------------------------------------------------------------------- */

static int on_became_ready(sd_event_source *s, void *userdata) {
        struct run *r = userdata;
        r->done_defer = sd_event_source_disable_unref(r->done_defer);
        if (r->ready || r->tearing_down)
                return 0;
        r->ready = true;
        r->ready_timer = sd_event_source_disable_unref(r->ready_timer);
        r->probe = probe_free(r->probe);
        start_sampling(r);
        if (r->def->load.kind == DEFINITION_LOAD_NONE) {
                begin_measure(r, "the SUT runs until it exits; its last stdout line is the result");
                arm_timer(r, &r->deadline_timer, run_plan_deadline_s(r->def) * 1000000ULL, on_deadline);
                return 0;
        }
        start_load(r);
        return 0;
}

/* Readiness is acted on from a deferred event, never from inside a probe or capture callback
 * that the teardown would free under its own feet. */
static void became_ready(struct run *r) {
        if (!r->done_defer)
                sd_event_add_defer(r->ctx.event, &r->done_defer, on_became_ready, r);
}

static void on_probe_ready(void *userdata) {
        became_ready(userdata);
}

static void on_sut_line(struct capture *c, const char *line, void *userdata) {
        struct run *r = userdata;
        if (r->has_ready_regex && !r->ready && regexec(&r->ready_regex, line, 0, NULL, 0) == 0)
                became_ready(r);
}

static int on_ready_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        struct run *r = userdata;
        const struct definition_ready *rd = &r->def->sut.ready;
        run_fail(r, "not_ready", "the SUT was not ready within %u s (%s)", rd->timeout_s,
                 r->probe ? probe_last_error(r->probe) : "no matching log line");
        return 0;
}

static int start_ready_check(struct run *r) {
        const struct definition_ready *rd = &r->def->sut.ready;
        switch (rd->kind) {
        case DEFINITION_READY_NONE:
                became_ready(r);
                return 0;
        case DEFINITION_READY_TCP:
                return probe_start(r->ctx.event, rd->tcp_host, rd->tcp_port, NULL, on_probe_ready, r, &r->probe);
        case DEFINITION_READY_HTTP:
                return probe_start(r->ctx.event, rd->http.host, rd->http.port, rd->http.path, on_probe_ready, r, &r->probe);
        case DEFINITION_READY_LOG:
                if (regcomp(&r->ready_regex, rd->log_regex, REG_EXTENDED | REG_NOSUB) != 0)
                        return -EINVAL;
                r->has_ready_regex = true;
                return 0;
        }
        return -EINVAL;
}

/* ---- start -------------------------------------------------------------------------------- */

static int start_sut(struct run *r) {
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL;
        char out_path[PATH_MAX], err_path[PATH_MAX], log_path[PATH_MAX];
        int out_fd = -1, err_fd = -1;
        int k = run_plan_sut_argv(r->def, r->cell, r->dir, &argv);
        if (k >= 0)
                k = run_plan_sut_env(r->def, r->cell, r->dir, &env);
        if (k < 0)
                return k;
        run_path(r, "sut.stdout", out_path, sizeof out_path);
        run_path(r, "sut.stderr", err_path, sizeof err_path);
        run_path(r, "sut.log", log_path, sizeof log_path);
        k = capture_file_open(&r->sut_log, log_path);
        if (k < 0)
                return k;
        k = capture_open(&r->sut_out, r->ctx.event, out_path, &r->sut_log, on_sut_line, r, &out_fd);
        if (k >= 0)
                k = capture_open(&r->sut_err, r->ctx.event, err_path, &r->sut_log, on_sut_line, r, &err_fd);
        if (k >= 0)
                k = spawn_child(r, SLICE_SUT, &r->sut, argv, env, out_fd, err_fd, on_sut_exit);
        if (out_fd >= 0)
                close(out_fd);
        if (err_fd >= 0)
                close(err_fd);
        if (k < 0) {
                run_fail(r, "spawn", "cannot start the SUT %s: %s (errno %d)", argv[0], strerror(-k), -k);
                return 0;
        }
        k = start_ready_check(r);
        if (k < 0) {
                run_fail(r, "not_ready", "cannot probe the SUT's readiness: %s", strerror(-k));
                return 0;
        }
        return arm_timer(r, &r->ready_timer, (uint64_t) r->def->sut.ready.timeout_s * 1000000ULL, on_ready_timeout);
}

/* The root may have been removed since the last run (by a person, or another daemon's clean-up
 * before roots were locked): made again here, and said so in the log and the run's warnings. */
static int check_root(struct run *r) {
        char what[1024];
        int k = cgroup_manager_repair(r->ctx.cgroups, what, sizeof what);
        if (k < 0)
                run_fail(r, "preflight", "the cgroup root %s is damaged and cannot be repaired: %s",
                         cgroup_manager_root(r->ctx.cgroups), what);
        else if (k > 0)
                warn(r, "the cgroup root %s was repaired: %s", cgroup_manager_root(r->ctx.cgroups), what);
        return k;
}

/* The host as GET /v1/host shows it, kept with the run so that comparisons across experiments
 * can say which host facts differed when they ran; a failure costs only that. */
static void record_host(struct run *r) {
        cJSON *host = NULL;
        int k = host_info_json("", NULL, &host);
        _cleanup_free_ char *text = k >= 0 ? cJSON_PrintUnformatted(host) : NULL;
        cJSON_Delete(host);
        if (k >= 0)
                k = runs_store_host_snapshot(r->ctx.db, r->id, text);
        if (k < 0)
                warn(r, "cannot record the host's facts: %s", strerror(-k));
}

static int prepare(struct run *r) {
        char space[1024];
        /* Before anything is written: a run that cannot fit leaves nothing behind. */
        int k = preflight_disk(r->def, r->ctx.state_dir, space, sizeof space);
        if (k < 0) {
                run_fail(r, "preflight", "%s", space);
                return 0;
        }
        k = make_run_dir(r);
        if (k < 0) {
                run_fail(r, "preflight", "cannot create the run directory %s: %s", r->dir, strerror(-k));
                return 0;
        }
        char why[2048] = "";
        k = preflight_check(r->def, &r->cpus, r->warnings, why, sizeof why);
        if (k < 0) {
                run_fail(r, "preflight", "%s", why);
                return 0;
        }
        /* Stored before a restart with a stricter policy: the policy of now decides. */
        struct error err = { 0 };
        if (definition_policy_check(r->def, r->ctx.policy, &err) < 0) {
                run_fail(r, "preflight", "%s: %s", err.field, err.message);
                return 0;
        }
        k = preflight_commands(r->def, r->cell, r->dir, why, sizeof why);
        if (k < 0) {
                run_fail(r, "preflight", "%s", why);
                return 0;
        }
        bool profiled = definition_cell_profiled(r->def, r->cell);
        if (profiled && host_perf_find(r->ctx.perf, r->perf_path, sizeof r->perf_path) < 0) {
                run_fail(r, "preflight", "profile.cpu needs perf on this daemon (%s, not found): %s",
                         r->ctx.perf ? r->ctx.perf : "perf on its PATH", HOST_PERF_HINT);
                return 0;
        }
        if (profiled && host_perf_access(r->ctx.set_user && r->ctx.uid != geteuid(), why, sizeof why) < 0) {
                run_fail(r, "preflight", "profile.cpu: %s", why);
                return 0;
        }
        if (profiled && r->def->sut.jvm)
                warn(r, "profile.cpu: the JVM runs with " DEFINITION_PROFILE_JVM_ARG
                        " (so that perf walks Java stacks), which may cost it a little CPU");
        k = check_root(r);
        if (k < 0)
                return 0;
        record_host(r);
        if (r->def->load.n_hosts == 0)
                return prepare_slices(r);
        /* In preflight: the thread checks every peer's clock; the slices and the SUT follow
         * (RUN_PEERS_CHECKED). */
        k = run_peers_start(r->ctx.event, r->ctx.peers, r->def, r->id, r->dir, on_remote, r, &r->remote);
        if (k < 0)
                run_fail(r, "preflight", "cannot start the load hosts' thread: %s", strerror(-k));
        return 0;
}

static int prepare_slices(struct run *r) {
        int k;
        struct slice_limits sut, load;
        run_plan_limits(r->def, r->cell, &sut, &load);
        k = cgroup_run_create(r->ctx.cgroups, r->id, &sut, &load, &r->cg);
        if (k < 0) {
                run_fail(r, "preflight", "cannot create the run's slices under %s: %s",
                         cgroup_manager_root(r->ctx.cgroups), strerror(-k));
                return 0;
        }
        runs_set_slices(r->ctx.db, r->id, slice_cgroup_path(r->cg, SLICE_SUT),
                        r->def->load.kind == DEFINITION_LOAD_NONE ? NULL : slice_cgroup_path(r->cg, SLICE_LOAD));
        advance(r, RUN_STARTING, NULL);
        return start_sut(r);
}

int run_start(const struct run_context *ctx, const struct queued_run *q, run_done_fn done, void *userdata,
              struct run **ret) {
        _cleanup_free_ struct run *r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        r->ctx = *ctx;
        snprintf(r->id, sizeof r->id, "%s", q->id);
        snprintf(r->experiment_id, sizeof r->experiment_id, "%s", q->experiment_id);
        r->cell = (size_t) q->cell_idx;
        r->sut = (struct child){ .what = "SUT", .pidfd = -1 };
        r->load = (struct child){ .what = "load", .pidfd = -1 };
        r->perf = r->jcmd = (struct profile_child){ .pidfd = -1 };
        r->sut_out.pipe_fd = r->sut_err.pipe_fd = r->load_out.pipe_fd = -1;
        r->sut_out.file.fd = r->sut_err.file.fd = r->load_out.file.fd = -1;
        r->sut_log.fd = -1;
        r->done = done;
        r->userdata = userdata;
        r->warnings = cJSON_CreateArray();
        if (!r->warnings)
                return -ENOMEM;
        struct run *run = TAKE_PTR(r);
        *ret = run;

        advance(run, RUN_PREPARING, NULL);
        struct error err = { 0 };
        if (definition_parse(q->definition, strlen(q->definition), NULL, &run->def, &err) < 0 ||
            run->cell >= run->def->n_cells) {
                run_fail(run, "preflight", "the stored definition no longer parses: %s", err.message);
                return 0;
        }
        struct cpulist online;
        int k = cpulist_read_online(&online);
        if (k < 0) {
                run_fail(run, "preflight", "cannot read the online CPUs: %s", strerror(-k));
                return 0;
        }
        run_plan_cpus(run->def, run->cell, &online, &run->cpus);
        return prepare(run);
}

/* ---- the end ------------------------------------------------------------------------------ */

static int on_done(sd_event_source *s, void *userdata) {
        struct run *r = userdata;
        r->done_defer = sd_event_source_disable_unref(r->done_defer);
        r->done(r, r->userdata);
        return 0;
}

static char *exit_json(const struct run *r) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "sut", child_exit_json(&r->sut));
        cJSON_AddItemToObject(o, "load", child_exit_json(&r->load));
        char *s = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        return s;
}

/* An end asked for while the worker collects waits for it: its thread still reads the run's
 * slices and definition. on_collected() ends the run with it. */
static void defer_stop(struct run *r, int state, const char *reason, const char *message) {
        if (r->stop.asked)
                return;
        r->stop.asked = true;
        r->stop.state = state;
        snprintf(r->stop.reason, sizeof r->stop.reason, "%s", reason ? reason : "");
        snprintf(r->stop.message, sizeof r->stop.message, "%s", message ? message : "");
        if (r->collector)
                collect_worker_cancel(r->collector);
        run_peers_stop(r->remote);
}

/* The load hosts' thread still talks to the peers: it deletes their loads before the run ends. */
static bool remote_busy(const struct run *r) {
        return r->remote && !r->remote_done;
}

static void run_teardown(struct run *r, int state, const char *reason, const char *message, cJSON *metrics) {
        if (r->tearing_down || r->collector || remote_busy(r)) {
                if (!r->tearing_down)
                        defer_stop(r, state, reason, message);
                cJSON_Delete(metrics);
                return;
        }
        r->tearing_down = true;
        r->ready_timer = sd_event_source_disable_unref(r->ready_timer);
        r->phase_timer = sd_event_source_disable_unref(r->phase_timer);
        r->deadline_timer = sd_event_source_disable_unref(r->deadline_timer);
        r->grace_timer = sd_event_source_disable_unref(r->grace_timer);
        r->done_defer = sd_event_source_disable_unref(r->done_defer);
        r->freq_timer = sd_event_source_disable_unref(r->freq_timer);
        r->series_timer = sd_event_source_disable_unref(r->series_timer);
        r->step_defer = sd_event_source_disable_unref(r->step_defer);
        r->probe = probe_free(r->probe);

        /* The slice kill is the last word on every process the run made. */
        int k = 0;
        if (r->cg) {
                k = cgroup_run_destroy(r->cg);
                if (k < 0)
                        log_full(LOG_ERR, k, r->experiment_id, r->id, "run %s: removing its slices", r->id);
        }
        child_reap(&r->sut);
        child_reap(&r->load);
        profile_child_reap(&r->perf); /* killed with the load slice: only reaped here */
        profile_child_reap(&r->jcmd);
        if (r->profile.perf && r->profile.jvm)
                profile_perfmap_discard(r->profile.sut_pid, r->profile.map_owner);
        capture_close(&r->sut_out);
        capture_close(&r->sut_err);
        capture_close(&r->load_out);
        capture_file_close(&r->sut_log);

        _cleanup_free_ char *exits = exit_json(r);
        _cleanup_free_ char *metrics_json = metrics ? cJSON_PrintUnformatted(metrics) : NULL;
        _cleanup_free_ char *warnings_json = cJSON_PrintUnformatted(r->warnings);
        cJSON_Delete(metrics);
        r->state = state;
        k = runs_finish(r->ctx.db, r->id, r->experiment_id, run_state_to_string(state), reason, message, exits,
                        metrics_json, warnings_json);
        if (k < 0)
                log_full(LOG_ERR, k, r->experiment_id, r->id, "run %s: cannot record its end", r->id);
        log_full(state == RUN_SUCCEEDED ? LOG_INFO : LOG_WARNING, 0, r->experiment_id, r->id, "run %s: %s%s%s%s%s",
                 r->id, run_state_to_string(state), reason ? " (" : "", reason ? reason : "", reason ? "): " : "",
                 message ? message : "");
        sd_event_add_defer(r->ctx.event, &r->done_defer, on_done, r);
}

static void run_fail(struct run *r, const char *reason, const char *fmt, ...) {
        char message[3072];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        message[utf8_complete_len(message, strlen(message))] = '\0';
        run_teardown(r, RUN_FAILED, reason, message, NULL);
}

void run_stop(struct run *r, int state, const char *reason, const char *message) {
        run_teardown(r, state, reason, message, NULL);
}

void run_free(struct run *r) {
        if (!r)
                return;
        if (r->collector) {
                /* Daemon shutdown while collecting: the worker is stopped and joined here. */
                defer_stop(r, RUN_INTERRUPTED, "daemon_shutdown", "the daemon stopped while the run was collecting");
                collect_worker_wait(r->collector);
                on_collected(r->collector, r);
        }
        if (remote_busy(r)) {
                /* Daemon shutdown: the thread deletes the peers' loads (each call bounded) and is
                 * joined here; a peer it cannot reach stops its load when the lease lapses. */
                defer_stop(r, RUN_INTERRUPTED, "daemon_shutdown", "the daemon stopped");
                r->remote = run_peers_free(r->remote);
                r->remote_done = true;
        }
        if (!r->tearing_down)
                run_teardown(r, RUN_INTERRUPTED, "daemon_shutdown", "the daemon stopped", NULL);
        r->done_defer = sd_event_source_disable_unref(r->done_defer);
        if (r->has_ready_regex)
                regfree(&r->ready_regex);
        cgroup_run_free(r->cg);
        host_freq_sampler_free(r->freq);
        samples_done(&r->series);
        run_peers_free(r->remote);
        definition_free(r->def);
        capacity_steps_done(&r->search);
        cJSON_Delete(r->warnings);
        free(r);
}
