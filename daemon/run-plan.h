/* run-plan.h: what a run hands the kernel and exec, built from its definition and cell alone:
 * the slices' limits, the CPUs the run uses, the SUT's argv and environment, the load's argv and
 * environment, and its deadline. Pure (no I/O, no run state), so that the one place a rule lives
 * is the one place a unit test (tests/daemon/test-run-plan.c) looks at. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "basic/cpulist.h"
#include "cgroup/cgroup.h"
#include "definition/definition.h"

/* A JVM's GC log is rotated (-Xlog's filecount and filesize) so that it cannot grow without
 * bound: gc.log and at most RUN_GCLOG_FILES older pieces gc.log.N of RUN_GCLOG_FILE_MIB each. */
#define RUN_GCLOG_FILES 5
#define RUN_GCLOG_FILE_MIB 20

/* The two slices of the cell: the SUT's with the cell's cpuset, quota, burst and memory; the
 * load's with load.cpus only. Both with a pids bound, so a fork bomb stays in its slice. */
void run_plan_limits(const struct definition *d, size_t cell, struct slice_limits *sut,
                     struct slice_limits *load);

/* The CPUs a run uses, for its preflight checks, its sampling and --max-parallel's
 * disjointness: a slice without a cpuset runs on every online CPU. */
struct run_cpus {
        struct cpulist sut;     /* the cell's cpus, else online */
        struct cpulist load;    /* load.cpus, else online; empty for a run without load */
        struct cpulist all;     /* sut | load */
};
void run_plan_cpus(const struct definition *d, size_t cell, const struct cpulist *online,
                   struct run_cpus *ret);

/* The cell's argv (definition_cell_argv()) with, for a JVM, the design's flags right after
 * argv[0] and before the cell's jvm_args, so that a cell can still override them: GC and
 * safepoint log and hsperfdata into dir, PrintFlagsFinal on stdout. NULL-terminated, free
 * with definition_strv_free(); *ret untouched on failure. */
int run_plan_sut_argv(const struct definition *d, size_t cell, const char *dir, char ***ret);
/* The cell's environment (definition_cell_env()) plus PATH, HOME=dir and LANG where it does not
 * set them. */
int run_plan_sut_env(const struct definition *d, size_t cell, const char *dir, char ***ret);
/* The load's command: slicelab-inject (injector_path) against load.target with the definition's
 * mode, rate, phases, timeline.bin and summary.json in dir; or the external command as given.
 * -EINVAL for a definition without load. */
int run_plan_load_argv(const struct definition *d, const char *dir, const char *injector_path,
                       char ***ret);
/* A load run for another host (issue 25): the injector as for a run, its schedule starting at
 * start_at_ns on this host's CLOCK_MONOTONIC, shifted by phase_ns (uniform), seeded by seed
 * (Poisson). -EINVAL unless the load is the injector in mode rate or max. */
struct run_plan_peer {
        int64_t start_at_ns;
        int64_t phase_ns;
        uint64_t seed;
};
int run_plan_peer_load_argv(const struct definition *d, const char *dir, const char *injector_path,
                            const struct run_plan_peer *peer, char ***ret);
/* A capacity step's injector: slicelab-inject at rate with load.step's phases, writing
 * timeline-step-N.bin and summary-step-N.json in dir. -EINVAL unless load.mode is capacity. */
int run_plan_step_argv(const struct definition *d, const char *dir, const char *injector_path, unsigned step,
                       double rate, char ***ret);
/* PATH and LANG: the load gets nothing of the definition's environment. */
int run_plan_load_env(char ***ret);

/* How long the load may run before the run fails with "timeout", counted from its start (or
 * from readiness for a run without load): the injector keeps its schedule, so its phases plus
 * a grace (for a capacity search: each step's, re-armed per step); an external tool its
 * load.timeout_s; a SUT without load a day. */
uint64_t run_plan_deadline_s(const struct definition *d);
