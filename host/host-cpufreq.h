/* host-cpufreq.h: per-CPU frequency scaling (sysfs cpufreq) under a root prefix: a one-off
 * reading for GET /v1/host and preflight, boost/turbo state, and the sampler that tracks the
 * run's CPUs every 250 ms during warmup and measure without allocating.
 *
 * Many VMs expose no cpufreq at all (no /sys/devices/system/cpu/cpuN/cpufreq): then governor
 * and frequencies are unknown, reported as null with a reason, never guessed. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/cpulist.h"

/* The kernel's names are at most 15 characters (CPUFREQ_NAME_LEN). */
#define HOST_CPUFREQ_NAME_MAX 32
#define HOST_REASON_MAX 160

struct host_cpufreq {
        char governor[HOST_CPUFREQ_NAME_MAX];   /* "" when unknown */
        char driver[HOST_CPUFREQ_NAME_MAX];     /* "" when unknown */
        bool have_cur, have_min, have_max;
        double cur_mhz;                         /* scaling_cur_freq */
        double min_mhz, max_mhz;                /* the policy's limits: scaling_{min,max}_freq */
        char reason[HOST_REASON_MAX];           /* why something is unknown; "" when all was read */
};

/* Never fails for a missing or unreadable cpufreq (that is recorded in reason); only for a
 * root path too long (-ENAMETOOLONG). */
int host_cpufreq_read(const char *root, unsigned cpu, struct host_cpufreq *ret);

struct host_boost {
        bool have;
        bool enabled;                   /* turbo/boost frequencies allowed */
        const char *source;             /* "cpufreq/boost" or "intel_pstate/no_turbo" */
        char reason[HOST_REASON_MAX];   /* when !have */
};
int host_boost_read(const char *root, struct host_boost *ret);

/* What the sampler knows about one CPU; also the evidence host-warnings.h reads, so tests can
 * fill these by hand. */
struct host_cpu_freq {
        unsigned cpu;
        char governor[HOST_CPUFREQ_NAME_MAX];   /* at the first sample; "" = unknown */
        bool governor_changed;                  /* a later sample saw another governor ... */
        char governor_last[HOST_CPUFREQ_NAME_MAX]; /* ... which is this one */
        uint64_t samples;                       /* frequency readings; 0 = frequency unknown */
        double mean_mhz, min_mhz, max_mhz;
        uint64_t errors;                        /* readings that failed after setup */
        char reason[HOST_REASON_MAX];           /* why governor or frequency is unknown */
};

struct host_freq_sampler;

/* Opens scaling_cur_freq and scaling_governor of every CPU in cpus once (CPUs without cpufreq
 * get no fds and a reason). -EINVAL for an empty set; -ENOMEM, -EMFILE, ... on setup failure
 * with nothing left open. */
int host_freq_sampler_new(const char *root, const struct cpulist *cpus, struct host_freq_sampler **ret);
struct host_freq_sampler *host_freq_sampler_free(struct host_freq_sampler *s);
/* One reading of every CPU: pread() only, no allocation. A failed reading counts in errors. */
void host_freq_sampler_sample(struct host_freq_sampler *s);
/* Forget everything sampled so far, e.g. when warmup ends, so figures cover measure only. */
void host_freq_sampler_reset(struct host_freq_sampler *s);
const struct host_cpu_freq *host_freq_sampler_cpus(const struct host_freq_sampler *s, size_t *ret_n);

/* The design's run metrics "cpu" object:
 *   {"governor": {"8": "powersave" | null}, "freq_mhz": {"8": {"mean":..,"min":..,"max":..} | null}}
 * MHz rounded to 0.1. */
cJSON *host_cpu_freq_json(const struct host_cpu_freq *cpus, size_t n);
