/* summary.c: the JSON summary: what was asked, what happened, and whether the injector kept up.
 * Figures cover the measure phase; latencies are exact nearest-rank percentiles in microseconds
 * (with ns precision), from scheduled (coordinated-omission corrected), from submit, and lag. */
#include "injector/summary.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>

#include "basic/json-util.h"
#include "basic/time-util.h"
#include "basic/macro.h"

static double us(int64_t ns) {
        return (double) ns / 1000.0;
}

static double ms(int64_t ns) {
        return (double) ns / (double) NSEC_PER_MSEC;
}

static cJSON *latency_json(const struct timeline_stats *st, enum latency_kind k) {
        if (st->latency.n[k] == 0)
                return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject();
        for (int p = 0; o && p < _PCT_MAX; p++)
                cJSON_AddNumberToObject(o, percentile_names[p], us(st->latency.pct[k][p]));
        return o;
}

static cJSON *errors_json(const struct timeline_stats *st) {
        cJSON *o = cJSON_CreateObject();
        for (unsigned e = TIMELINE_ERR_NONE + 1; o && e < _TIMELINE_ERR_MAX; e++)
                cJSON_AddNumberToObject(o, timeline_error_name(e), (double) st->errors[e]);
        if (o)
                cJSON_AddNumberToObject(o, "http", (double) st->http_errors);
        return o;
}

static cJSON *status_json(const struct timeline_stats *st) {
        cJSON *o = cJSON_CreateObject();
        for (unsigned c = 1; o && c < ELEMENTSOF(st->status_class); c++) {
                if (st->status_class[c] == 0)
                        continue;
                char name[8];
                snprintf(name, sizeof name, "%uxx", c);
                cJSON_AddNumberToObject(o, name, (double) st->status_class[c]);
        }
        return o;
}

