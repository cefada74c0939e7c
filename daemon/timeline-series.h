/* timeline-series.h: a run's series per interval of its warmup and measure phases, from its
 * timeline, classified by basic/steady-state (issue 36): whether and when the run reached a
 * steady state. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/timeline.h"

#define TIMELINE_SERIES_INTERVAL_NS (INT64_C(1000) * 1000 * 1000)
/* More intervals than this (a week of seconds) are not classified: the series would be
 * allocated from a figure the run could not have. */
#define TIMELINE_SERIES_MAX_INTERVALS (7 * 24 * 3600)

struct cJSON;

/* Adds metrics.steady_state: the series of t's requests by the scheduled time's interval from
 * the schedule's start, each full interval's value (rate_metric: answered requests per second,
 * "throughput_rps", for a closed loop; else the median latency from the scheduled time,
 * "latency_us.scheduled.p50", in us), classified: {metric, interval_s, intervals, class,
 * start_s, mean, variance, outliers, measure_start_s, segments: [{start_s, end_s, mean,
 * variance}]}, times in seconds from the schedule's start; start_s, mean and variance null
 * without a steady state. Nothing is added for a series of fewer than 4 intervals with
 * values. -ENOMEM. */
int timeline_steady_state(const struct timeline *t, bool rate_metric, struct cJSON *metrics);
