/* host-stat.h: per-CPU busy time from /proc/stat (under a root prefix, "" for the host): the
 * cpuN lines' user+nice+system+irq+softirq+steal (guest time is inside user already; idle and
 * iowait are not busy). The kernel counts in USER_HZ ticks (10 ms at 100 Hz): a figure is at
 * best that fine per CPU and reading. Used to find CPU time on a run's CPUs that none of its
 * slices used. */
#pragma once

#include <stdint.h>

#include "basic/cpulist.h"

struct host_cpu_busy {
        struct cpulist cpus;            /* the CPUs that had a cpuN line */
        uint64_t busy_ns[CPULIST_MAX];  /* indexed by CPU number; 0 where no line */
};

/* Pure: the text of /proc/stat with ticks_per_s (sysconf(_SC_CLK_TCK)). -EBADMSG for a cpuN
 * line with fewer than the 8 first fields or a CPU number >= CPULIST_MAX, or no cpuN line at
 * all; *ret untouched on failure. */
int host_parse_stat_busy(const char *text, uint64_t ticks_per_s, struct host_cpu_busy *ret);
/* <root>/proc/stat through host_parse_stat_busy(). */
int host_read_stat_busy(const char *root, struct host_cpu_busy *ret);
