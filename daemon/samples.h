/* samples.h: a run's 1 s series (GET /v1/runs/{id}/samples): the slices' counters, the JVM's
 * compile time and the CPUs' frequency read live every second from readiness to the end of
 * measure, turned at collect into per-interval figures together with the timeline (requests and
 * p99 by scheduled time) and the GC log (pause time), and stored. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "basic/cpulist.h"
#include "host/host-rapl.h"

#define SAMPLES_MAX 86400       /* a day of seconds */

struct sample_point {
        int64_t t_ns;           /* CLOCK_MONOTONIC */
        bool has_sut, has_load, has_compile, has_freq;
        struct slice_stats sut, load;
        int64_t compile_ns;
        double freq_mhz;        /* mean over the run's CPUs */
        bool has_energy;
        uint64_t energy_uj[HOST_RAPL_DOMAINS_MAX]; /* the RAPL counters, as read (they wrap) */
};

struct samples {
        struct sample_point *points;
        size_t n, cap;
        const struct host_rapl *rapl;   /* NULL: the host exposes no energy counters */
};

/* One reading now (no allocation once the array has room; the array grows by doubling). */
void samples_take(struct samples *s, struct cgroup_run *cg, pid_t sut_pid, bool jvm, const struct cpulist *cpus);
void samples_done(struct samples *s);

struct timeline;
struct jvm_gclog;
struct db_conn;
/* Intervals between consecutive points, relative to measure_start_ns, stored for the run.
 * t (timeline) and gc may be NULL: their series are then null. */
int samples_store(struct db_conn *c, const char *run_id, const struct samples *s, int64_t measure_start_ns,
                  const struct timeline *t, const struct jvm_gclog *gc);
