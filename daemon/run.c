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
#include <unistd.h>

#include "daemon/capture.h"
#include "daemon/child.h"
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
#include "daemon/load.h"
#include "daemon/ops-series.h"
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
        struct child sut;
        struct capture sut_out, sut_err;
        struct ops_series ops;          /* a benchmark without load's iterations */
        struct capture_file sut_log;    /* stdout and stderr together */
        regex_t ready_regex;
        bool has_ready_regex, ready;
        struct probe *probe;
        sd_event_source *ready_timer, *deadline_timer, *done_defer, *freq_timer;
        struct host_freq_sampler *freq;
        sd_event_source *series_timer;
        struct samples series;
        struct host_rapl rapl;
        bool has_rapl;
        int64_t measure_start_ns, measure_end_ns;
        struct collect_baseline baseline, end;
        struct collect_worker *collector;       /* collecting: the worker thread, or NULL */
        struct load_run load_run;               /* what its load knows of the run */
        struct load *load;                      /* from the preflight on */
        struct {                                /* a stop asked for while the worker ran */
                bool asked;
                int state;
                char reason[64], message[512];
        } stop;
        /* profile.cpu: perf record through measure, the JIT's perf map at its end */
        char perf_path[PATH_MAX];
        struct child perf, jcmd;
        struct profile_input profile;
        cJSON *warnings;
        bool tearing_down;
        bool housekeeping_warned;
        run_done_fn done;
        void *userdata;
};

static void run_fail(struct run *r, const char *reason, const char *fmt, ...) _printf_(3, 4);
static void run_teardown(struct run *r, int state, const char *reason, const char *message, cJSON *metrics);
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
        pids[1] = load_pid(r->load);
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
static void on_profile_child_end(struct child *c, void *userdata) {
        struct run *r = userdata;
        int result = profile_child_result(c);
        if (c == &r->jcmd && result < 0)
                warn(r, "profile: jcmd %d Compiler.perfmap failed (%s): JIT-compiled frames may be unnamed",
                     (int) r->profile.sut_pid, result == -ETIMEDOUT ? "killed: it overran its time" : strerror(-result));
        if (c == &r->perf)
                r->profile.recorded = result >= 0;
        if (child_pending(&r->perf) || child_pending(&r->jcmd) || r->tearing_down)
                return;
        stop_sut(r);
}

/* Watched with its time limit (SIGKILL past it); one that cannot be watched is killed now. */
static int watch_profile_child(struct run *r, struct child *c, int sig, uint64_t limit_us) {
        int k = child_watch(c, r->ctx.event, on_profile_child_end, r);
        if (k >= 0)
                k = child_stop(c, r->ctx.event, sig, limit_us, NULL);
        if (k < 0)
                child_reap(c);
        return k;
}

/* At the end of measure, while the SUT still runs: perf stops (SIGINT) and the JVM writes its
 * perf map for the JIT-compiled code perf saw. Both are watched on the loop, each with its time
 * limit; the SUT is stopped once both have ended (jcmd needs it alive). Returns whether they are
 * pending. */
static bool stop_profile(struct run *r) {
        if (!child_pending(&r->perf))
                return false;
        r->profile = (struct profile_input){
                .perf = r->perf_path,
                .dir = r->dir,
                .sut_pid = r->sut.pid,
                .jvm = r->def->sut.jvm,
                .map_owner = r->ctx.set_user ? r->ctx.uid : geteuid(),
        };
        /* SIGINT: perf writes what it has and exits */
        if (watch_profile_child(r, &r->perf, SIGINT, PROFILE_PERF_STOP_US) < 0)
                warn(r, "profile: cannot watch perf record: its samples may be incomplete");
        if (r->def->sut.jvm && r->sut.running) {
                int k = profile_perfmap_start(r->cg, r->sut.pid, r->ctx.set_user, r->ctx.uid, r->ctx.gid, &r->jcmd);
                if (k >= 0)
                        k = watch_profile_child(r, &r->jcmd, 0, PROFILE_JCMD_WAIT_US);
                if (k < 0)
                        warn(r, "profile: jcmd %d Compiler.perfmap failed (%s): JIT-compiled frames may be unnamed",
                             (int) r->sut.pid, strerror(-k));
        }
        return child_pending(&r->perf) || child_pending(&r->jcmd);
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
                load_metrics(r->load, metrics);
                run_teardown(r, RUN_SUCCEEDED, NULL, NULL, metrics);
        }
}

