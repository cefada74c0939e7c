/* steady-state-json.h: a run's series classified by basic/steady-state into its
 * metrics.steady_state (issue 36), for the load timeline's intervals (timeline-series.h) and a
 * benchmark's in-process iterations (ops-series.h) alike. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

struct steady_series {
        const char *metric;             /* "latency_us.scheduled.p50", "throughput_rps", "ops_per_s" */
        double interval_s;              /* the intervals' width; NaN: iterations of their own lengths */
        const double *value;            /* n points, above 0 */
        const double *start_s, *end_s;  /* each point's span, seconds from the run's start */
        size_t n;
        bool higher_is_faster;
        double measure_start_s;         /* NaN: none (a benchmark has no phases) */
        bool have_ignored;              /* malformed_lines is said (iterations) */
        uint64_t malformed_lines;
};

#define STEADY_SERIES_MIN 4

/* Adds metrics.steady_state for s (nothing below STEADY_SERIES_MIN points or for values the
 * classifier refuses). -ENOMEM. */
int steady_state_metrics(const struct steady_series *s, struct cJSON *metrics);
