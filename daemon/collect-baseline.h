/* collect-baseline.h: the counters a run's figures are differences of, read when its measure
 * phase starts and when it ends (daemon/collect.c takes them; daemon/energy.c reads them too):
 * their own file, so that energy.c does not include the collection it serves. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup.h"
#include "host/host-rapl.h"
#include "host/host-sysfs.h"
#include "daemon/other-cpu.h"

/* Counters at the start and at the end of the measure phase: figures are their differences, so
 * neither the JVM's start nor its shutdown is counted. */
struct collect_baseline {
        bool has_sut, has_load;
        struct slice_stats sut, load;
        bool has_compile;
        int64_t compile_ns;
        int64_t t_ns;                   /* when it was taken (CLOCK_MONOTONIC) */
        bool has_energy;
        uint64_t energy_uj[HOST_RAPL_DOMAINS_MAX];
        struct other_cpu_reading cpu;   /* busy time and the slices' usage per CPU */
        bool has_meminfo;               /* the host's swap in use */
        struct host_meminfo meminfo;
};
