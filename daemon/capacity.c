/* capacity.c: judging a capacity step and the run's capacity figures (see capacity.h). */
#include "daemon/capacity.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/latency.h"
#include "basic/radix-sort.h"
#include "basic/stats.h"
#include "basic/time-util.h"
#include "daemon/run-files.h"

DEFINE_POINTER_CLEANUP(struct timeline, timeline_free)

void capacity_step_done(struct capacity_step *s) {
        cJSON_Delete(s->data);
        timeline_free(s->timeline);
        *s = (struct capacity_step){ 0 };
}

/* Latencies from scheduled of the measured answered requests, sorted. */
static int scheduled_latencies(const struct timeline *t, int64_t **ret, size_t *ret_n) {
        _cleanup_free_ int64_t *v = malloc((t->n ? t->n : 1) * sizeof *v);
        size_t n = 0;
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < t->n; i++) {
                int64_t x;
                if (!(t->records[i].flags & TIMELINE_WARMUP) && latency_of(&t->records[i], LATENCY_SCHEDULED, &x))
                        v[n++] = x;
        }
        int r = radix_sort_i64(v, n);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

/* Whether the injector failed to keep the step's schedule: of the measured requests its schedule
 * held, it sent fewer than CAPACITY_SENT_FRACTION (the rest are not_sent), so the server saw
 * less than the step's load. Counted on the timeline, not on the summary's achieved_rps, whose
 * window also holds the drain of the last answers. Its lag needs no bound of its own: latency
 * from scheduled includes it, so a slow injector can make a step miss, never pass. */
static bool injector_saturated(const struct timeline *t, size_t *ret_scheduled, size_t *ret_sent) {
        size_t scheduled = 0, sent = 0;
        for (size_t i = 0; i < t->n; i++) {
                int64_t lag;
                if (t->records[i].flags & TIMELINE_WARMUP)
                        continue;
                scheduled++;
                if (latency_of(&t->records[i], LATENCY_LAG, &lag)) /* the rule of "sent" */
                        sent++;
        }
        *ret_scheduled = scheduled;
        *ret_sent = sent;
        return scheduled == 0 || (double) sent < CAPACITY_SENT_FRACTION * (double) scheduled;
}

/* The SLA table of a step; false when any is missed (or there is no latency to judge). */
static bool judge_slas(const struct definition_load *l, const int64_t *lat, size_t n, cJSON *data, cJSON *reasons) {
        cJSON *sla = cJSON_AddArrayToObject(data, "sla");
        bool all = n > 0;
        for (size_t i = 0; i < l->n_sla; i++) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddNumberToObject(o, "percentile", l->sla[i].percentile);
                cJSON_AddNumberToObject(o, "max_ms", l->sla[i].max_ms);
                bool met = false;
                if (n > 0) {
                        double ms = (double) stats_percentile_sorted_i64(lat, n, l->sla[i].percentile) / 1e6;
                        met = ms <= l->sla[i].max_ms;
                        cJSON_AddNumberToObject(o, "latency_ms", ms);
                        if (!met)
                                json_append_printf(reasons, "p%g from scheduled was %.3f ms, over %g ms", l->sla[i].percentile, ms,
                                                   l->sla[i].max_ms);
                } else
                        cJSON_AddNullToObject(o, "latency_ms");
                cJSON_AddBoolToObject(o, "met", met);
                cJSON_AddItemToArray(sla, o);
                all = all && met;
        }
        if (n == 0)
                json_append_printf(reasons, "no measured request got an answer");
        return all;
}

