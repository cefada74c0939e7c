/* cell-stats.h: the figures of an experiment's cells as the report computes them, shared by the
 * report, the checks' verdict and the comparison across experiments, so that the three can never
 * disagree: per cell the succeeded runs' metrics flattened to dotted keys, their descriptive
 * statistics, and ratios with the report's 95% interval (log-welch, or Fieller's where a value is not above 0). */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/stats.h"

/* A cell's runs out of experiments_report_rows():
 * {"values": {"latency_us.scheduled.p99": [x, ...], ...}, "not_succeeded": [{id, iteration, state, reason}]}
 * over the succeeded runs only. */
cJSON *cell_gather(const cJSON *rows, const char *cell);
/* {total, succeeded, failed, cancelled, interrupted, pending} */
cJSON *cell_run_counts(const cJSON *rows, const char *cell);

/* Per metric of values, stats_summary_json(). */
cJSON *cell_metric_stats(const cJSON *values);
/* Per metric present on both sides, stats_ratio_json() of values / baseline with "method". */
cJSON *cell_metric_ratios(const cJSON *values, const cJSON *baseline);

/* Where a metric of cell_gather()'s values lives in a run's metrics, as an SQLite JSON path:
 * "$.latency_us.scheduled.p99" for latency_us.scheduled.p99, the list "$.capacity.per_sla" for
 * capacity.per_sla.p99_9_25ms; false when it does not fit in size. */
bool cell_metric_json_path(const char *metric, char *buf, size_t size);
/* cell_metric_describe() of the figures cell_gather() would give metric out of the runs whose
 * metrics hold, at cell_metric_json_path(), each item of at_path_list. */
bool cell_metric_describe_picked(const cJSON *at_path_list, const char *metric, struct stats_summary *ret);

/* The figures of one metric (an array of numbers) as doubles; false when absent or empty. */
bool cell_metric_describe(const cJSON *list, struct stats_summary *ret);
int cell_metric_ratio(const cJSON *list, const cJSON *baseline_list, struct stats_ratio *ret, const char **ret_method);
/* The steady-state classes of the cell's succeeded runs (metrics.steady_state.class):
 * {classes: {flat, warmup, slowdown, "no steady state": count}, runs, consistent: every run the
 * same class}; null when no run has one. */
cJSON *cell_steady_states(const cJSON *rows, const char *cell);
/* The warmup the cell's succeeded runs had (metrics.warmup_s, out of cell_gather()'s values):
 * {runs, min_s, max_s, mean_s} over the runs that have one and, with warmup_auto (the
 * definition's load.warmup_s "auto"), auto: {steady, not_steady}, how many runs'
 * metrics.warmup_auto.steady is true, false; null when no run has one. */
cJSON *cell_warmup(const cJSON *rows, const char *cell, const cJSON *values, bool warmup_auto);
