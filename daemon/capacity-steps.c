/* capacity-steps.c: a capacity search's steps within one run (see capacity-steps.h). */
#include "daemon/capacity-steps.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "daemon/capacity.h"
#include "daemon/run-plan.h"
#include "storage/steps.h"

static void warnf(const struct capacity_steps *cs, const char *fmt, ...) _printf_(2, 3);
static void warnf(const struct capacity_steps *cs, const char *fmt, ...) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        buf[utf8_complete_len(buf, strlen(buf))] = '\0';
        cs->run.warn(cs->run.userdata, buf);
}

void capacity_steps_init(struct capacity_steps *cs, const struct capacity_steps_run *run, char *message,
                         size_t message_size) {
        const struct definition_load *l = &run->def->load;
        *cs = (struct capacity_steps){ .run = *run, .best_step = -1, .steps = cJSON_CreateArray() };
        capacity_search_init(&cs->search, l->rate_min, l->rate_max, l->precision);
        (void) capacity_search_next(&cs->search, &cs->rate);
        snprintf(message, message_size, "capacity search from %.6g to %.6g req/s, steps of %u s warmup + %u s measure",
                 l->rate_min, l->rate_max, l->warmup_s, l->measure_s);
}

void capacity_steps_done(struct capacity_steps *cs) {
        cJSON_Delete(cs->steps);
        cs->steps = NULL;
}

/* How the JVM stays warm between steps: it is one SUT for the whole search, and each step's
 * injector runs its own warmup phase (load.step.warmup_s, excluded from the step's figures) at
 * the step's rate before it measures, so that the JIT and the heap settle at that rate. */
int capacity_steps_start(struct capacity_steps *cs, char *why, size_t why_size) {
        _cleanup_(definition_strv_freep) char **argv = NULL, **env = NULL;
        unsigned step = cs->search.steps;
        int k = run_plan_step_argv(cs->run.def, cs->run.dir, cs->run.injector_path, step, cs->rate, &argv);
        if (k >= 0)
                k = run_plan_load_env(&env);
        if (k >= 0)
                k = cs->run.spawn_load(cs->run.userdata, argv, env);
        if (k < 0) {
                snprintf(why, why_size, "cannot start capacity step %u: %s", step, strerror(-k));
                return k;
        }
        log_full(LOG_INFO, 0, cs->run.experiment_id, cs->run.id, "run %s: capacity step %u at %.6g req/s", cs->run.id, step,
                 cs->rate);
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
                if (snprintf(from, sizeof from, "%s/%s-step-%d%s", cs->run.dir, files[i][0], keep, files[i][1]) < (int) sizeof from &&
                    snprintf(to, sizeof to, "%s/%s%s", cs->run.dir, files[i][0], files[i][1]) < (int) sizeof to) {
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
        log_full(LOG_INFO, 0, cs->run.experiment_id, cs->run.id, "run %s: capacity search %s after %u steps, max_rps %.6g",
                 cs->run.id, capacity_outcome_to_string(s->outcome), s->steps, s->max_rps);
}

/* The judged step in the run's steps and in the store (a failure to store costs the step's
 * rows, not the search). */
static void keep_step(struct capacity_steps *cs, unsigned step, const struct capacity_step *judged) {
        cJSON *entry = cJSON_Duplicate(judged->data, true);
        cJSON_AddNumberToObject(entry, "step", step);
        cJSON_AddNumberToObject(entry, "rate", judged->rate);
        cJSON_AddBoolToObject(entry, "met", judged->met);
        cJSON_AddItemToArray(cs->steps, entry);
        _cleanup_free_ char *data = cJSON_PrintUnformatted(judged->data);
        struct step_row row = { .step = step, .rate = judged->rate, .met = judged->met,
                                .measure_start_ns = judged->timeline->header.measure_start_ns, .data_json = data };
        int k = steps_store(cs->run.db, cs->run.id, &row, judged->timeline->records, judged->timeline->n);
        if (k < 0)
                log_full(LOG_ERR, k, cs->run.experiment_id, cs->run.id, "run %s: cannot store capacity step %u", cs->run.id,
                         step);
}

int capacity_steps_next(struct capacity_steps *cs, char *why, size_t why_size) {
        unsigned step = cs->search.steps;
        struct capacity_step judged = { 0 };
        why[0] = '\0';
        int k = capacity_step_judge(cs->run.def, cs->run.dir, step, cs->rate, &judged, why, why_size);
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
                k = capacity_steps_start(cs, why, why_size);
                return k < 0 ? k : 1;
        }
        keep_best_step(cs);
        return 0;
}

void capacity_steps_describe_stop(const struct capacity_steps *cs, char *buf, size_t size) {
        snprintf(buf, size, "capacity step %u at %.6g req/s: the search stopped (sut_died) after %u judged steps, highest rate met so far %.6g req/s",
                 cs->search.steps, cs->rate, cs->search.steps, cs->search.lo_met ? cs->search.lo : 0);
}

cJSON *capacity_steps_metrics(const struct capacity_steps *cs) {
        return capacity_metrics(cs->run.def, &cs->search, cs->steps);
}
