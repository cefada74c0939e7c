/* summary.h: the injector's JSON summary of a run (--summary FILE, or standard output). */
#pragma once

#include "injector/engine.h"
#include "injector/lag-attribution.h"
#include "injector/options.h"
#include "injector/timeline-stats.h"

/* Target below which the open loop counts as not keeping up: achieved rate under 99% of the
 * target, or lag p99 above 1 ms. */
#define SUMMARY_SATURATED_RATE_FRACTION 0.99
#define SUMMARY_SATURATED_LAG_P99_NS LATENCY_LATE_NS

/* The summary as a JSON text (malloc'd), or NULL when out of memory. late is the open loop's
 * attribution (NULL in the closed loop, where nothing is due before it is sent). */
char *summary_format(const struct inject_options *o, const struct engine_result *er,
                     const struct timeline_stats *st, const struct lag_attribution *late);
