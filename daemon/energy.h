/* energy.h: a run's energy over its measure phase from the RAPL counters read at the measure's
 * start, every second of the series and at its end (so a counter that wraps is caught between
 * two readings a second apart): run metrics "energy". */
#pragma once

#include <cjson/cJSON.h>

#include "daemon/collect-baseline.h"
#include "daemon/samples.h"

/* {"joules": J, "joules_per_request": J | null, "domains": {"package-0": J, "core": J, ...}}:
 * joules is the sum of the package domains (their core/uncore/dram parts are inside them);
 * per request over `requests` (<= 0: null). NULL when rapl is NULL or the start or end reading
 * is missing. series may be NULL. */
cJSON *energy_measure_json(const struct host_rapl *rapl, const struct collect_baseline *start,
                           const struct samples *series, const struct collect_baseline *end, double requests);
