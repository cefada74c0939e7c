/* capacity-steps.c: a capacity search's steps within one run (load.mode "capacity"): which rate
 * comes next (basic/capacity-search), each step's injector started at it as the run's load
 * process (load-local.h), each step judged (capacity.h), stored and recorded, and at the end the
 * step at max_rps kept as the run's timeline and summary. It is the run's load
 * (load_capacity_ops, load.h): the run measures from the search's start, keeps its state
 * machine and its deadline, which each step's start renews, and collects once the search is
 * over. With load.hosts each step runs on the hosts instead (load-hosts.h: the step's rate split
 * by share, every host starting at one instant, their timelines merged into the step's files),
 * each step keeps the hosts' figures, and a host that fails ends the search with the steps
 * judged so far, naming it. */

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "daemon/capacity.h"
#include "daemon/load-hosts.h"
#include "daemon/load-local.h"
#include "daemon/run-plan.h"
#include "storage/steps.h"

struct capacity_steps {
        struct load load;               /* its head */
        struct load_process process;    /* the current step's injector, without load.hosts */
        struct load *hosts;             /* with load.hosts: the steps on the hosts (load-hosts.h) */
        struct load_run hosts_run;      /* the run as the hosts see it: their events come here */
        bool searching;                 /* the first step was started */
        bool ending;                    /* the hosts' thread is told to end: finished says this */
        int end_result;
        char end_message[1024];
        sd_event_source *step_defer;    /* its exit, judged from a deferred event */
        struct capacity_search search;
        double rate;                    /* the current step's */
        cJSON *steps;                   /* each judged step's data with step, rate, met */
        int best_step;                  /* the step at max_rps, or -1 */
};

static struct capacity_steps *steps_of(const struct load *l) {
        return (struct capacity_steps *) l;
}

static void warnf(const struct capacity_steps *cs, const char *fmt, ...) _printf_(2, 3);
static void warnf(const struct capacity_steps *cs, const char *fmt, ...) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        buf[utf8_complete_len(buf, strlen(buf))] = '\0';
        cs->load.run->events->warn(cs->load.run->userdata, buf);
}

/* How the JVM stays warm between steps: it is one SUT for the whole search, and each step's
 * injector runs its own warmup phase (load.step.warmup_s, excluded from the step's figures) at
 * the step's rate before it measures, so that the JIT and the heap settle at that rate. Step 0's
 * is longer by the search's warmup (load.warmup_s): a JVM compiling its first methods on the
 * cell's CPUs misses an SLA its warm self meets, and the bisection never tests above a miss. */
static int start_step(struct capacity_steps *cs, char *why, size_t why_size) {
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL;
        unsigned step = cs->search.steps;
        log_full(LOG_INFO, 0, cs->load.run->experiment_id, cs->load.run->id, "run %s: capacity step %u at %.6g req/s%s", cs->load.run->id, step,
                 cs->rate, cs->hosts ? " on the load hosts" : "");
        if (cs->hosts) {
                load_hosts_step(cs->hosts, step, cs->rate);
                return 0;
        }
        int k = run_plan_step_argv(cs->load.run->def, cs->load.run->dir, cs->load.run->injector_path, step, cs->rate, &argv);
        if (k >= 0)
                k = run_plan_load_env(&env);
        if (k >= 0)
                k = load_process_spawn(&cs->process, argv, env);
        if (k < 0) {
                snprintf(why, why_size, "cannot start capacity step %u: %s", step, strerror(-k));
                return k;
        }
        return 0;
}

/* The search is over: the step at max_rps (else the last one) becomes the run's timeline and
 * summary, whose figures collect reads as for any run; the outcome is said in the run. */
