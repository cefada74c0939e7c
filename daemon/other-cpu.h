/* other-cpu.h: CPU time on a run's CPUs that none of its slices used during the measure phase
 * (other work on the machine: other processes, the daemon's own threads, kernel work such as
 * interrupts and softirqs, a hypervisor's steal): per CPU busy time between the measure's start
 * and end, the time between two readings of /proc/stat less its idle and iowait time between
 * them (measured at idle entry and exit, where the busy fields are tick samples that alias with
 * a request rate in step with the tick: host-stat.h), less the SUT and load slices' usage on
 * those CPUs. The CPUs are the
 * SUT slice's effective cpuset (the cell's CPUs). On cgroup v1 the slices' usage is per CPU
 * (exact to the tick); v2 keeps only a total per slice: the SUT's counts whole (it runs only on
 * those CPUs), the load's in the share of its CPUs that are the cell's (an estimate when they
 * overlap in part). Run metrics cpu.other_busy_s and cpu.other_busy_share. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup.h"
#include "host/host-stat.h"

struct other_cpu_reading {
        bool has_idle, has_sut, has_load;
        int64_t idle_t_ns;              /* CLOCK_MONOTONIC when /proc/stat was read */
        struct host_cpu_idle idle;
        struct slice_cpu_usage sut, load;
};

/* Reads /proc/stat and both slices' usage (best effort: what cannot be read stays has_ false). */
void other_cpu_take(struct cgroup_run *cg, struct other_cpu_reading *ret);

struct other_cpu {
        unsigned n_cpus;
        double busy_s;          /* busy time on the cell's CPUs (time less idle time) */
        double slices_s;        /* the slices' time on them */
        double other_s;         /* busy_s - slices_s, at least 0 */
        double share;           /* other_s over the cell's capacity (n_cpus x elapsed) */
        bool per_cpu;           /* the slices' time was per CPU (v1), not attributed by cpuset (v2) */
};

/* Pure: the figures between two readings elapsed_ns apart. -ENODATA (why set) when a reading
 * lacks what is needed; *ret untouched on failure. A run without load passes readings whose
 * has_load is false in both. */
int other_cpu_compute(const struct other_cpu_reading *start, const struct other_cpu_reading *end, int64_t elapsed_ns,
                      bool with_load, struct other_cpu *ret, const char **why);
