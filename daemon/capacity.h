/* capacity.h: one step of a capacity search (load.mode "capacity") judged from its own files:
 * timeline-step-N.bin and summary-step-N.json in the run directory. A step meets when every
 * SLA percentile of the latency from scheduled (nearest rank over the measured requests that
 * got an answer) is within its max_ms, the injector was not saturated (it sent at least 99% of
 * the step's measured scheduled requests: a server that saw less than the step's load proves
 * nothing; its lag needs no bound of its own, latency from scheduled includes it) and errors (transport errors and HTTP statuses >= 400) are under 0.1% of the requests; a step
 * without an answered request misses. And the run's `capacity` metrics out of its steps. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/capacity-search.h"
#include "daemon/timeline.h"
#include "definition/definition.h"

struct cJSON;

#define CAPACITY_ERROR_RATE_MAX 0.001
#define CAPACITY_SENT_FRACTION 0.99

struct capacity_step {
        unsigned step;
        double rate;
        bool met;
        struct cJSON *data;             /* {"throughput_rps","requests","errors","error_rate","saturated","scheduled","sent",
                                         *  "latency_us":{scheduled,submit,lag},"sla":[{"percentile","max_ms",
                                         *  "latency_ms","met"}],"verdict":"met"|"missed","reasons":[..]} */
        struct timeline *timeline;
};

void capacity_step_done(struct capacity_step *s);

/* Judge step (at rate) of d's search from the files in dir; why filled on failure (a missing or
 * unreadable timeline: the step's load did not do its job). */
int capacity_step_judge(const struct definition *d, const char *dir, unsigned step, double rate,
                        struct capacity_step *ret, char *why, size_t why_size);

/* The run's metrics.capacity: {"outcome", "max_rps", "per_sla": [{"percentile", "max_ms", "rps"}],
 * "critical_rps", "steps", "precision"}: per_sla's rps is the highest step rate that met that SLA
 * (with the step's other conditions), critical_rps their geometric mean (as SPECjbb2015's
 * critical-jOPS), null when an SLA was never met. steps holds each step's data. */
struct cJSON *capacity_metrics(const struct definition *d, const struct capacity_search *s,
                               const struct cJSON *steps);