static cJSON *rusage_json(void) {
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) < 0)
                return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject();
        if (!o)
                return NULL;
        cJSON_AddNumberToObject(o, "user_s", (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
        cJSON_AddNumberToObject(o, "sys_s", (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
        cJSON_AddNumberToObject(o, "max_rss_kb", (double) ru.ru_maxrss);
        return o;
}

static void add_or_null(cJSON *o, const char *name, bool have, double v) {
        if (have)
                cJSON_AddNumberToObject(o, name, v);
        else
                cJSON_AddNullToObject(o, name);
}

/* How the spin was chosen (calibrate.h) and what spinning cost over the whole run. */
static cJSON *calibration_json(const struct engine_result *er) {
        const struct calibration *c = &er->calibration;
        bool ran = c->outcome == CALIBRATE_RAN;
        double run_s = (double) (er->end_ns - er->start_ns) / (double) NSEC_PER_SEC;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "ran", ran);
        cJSON_AddStringToObject(o, "outcome", calibrate_outcome_name(c->outcome));
        add_or_null(o, "gap_us", c->gap_ns > 0, us(c->gap_ns));
        add_or_null(o, "wakeup_late_p50_us", ran, us(c->late_p50_ns));
        add_or_null(o, "wakeup_late_p99_us", ran, us(c->late_p99_ns));
        add_or_null(o, "samples", ran, c->samples);
        cJSON_AddNumberToObject(o, "spin_us", us(c->spin_ns));
        cJSON_AddNumberToObject(o, "spin_before_warmup_us", us(c->spin_before_warmup_ns));
        cJSON_AddNumberToObject(o, "warmup_windows", c->warmup_windows);
        cJSON_AddNumberToObject(o, "warmup_raises", c->warmup_raises);
        add_or_null(o, "warmup_lag_p99_us", c->warmup_lag_p99_ns >= 0, us(c->warmup_lag_p99_ns));
        add_or_null(o, "expected_lag_p99_us", ran, us(c->expected_lag_p99_ns));
        add_or_null(o, "budget_spin_us", ran, us(c->budget_spin_ns));
        if (ran)
                cJSON_AddBoolToObject(o, "bounded_by_budget", c->bounded);
        else
                cJSON_AddNullToObject(o, "bounded_by_budget");
        cJSON_AddNumberToObject(o, "spin_cpu_s", (double) er->spun_ns / (double) NSEC_PER_SEC);
        add_or_null(o, "spin_cpu_share", run_s > 0, run_s > 0 ? (double) er->spun_ns / (double) NSEC_PER_SEC / run_s : 0);
        return o;
}

/* The late requests and whose they were (lag-attribution.h). */
static cJSON *late_json(const struct lag_attribution *late) {
        if (!late)
                return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "threshold_us", us(LATENCY_LATE_NS));
        cJSON_AddNumberToObject(o, "requests", (double) late->late);
        cJSON_AddNumberToObject(o, "server", (double) late->late_server);
        cJSON_AddNumberToObject(o, "stalled", (double) late->late_stalled);
        cJSON_AddNumberToObject(o, "stalls", (double) late->stalls);
        cJSON_AddNumberToObject(o, "stalls_ms", ms(late->stalls_ns));
        cJSON_AddNumberToObject(o, "stall_max_ms", ms(late->stall_max_ns));
        cJSON_AddNumberToObject(o, "injector", (double) (late->late - late->late_server - late->late_stalled));
        return o;
}

static const char *signal_name(int sig) {
        return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : NULL;
}


char *summary_format(const struct inject_options *o, const struct engine_result *er,
                     const struct timeline_stats *st, const struct lag_attribution *late) {
        _cleanup_json_ cJSON *j = cJSON_CreateObject();
        if (!j)
                return NULL;
        double measured_s = (double) (er->end_ns - er->measure_start_ns) / (double) NSEC_PER_SEC;
        bool have_time = measured_s > 0;
        double achieved = have_time ? (double) st->sent / measured_s : 0;
        bool rate = o->mode == INJECT_MODE_RATE;
        bool saturated = rate && have_time &&
                         (achieved < SUMMARY_SATURATED_RATE_FRACTION * o->rate ||
                          (st->latency.n[LATENCY_LAG] > 0 && st->latency.pct[LATENCY_LAG][PCT_P99] > SUMMARY_SATURATED_LAG_P99_NS));

        cJSON_AddStringToObject(j, "version", SLICELAB_VERSION);
        cJSON_AddStringToObject(j, "url", o->url);
        cJSON_AddStringToObject(j, "mode", options_mode_name(o->mode));
        add_or_null(j, "rate", rate, o->rate);
        cJSON_AddStringToObject(j, "arrival", options_arrival_name(o->arrival));
        cJSON_AddNumberToObject(j, "seed", (double) o->seed);
        cJSON_AddNumberToObject(j, "connections", o->connections);
        cJSON_AddNumberToObject(j, "threads", o->threads);
        cJSON_AddNumberToObject(j, "timeout_ms", (double) o->timeout_ns / (double) NSEC_PER_MSEC);
        /* The warmup the run had: with --warmup-until-signal, a SIGUSR1 may have ended it early. */
        cJSON_AddNumberToObject(j, "warmup_s", (double) (er->measure_start_ns - er->start_ns) / (double) NSEC_PER_SEC);
        cJSON_AddNumberToObject(j, "duration_s", (double) o->duration_ns / (double) NSEC_PER_SEC);
        cJSON_AddNumberToObject(j, "start_ns", (double) er->start_ns);
        cJSON_AddNumberToObject(j, "measure_start_ns", (double) er->measure_start_ns);
        cJSON_AddNumberToObject(j, "end_ns", (double) er->end_ns);
        cJSON_AddNumberToObject(j, "measured_s", have_time ? measured_s : 0);
        cJSON_AddBoolToObject(j, "stopped", er->stopped);
        const char *sig = signal_name(er->stop_signal);
        if (sig)
                cJSON_AddStringToObject(j, "stop_signal", sig);
        else
                cJSON_AddNullToObject(j, "stop_signal");
        cJSON_AddNumberToObject(j, "records", (double) st->records);
        cJSON_AddNumberToObject(j, "warmup_requests", (double) st->warmup);
        cJSON_AddNumberToObject(j, "requests", (double) st->measured);
        cJSON_AddNumberToObject(j, "ok", (double) st->ok);
        cJSON_AddNumberToObject(j, "errors", (double) (st->measured - st->ok));
        cJSON_AddItemToObject(j, "errors_by_kind", errors_json(st));
        cJSON_AddItemToObject(j, "status", status_json(st));
        add_or_null(j, "achieved_rps", have_time, achieved);
        add_or_null(j, "throughput_rps", have_time, have_time ? (double) st->ok / measured_s : 0);
        cJSON *lat = cJSON_AddObjectToObject(j, "latency_us");
        for (int k = 0; lat && k < _LATENCY_MAX; k++)
                cJSON_AddItemToObject(lat, latency_kind_names[k], latency_json(st, (enum latency_kind) k));
        cJSON_AddItemToObject(j, "late", late_json(late));
        cJSON_AddBoolToObject(j, "saturated", saturated);
        cJSON_AddNumberToObject(j, "connections_opened", (double) er->connects);
        cJSON_AddNumberToObject(j, "connect_failures", (double) er->connect_failures);
        cJSON_AddNumberToObject(j, "server_closes", (double) er->server_closes);
        cJSON_AddNumberToObject(j, "ring_full_waits", (double) er->ring_full);
        cJSON_AddStringToObject(j, "deadlines", er->deadlines_timerfd ? "timerfd" : "epoll_pwait2");
        cJSON_AddItemToObject(j, "calibration", calibration_json(er));
        cJSON_AddItemToObject(j, "rusage", rusage_json());
        return cJSON_Print(j);
}