int capacity_step_judge(const struct definition *d, const char *dir, unsigned step, double rate,
                        struct capacity_step *ret, char *why, size_t why_size) {
        char name[64], unsafe[256] = "";
        snprintf(name, sizeof name, "timeline-step-%u.bin", step);
        _cleanup_(timeline_freep) struct timeline *t = NULL;
        _cleanup_close_ int fd = -1;
        int r = run_file_open(dir, name, RUN_FILE_CAP_TIMELINE, &fd, unsafe, sizeof unsafe);
        if (r >= 0)
                r = timeline_load_fd(fd, &t);
        if (r < 0) {
                snprintf(why, why_size, "capacity step %u left no usable timeline %s/%s: %s", step, dir, name,
                         unsafe[0] ? unsafe : strerror(-r));
                return r;
        }
        _cleanup_json_ cJSON *data = cJSON_CreateObject();
        if ((r = timeline_metrics(t, (int64_t) d->load.measure_s * NSEC_PER_SEC, data)) < 0)
                return r;
        _cleanup_free_ int64_t *lat = NULL;
        size_t n = 0;
        if ((r = scheduled_latencies(t, &lat, &n)) < 0)
                return r;
        cJSON *reasons = cJSON_CreateArray();
        bool met = judge_slas(&d->load, lat, n, data, reasons);
        size_t scheduled, sent;
        bool saturated = injector_saturated(t, &scheduled, &sent);
        cJSON_AddBoolToObject(data, "saturated", saturated);
        cJSON_AddNumberToObject(data, "scheduled", (double) scheduled);
        cJSON_AddNumberToObject(data, "sent", (double) sent);
        if (saturated) {
                met = false;
                json_append_printf(reasons, "the injector was saturated: it sent %zu of the %zu requests scheduled", sent,
                                   scheduled);
        }
        double requests = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(data, "requests"));
        double errors = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(data, "errors"));
        double error_rate = requests > 0 ? errors / requests : 0;
        cJSON_AddNumberToObject(data, "error_rate", error_rate);
        if (error_rate >= CAPACITY_ERROR_RATE_MAX) {
                met = false;
                json_append_printf(reasons, "errors were %.3f%% of the requests, not under %.1f%%", error_rate * 100,
                                   CAPACITY_ERROR_RATE_MAX * 100);
        }
        cJSON_AddStringToObject(data, "verdict", met ? "met" : "missed");
        cJSON_AddItemToObject(data, "reasons", reasons);
        *ret = (struct capacity_step){ .step = step, .rate = rate, .met = met, .data = TAKE_PTR(data), .timeline = TAKE_PTR(t) };
        return 0;
}

/* Whether a step's data says it met SLA i and the conditions every SLA shares. */
static bool step_met_sla(const cJSON *step, size_t i) {
        const cJSON *data = step;
        if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(data, "saturated")))
                return false;
        double rate = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(data, "error_rate"));
        if (!(rate < CAPACITY_ERROR_RATE_MAX))
                return false;
        const cJSON *sla = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(data, "sla"), (int) i);
        return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sla, "met"));
}

cJSON *capacity_metrics(const struct definition *d, const struct capacity_search *s, const cJSON *steps) {
        const struct definition_load *l = &d->load;
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "outcome", capacity_outcome_to_string(s->outcome));
        json_add_number_or_null(c, "max_rps", s->outcome == CAPACITY_FOUND || s->outcome == CAPACITY_RATE_MAX_MET,
                                s->max_rps);
        cJSON *per = cJSON_AddArrayToObject(c, "per_sla");
        double log_sum = 0;
        bool all = true;
        for (size_t i = 0; i < l->n_sla; i++) {
                double best = 0;
                const cJSON *st;
                cJSON_ArrayForEach(st, steps) {
                        double rate = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "rate"));
                        if (step_met_sla(st, i) && rate > best)
                                best = rate;
                }
                cJSON *o = cJSON_CreateObject();
                cJSON_AddNumberToObject(o, "percentile", l->sla[i].percentile);
                cJSON_AddNumberToObject(o, "max_ms", l->sla[i].max_ms);
                json_add_number_or_null(o, "rps", best > 0, best);
                cJSON_AddItemToArray(per, o);
                if (best > 0)
                        log_sum += log(best);
                else
                        all = false;
        }
        json_add_number_or_null(c, "critical_rps", all && l->n_sla > 0, exp(log_sum / (double) l->n_sla));
        cJSON_AddNumberToObject(c, "steps", (double) cJSON_GetArraySize(steps));
        cJSON_AddNumberToObject(c, "precision", l->precision);
        return c;
}
