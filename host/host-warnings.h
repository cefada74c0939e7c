/* host-warnings.h: warnings about the host that can spoil a measurement, each a sentence with
 * its evidence, derived from what the frequency sampler and /proc/meminfo recorded. Pure
 * functions of their inputs, so fixtures test them.
 *
 * Each appends zero or more strings to the cJSON array `warnings` and returns how many it
 * appended, or a negative errno when the CPUs cannot be named (a sentence without them would
 * lose its evidence). */
#pragma once

#include <cjson/cJSON.h>
#include <stddef.h>

#include "host/host-cpufreq.h"
#include "host/host-sysfs.h"

/* Frequencies "differ" or "move" when (higher - lower) / lower exceeds this. */
#define HOST_FREQ_TOLERANCE 0.10

/* Governor other than performance on a measured CPU ("governor is powersave on cpus 8-15"),
 * and a governor that changed while sampling. */
int host_warn_governor(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings);
/* CPUs whose governor and frequency are unknown, with the reason. */
int host_warn_cpufreq_unknown(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings);
/* Mean frequencies differing by more than the tolerance between the CPUs. */
int host_warn_freq_spread(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings);
/* A CPU whose frequency moved by more than the tolerance (max vs min) while sampled. */
int host_warn_freq_moved(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings);
/* Swap in use (SwapTotal - SwapFree > 0). */
int host_warn_swap(const struct host_meminfo *m, cJSON *warnings);

/* All of the CPU ones above, in that order: what the daemon calls after measure. */
int host_warn_cpus(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings);