static void finish_collect(struct run *r) {
        /* perf and jcmd end first (on_profile_child_end() comes back here) */
        if (r->collector || child_pending(&r->perf) || child_pending(&r->jcmd))
                return;
        if (r->sut.running)
                (void) slice_kill(r->cg, SLICE_SUT);
        if (load_pid(r->load))
                (void) slice_kill(r->cg, SLICE_LOAD);
        child_reap(&r->sut);
        load_reap(r->load);
        capture_close(&r->sut_out);
        capture_close(&r->sut_err);

        struct collect_input in = {
                .def = r->def,
                .cell = r->cell,
                .dir = r->dir,
                .cg = r->cg,
                .sut_last_line = r->sut_out.last_line,
                .sut_ops = &r->ops,
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
        load_collect(r->load, &in);
        /* Everything the worker reads stays as it is until it reports: the children are
         * reaped, the captures closed and the samplers stopped above. */
        int k = collect_worker_start(r->ctx.event, r->ctx.storage, r->ctx.collect_db, &in, on_collected, r, &r->collector);
        if (k < 0)
                run_fail(r, "collect_failed", "cannot start collecting: %s", strerror(-k));
}

static void on_sut_overrun(struct child *c, void *userdata) {
        struct run *r = userdata;
        warn(r, "the SUT did not exit within 10 s of SIGTERM and was killed");
        finish_collect(r);
}

/* Ask nicely first: a JVM flushes its GC log and hsperfdata on SIGTERM. */
static void stop_sut(struct run *r) {
        if (!r->sut.running) {
                finish_collect(r);
                return;
        }
        (void) child_stop(&r->sut, r->ctx.event, SIGTERM, SUT_STOP_GRACE_US, on_sut_overrun);
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
        r->deadline_timer = sd_event_source_disable_unref(r->deadline_timer);
        advance(r, RUN_COLLECTING, NULL);
        if (!stop_profile(r))
                stop_sut(r);
}

/* ---- the load: its kind is load.c's --------------------------------------------------------- */

static void on_load_prepared(void *userdata) {
        struct run *r = userdata;
        if (!r->stop.asked && !r->tearing_down)
                (void) prepare_slices(r);
}

static void on_load_started(void *userdata) {
        struct run *r = userdata;
        arm_timer(r, &r->deadline_timer, run_plan_deadline_s(r->def) * 1000000ULL, on_deadline);
}

static void on_load_warmup(void *userdata, const char *message) {
        advance(userdata, RUN_WARMUP, message);
}

static void on_load_measure(void *userdata, const char *message) {
        begin_measure(userdata, message);
}

/* A stop asked for while the load was busy waited for it and wins. */
static void on_load_finished(void *userdata, int result, const char *reason, const char *message) {
        struct run *r = userdata;
        if (r->tearing_down)
                return;
        if (r->stop.asked)
                run_teardown(r, r->stop.state, r->stop.reason, r->stop.message, NULL);
        else if (result < 0)
                run_fail(r, reason, "%s", message);
        else
                start_collect(r);
}

static void on_load_warn(void *userdata, const char *message) {
        warn(userdata, "%s", message);
}

static const struct load_events load_events = {
        .prepared = on_load_prepared,
        .started = on_load_started,
        .warmup = on_load_warmup,
        .measure = on_load_measure,
        .finished = on_load_finished,
        .warn = on_load_warn,
};

/* The run's load as its definition asks, and its preflight: the slices and the SUT follow
 * (prepared). */
static int prepare_load(struct run *r) {
        char why[512] = "";
        r->load_run = (struct load_run){
                .event = r->ctx.event,
                .def = r->def,
                .id = r->id,
                .experiment_id = r->experiment_id,
                .dir = r->dir,
                .injector_path = r->ctx.injector_path,
                .db = r->ctx.db,
                .peers = r->ctx.peers,
                .set_user = r->ctx.set_user,
                .uid = r->ctx.uid,
                .gid = r->ctx.gid,
                .series = &r->series,
                .events = &load_events,
                .userdata = r,
        };
        int k = load_new(&r->load_run, &r->load);
        if (k < 0)
                snprintf(why, sizeof why, "cannot set up the load: %s", strerror(-k));
        else
                k = load_prepare(r->load, why, sizeof why);
        if (k < 0)
                run_fail(r, "preflight", "%s", why);
        return 0;
}

static bool slice_saw_oom(struct run *r) {
        struct slice_stats st;
        return slice_read_stats(r->cg, SLICE_SUT, &st) >= 0 && st.has_oom_kills && st.oom_kills > 0;
}

static void on_sut_exit(struct child *c, void *userdata) {
        struct run *r = userdata;
        if (r->tearing_down)
                return;
        if (r->state == RUN_COLLECTING) {
                finish_collect(r);
                return;
        }
        /* A SUT without load is the measurement: its clean exit is the end of the run. */
        if (r->ready && r->sut.code == 0 && load_sut_exited(r->load))
                return;
        struct child_end end;
        char where[256];
        child_describe_end(&r->sut, &r->sut_err, &end);
        if (slice_saw_oom(r))
                run_fail(r, "oom", "the SUT was OOM-killed in its slice (memory_max %llu bytes); it %s",
                         (unsigned long long) definition_cell_memory_max(r->def, r->cell), end.how);
        else if (load_describe(r->load, where, sizeof where))
                run_fail(r, "sut_exit", "the SUT %s during %s; last lines of its stderr:\n%s", end.how, where, end.tail);
        else
                run_fail(r, "sut_exit", "the SUT %s in state %s; last lines of its stderr:\n%s", end.how,
                         run_state_to_string(r->state), end.tail);
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
        char why[512] = "";
        if (load_start(r->load, why, sizeof why) < 0)
                run_fail(r, "load_failed", "%s", why);
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
        if (c == &r->sut_out && r->def->load.kind == DEFINITION_LOAD_NONE)
                ops_series_line(&r->ops, line, now_mono_ns());
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
        ops_series_start(&r->ops, now_mono_ns());
        k = capture_open(&r->sut_out, r->ctx.event, out_path, &r->sut_log, on_sut_line, r, &out_fd);
        if (k >= 0)
                k = capture_open(&r->sut_err, r->ctx.event, err_path, &r->sut_log, on_sut_line, r, &err_fd);
        struct spawn_params sp = {
                .argv = argv,
                .envp = env,
                .cwd = r->dir,
                .stdin_fd = -1,
                .stdout_fd = out_fd,
                .stderr_fd = err_fd,
                .set_user = r->ctx.set_user,
                .uid = r->ctx.uid,
                .gid = r->ctx.gid,
        };
        if (k >= 0)
                k = child_start(&r->sut, r->ctx.event, r->cg, SLICE_SUT, &sp, on_sut_exit, r);
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
        return prepare_load(r);
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
        r->load_run.cg = r->cg;
        runs_set_slices(r->ctx.db, r->id, slice_cgroup_path(r->cg, SLICE_SUT),
                        load_has_slice(r->load) ? slice_cgroup_path(r->cg, SLICE_LOAD) : NULL);
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
        r->sut = CHILD_INIT("SUT");
        r->perf = CHILD_INIT("perf");
        r->jcmd = CHILD_INIT("jcmd");
        r->sut_out.pipe_fd = r->sut_err.pipe_fd = -1;
        r->sut_out.file.fd = r->sut_err.file.fd = -1;
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
        /* a template's cell runs its own expansion: its command, URLs and jvm_args */
        if (definition_parse_cell(q->definition, strlen(q->definition), run->cell, &run->def, &err) < 0 ||
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
        cJSON_AddItemToObject(o, "load", load_exit_json(r->load));
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
        load_stop(r->load);
}

static void run_teardown(struct run *r, int state, const char *reason, const char *message, cJSON *metrics) {
        if (r->tearing_down || r->collector || load_busy(r->load)) {
                if (!r->tearing_down)
                        defer_stop(r, state, reason, message);
                cJSON_Delete(metrics);
                return;
        }
        r->tearing_down = true;
        r->ready_timer = sd_event_source_disable_unref(r->ready_timer);
        r->deadline_timer = sd_event_source_disable_unref(r->deadline_timer);
        r->done_defer = sd_event_source_disable_unref(r->done_defer);
        r->freq_timer = sd_event_source_disable_unref(r->freq_timer);
        r->series_timer = sd_event_source_disable_unref(r->series_timer);
        r->probe = probe_free(r->probe);

        /* The slice kill is the last word on every process the run made. */
        int k = 0;
        if (r->cg) {
                k = cgroup_run_destroy(r->cg);
                if (k < 0)
                        log_full(LOG_ERR, k, r->experiment_id, r->id, "run %s: removing its slices", r->id);
        }
        child_reap(&r->sut);
        load_reap(r->load);
        child_reap(&r->perf); /* killed with the load slice: only reaped here */
        child_reap(&r->jcmd);
        if (r->profile.perf && r->profile.jvm)
                profile_perfmap_discard(r->profile.sut_pid, r->profile.map_owner);
        capture_close(&r->sut_out);
        capture_close(&r->sut_err);
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
        if (load_busy(r->load)) {
                /* Daemon shutdown: the load ends what it runs elsewhere, here (load.h). */
                defer_stop(r, RUN_INTERRUPTED, "daemon_shutdown", "the daemon stopped");
                load_wait(r->load);
        }
        if (!r->tearing_down)
                run_teardown(r, RUN_INTERRUPTED, "daemon_shutdown", "the daemon stopped", NULL);
        r->done_defer = sd_event_source_disable_unref(r->done_defer);
        if (r->has_ready_regex)
                regfree(&r->ready_regex);
        cgroup_run_free(r->cg);
        host_freq_sampler_free(r->freq);
        samples_done(&r->series);
        ops_series_done(&r->ops);
        load_free(r->load);
        definition_free(r->def);
        cJSON_Delete(r->warnings);
        free(r);
}
