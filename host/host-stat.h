/* host-stat.h: per-CPU idle time from /proc/stat (under a root prefix, "" for the host): the
 * cpuN lines' idle+iowait. Why idle and not the busy fields: with tick-based CPU accounting
 * (CONFIG_TICK_CPU_ACCOUNTING, the common kernel build) user, system, irq, softirq and steal are
 * sampled, a whole tick (4 ms at HZ=250) charged to whatever runs when the tick fires, so work
 * in short bursts at a rate in step with the tick (1500 requests/s is 6 per 4 ms tick) reads as
 * nearly all busy or nearly all idle depending on its phase; on a tickless kernel (NO_HZ, since
 * Linux 3.1) idle and iowait are measured at each entry to and exit from idle instead. Busy time
 * is then the time between two readings less the idle time between them. /proc/stat prints in
 * USER_HZ ticks (10 ms at 100 Hz): a figure is at best that fine per CPU and reading. Used to
 * find CPU time on a run's CPUs that none of its slices used. */
#pragma once

#include <stdint.h>

#include "basic/cpulist.h"

struct host_cpu_idle {
        struct cpulist cpus;            /* the CPUs that had a cpuN line */
        uint64_t idle_ns[CPULIST_MAX];  /* idle + iowait, indexed by CPU number; 0 where no line */
};

/* Pure: the text of /proc/stat with ticks_per_s (sysconf(_SC_CLK_TCK)). -EBADMSG for a cpuN
 * line with fewer than the 8 first fields or a CPU number >= CPULIST_MAX, or no cpuN line at
 * all; *ret untouched on failure. */
int host_parse_stat_idle(const char *text, uint64_t ticks_per_s, struct host_cpu_idle *ret);
/* <root>/proc/stat through host_parse_stat_idle(). */
int host_read_stat_idle(const char *root, struct host_cpu_idle *ret);