static void keep_best_step(struct capacity_steps *cs) {
        int keep = cs->best_step >= 0 ? cs->best_step : (int) cs->search.steps - 1;
        char from[PATH_MAX], to[PATH_MAX];
        static const char *const files[][2] = { { "timeline", ".bin" }, { "summary", ".json" } };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                const char *what = "the path is too long";
                if (snprintf(from, sizeof from, "%s/%s-step-%d%s", cs->load.run->dir, files[i][0], keep, files[i][1]) < (int) sizeof from &&
                    snprintf(to, sizeof to, "%s/%s%s", cs->load.run->dir, files[i][0], files[i][1]) < (int) sizeof to) {
                        (void) unlink(to);
                        if (link(from, to) >= 0)
                                continue;
                        what = strerror(errno);
                }
                warnf(cs, "cannot keep capacity step %d's %s%s as the run's: %s", keep, files[i][0], files[i][1], what);
        }
        const struct capacity_search *s = &cs->search;
        if (s->outcome == CAPACITY_RATE_MAX_MET)
                warnf(cs, "capacity search: even rate_max (%.6g req/s) met every SLA; the capacity is at least that", s->max_rps);
        else if (s->outcome == CAPACITY_RATE_MIN_MISSED)
                warnf(cs, "capacity search: even rate_min (%.6g req/s) missed the SLAs; the capacity is below it, max_rps is null",
                      s->rate_min);
        log_full(LOG_INFO, 0, cs->load.run->experiment_id, cs->load.run->id, "run %s: capacity search %s after %u steps, max_rps %.6g",
                 cs->load.run->id, capacity_outcome_to_string(s->outcome), s->steps, s->max_rps);
}

/* The judged step in the run's steps and in the store (a failure to store costs the step's
 * rows, not the search). */
static void keep_step(struct capacity_steps *cs, unsigned step, const struct capacity_step *judged) {
        if (cs->hosts)
                cJSON_AddItemToObject(judged->data, "hosts", load_hosts_json(cs->hosts));
        cJSON *entry = cJSON_Duplicate(judged->data, true);
        cJSON_AddNumberToObject(entry, "step", step);
        cJSON_AddNumberToObject(entry, "rate", judged->rate);
        cJSON_AddBoolToObject(entry, "met", judged->met);
        cJSON_AddItemToArray(cs->steps, entry);
        _cleanup_free_ char *data = cJSON_PrintUnformatted(judged->data);
        struct step_row row = { .step = step, .rate = judged->rate, .met = judged->met,
                                .measure_start_ns = judged->timeline->header.measure_start_ns, .data_json = data };
        int k = steps_store(cs->load.run->db, cs->load.run->id, &row, judged->timeline->records, judged->timeline->n);
        if (k < 0)
                log_full(LOG_ERR, k, cs->load.run->experiment_id, cs->load.run->id, "run %s: cannot store capacity step %u", cs->load.run->id,
                         step);
}

/* The current step's injector exited 0: judge, store and record the step, then start the next
 * (1) or end the search (0: the step at max_rps is the run's timeline and summary); -errno with
 * why when the step left nothing to judge or the next could not start. */
static int next_step(struct capacity_steps *cs, char *why, size_t why_size) {
        unsigned step = cs->search.steps;
        struct capacity_step judged = { 0 };
        why[0] = '\0';
        int k = capacity_step_judge(cs->load.run->def, cs->load.run->dir, step, cs->rate, &judged, why, why_size);
        if (k < 0) {
                if (!why[0])
                        snprintf(why, why_size, "%s", strerror(-k));
                return k;
        }
        keep_step(cs, step, &judged);
        bool met = judged.met;
        capacity_step_done(&judged);
        capacity_search_record(&cs->search, cs->rate, met);
        if (met && cs->search.lo == cs->rate)
                cs->best_step = (int) step;
        if (capacity_search_next(&cs->search, &cs->rate)) {
                k = start_step(cs, why, why_size);
                return k < 0 ? k : 1;
        }
        keep_best_step(cs);
        return 0;
}

/* Where the search stopped, for a run that ends there (why: sut_died, load_failed). */
static void describe_stop(const struct capacity_steps *cs, const char *why, char *buf, size_t size) {
        char met[64] = "no rate met so far";
        if (cs->search.lo_met)
                snprintf(met, sizeof met, "highest rate met so far %.6g req/s", cs->search.lo);
        snprintf(buf, size, "capacity step %u at %.6g req/s: the search stopped (%s) after %u judged steps, %s", cs->search.steps,
                 cs->rate, why, cs->search.steps, met);
}

