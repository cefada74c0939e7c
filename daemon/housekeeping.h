/* housekeeping.h: the CPUs the daemon's own threads run on. A dashboard polling during a run
 * costs the daemon CPU time; on the run's CPUs it would be measured as the SUT's noise. Every
 * thread of the daemon (the event loop, libmicrohttpd's workers, any helper thread) is confined
 * to CPUs no queued or running run uses, or to --housekeeping-cpus. */
#pragma once

#include <stdbool.h>

#include "basic/cpulist.h"

/* The default: online minus used; all of online (and *ret_none_left) when nothing is left. */
void housekeeping_choose(const struct cpulist *online, const struct cpulist *used, struct cpulist *ret,
                         bool *ret_none_left);
/* sched_setaffinity() on every thread of this process (/proc/self/task). Threads made later
 * inherit the mask of the thread that makes them. 0, or the first error other than a thread
 * that has just exited. */
int housekeeping_apply(const struct cpulist *cpus);
