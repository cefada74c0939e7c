/* collect.h: at the end of a run, its raw files become the design's "Run metrics": the
 * timeline (ingested into the store, latency figures of the measure phase), the SUT's last line
 * (ops_per_s of a SUT without load), the JVM's flags, GC log and counters, the slices' counters
 * (measure phase: the difference to a snapshot taken when measuring began), the injector's
 * summary. Figures that do not apply or could not be read are null, with a warning saying why. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup/cgroup.h"
#include "definition/definition.h"
#include "host/host-rapl.h"
#include "host/host-sysfs.h"
#include "daemon/collect-baseline.h"
#include "daemon/other-cpu.h"

struct cJSON;
struct db_conn;
struct host_freq_sampler;
struct samples;


/* Take the snapshot (best effort: a counter that cannot be read stays has_ false); rapl NULL
 * when the host has no energy counters. */
void collect_baseline_take(struct cgroup_run *cg, pid_t sut_pid, bool jvm, const struct host_rapl *rapl,
                           struct collect_baseline *ret);

struct collect_hosts;
struct ops_series;
struct profile_input;

struct collect_input {
        const struct definition *def;
        size_t cell;
        const char *dir;
        struct cgroup_run *cg;
        const char *sut_last_line;
        const struct ops_series *sut_ops;       /* its in-process iterations (no load); may be NULL */
        int64_t measure_start_ns;       /* CLOCK_MONOTONIC; the timeline's header wins when present */
        int64_t measure_end_ns;
        const struct collect_baseline *baseline;
        const struct collect_baseline *end;     /* at the end of measure, before the SUT stops */
        struct db_conn *db;
        const char *run_id;
        const struct host_freq_sampler *freq;   /* the run's CPUs sampled through measure, or NULL */
        const struct samples *series;           /* the 1 s readings, or NULL */
        const struct host_rapl *rapl;           /* the host's energy counters, or NULL */
        const atomic_bool *cancel;              /* set: stop between phases with -ECANCELED; or NULL */
        const struct profile_input *profile;    /* profile.cpu: metrics.profile and profile.folded; or NULL */
        const struct collect_hosts *hosts;      /* load.hosts: their timelines to fetch and merge first; or NULL */
};

/* *ret_metrics: the metrics object. Fails (-errno, why filled) only when the run's result
 * itself is missing: no timeline for a run with load, no ops_per_s line for a SUT without;
 * -ENOTCONN when the load ran but no measured request got an answer, or a load host's timeline
 * did not come (a failed load);
 * -ECANCELED when in->cancel was set (what was stored so far is whole: each store is one
 * transaction). */
int collect_run(const struct collect_input *in, struct cJSON **ret_metrics, struct cJSON *warnings, char *why,
                size_t why_size);