static void steps_describe(const struct load *l, char *buf, size_t size) {
        describe_stop(steps_of(l), "sut_died", buf, size);
}

/* The hosts' figures of the step kept as the run's timeline: metrics.load.hosts. */
static void add_kept_hosts(const struct capacity_steps *cs, cJSON *metrics) {
        int keep = cs->best_step >= 0 ? cs->best_step : (int) cs->search.steps - 1;
        cJSON *load = cJSON_GetObjectItemCaseSensitive(metrics, "load");
        const cJSON *st;
        cJSON_ArrayForEach(st, cs->steps) {
                const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(st, "hosts");
                if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "step")) == keep && cJSON_IsObject(load) &&
                    cJSON_IsArray(hosts))
                        cJSON_AddItemToObject(load, "hosts", cJSON_Duplicate(hosts, true));
        }
}

static void steps_metrics(const struct load *l, cJSON *metrics) {
        const struct capacity_steps *cs = steps_of(l);
        cJSON_ReplaceItemInObjectCaseSensitive(metrics, "capacity", capacity_metrics(cs->load.run->def, &cs->search, cs->steps));
        if (cs->hosts)
                add_kept_hosts(cs, metrics);
}

/* The search ends with result: a local search says it now; the hosts' thread is told to end
 * (or to stop, on a failure) and finished says it once the thread is done (hosts_finished). */
static void end_search(struct capacity_steps *cs, int result, const char *why) {
        const struct load_run *run = cs->load.run;
        if (!cs->hosts) {
                run->events->finished(run->userdata, result, result < 0 ? "load_failed" : NULL, why);
                return;
        }
        cs->ending = true;
        cs->end_result = result;
        snprintf(cs->end_message, sizeof cs->end_message, "%s", why ? why : "");
        if (result < 0)
                load_stop(cs->hosts);
        else
                load_hosts_steps_end(cs->hosts);
}

/* A step's injector finished: the search judges it and starts the next step or ends. */
static void step_done(struct capacity_steps *cs) {
        char why[512];
        int k = next_step(cs, why, sizeof why);
        if (k <= 0)
                end_search(cs, k, k < 0 ? why : NULL);
}

static int on_step_done(sd_event_source *src, void *userdata) {
        struct capacity_steps *cs = userdata;
        cs->step_defer = sd_event_source_disable_unref(cs->step_defer);
        load_process_reap(&cs->process);
        step_done(cs);
        return 0;
}

/* ---- the hosts' events (load-hosts.h), passed on to the run --------------------------------- */

static void hosts_step_done(void *userdata) {
        step_done(userdata);
}

static void hosts_prepared(void *userdata) {
        struct capacity_steps *cs = userdata;
        cs->load.run->events->prepared(cs->load.run->userdata);
}

static void hosts_started(void *userdata) {
        struct capacity_steps *cs = userdata;
        cs->load.run->events->started(cs->load.run->userdata);
}

/* The search measures from its start (steps_start): the hosts' phases are each step's. */
static void hosts_phase(void *userdata, const char *message) {
}

/* The thread is done: the search's end as end_search() said it, or a host that failed (or the
 * run stopping) ended it, named with where the search stood. */
static void hosts_finished(void *userdata, int result, const char *reason, const char *message) {
        struct capacity_steps *cs = userdata;
        const struct load_run *run = cs->load.run;
        if (cs->ending) {
                run->events->finished(run->userdata, cs->end_result, cs->end_result < 0 ? "load_failed" : NULL,
                                      cs->end_result < 0 ? cs->end_message : NULL);
                return;
        }
        char where[512] = "", buf[2048];
        if (cs->searching)
                describe_stop(cs, reason ? reason : "load_failed", where, sizeof where);
        snprintf(buf, sizeof buf, "%s%s%s", message ? message : "", where[0] ? "; " : "", where);
        buf[utf8_complete_len(buf, strlen(buf))] = '\0';
        run->events->finished(run->userdata, result < 0 ? result : -EIO, reason ? reason : "load_failed", buf);
}

static void hosts_warn(void *userdata, const char *message) {
        struct capacity_steps *cs = userdata;
        cs->load.run->events->warn(cs->load.run->userdata, message);
}

static const struct load_events hosts_events = {
        .prepared = hosts_prepared,
        .started = hosts_started,
        .warmup = hosts_phase,
        .measure = hosts_phase,
        .finished = hosts_finished,
        .warn = hosts_warn,
};

/* Judged from a deferred event, never under the child source being replaced. */
static void on_step_exit(struct load_process *p, void *userdata) {
        struct capacity_steps *cs = userdata;
        if (!cs->step_defer)
                (void) sd_event_add_defer(p->run->event, &cs->step_defer, on_step_done, cs);
}

static int steps_new(const struct load_run *run, struct load **ret) {
        struct capacity_steps *cs = calloc(1, sizeof *cs);
        if (!cs)
                return -ENOMEM;
        cs->best_step = -1;
        cs->steps = cJSON_CreateArray();
        if (!cs->steps) {
                free(cs);
                return -ENOMEM;
        }
        load_process_init(&cs->process, run, on_step_exit, cs);
        if (run->def->load.n_hosts > 0) {
                cs->hosts_run = *run;
                cs->hosts_run.events = &hosts_events;
                cs->hosts_run.userdata = cs;
                int k = load_hosts_steps_new(&cs->hosts_run, hosts_step_done, cs, &cs->hosts);
                if (k < 0) {
                        cJSON_Delete(cs->steps);
                        free(cs);
                        return k;
                }
        }
        *ret = &cs->load;
        return 0;
}

/* With load.hosts, the hosts' preflight (their clocks); prepared follows. */
static int steps_prepare(struct load *l, char *why, size_t why_size) {
        struct capacity_steps *cs = steps_of(l);
        if (cs->hosts)
                return load_prepare(cs->hosts, why, why_size);
        l->run->events->prepared(l->run->userdata);
        return 0;
}

/* The search from its first step; the run measures from here, each step's figures its own. */
static int steps_start(struct load *l, char *why, size_t why_size) {
        struct capacity_steps *cs = steps_of(l);
        const struct definition_load *d = &l->run->def->load;
        char message[200];
        capacity_search_init(&cs->search, d->rate_min, d->rate_max, d->precision);
        (void) capacity_search_next(&cs->search, &cs->rate);
        snprintf(message, sizeof message,
                 "capacity search from %.6g to %.6g req/s, steps of %u s warmup + %u s measure, step 0's warmup %u s longer%s",
                 d->rate_min, d->rate_max, d->warmup_s, d->measure_s, d->search_warmup_s,
                 cs->hosts ? ", each step's rate split over the load hosts" : "");
        l->run->events->measure(l->run->userdata, message);
        cs->searching = true;
        return start_step(cs, why, why_size);
}

static void steps_reap(struct load *l) {
        struct capacity_steps *cs = steps_of(l);
        cs->step_defer = sd_event_source_disable_unref(cs->step_defer);
        load_process_reap(&cs->process);
        load_reap(cs->hosts);
}

/* The hosts' thread deletes their loads and finishes. */
static void steps_stop(struct load *l) {
        load_stop(steps_of(l)->hosts);
}

static bool steps_busy(const struct load *l) {
        return load_busy(steps_of(l)->hosts);
}

static void steps_wait(struct load *l) {
        load_wait(steps_of(l)->hosts);
}

static const struct child *steps_child(const struct load *l) {
        const struct capacity_steps *cs = steps_of(l);
        return cs->hosts ? NULL : &cs->process.child;
}

static void steps_free(struct load *l) {
        struct capacity_steps *cs = steps_of(l);
        steps_reap(l);
        load_free(cs->hosts);
        cJSON_Delete(cs->steps);
        free(cs);
}

const struct load_ops load_capacity_ops = {
        .name = "capacity",
        .slice = true,
        .new = steps_new,
        .prepare = steps_prepare,
        .start = steps_start,
        .stop = steps_stop,
        .busy = steps_busy,
        .wait = steps_wait,
        .reap = steps_reap,
        .describe = steps_describe,
        .child = steps_child,
        .metrics = steps_metrics,
        .free = steps_free,
};
