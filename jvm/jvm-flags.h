/* jvm-flags.h: the JVM's ergonomics as it decided them in the run's slice: the design's "jvm"
 * run metric.
 *
 * Sources, both written by the JVM the daemon starts with the design's flags:
 *  - -XX:+PrintFlagsFinal: the "[Global flags]" table at the top of the SUT's stdout, one line
 *    per flag: "     intx CICompilerCount        = 3        {product} {ergonomic}".
 *    CICompilerCount, ParallelGCThreads, ConcGCThreads, MaxHeapSize, UseContainerSupport and
 *    the collector (the Use*GC flag that is true) come from here.
 *  - the GC log (jvm-gclog.h): "[gc,init] CPUs: 2 total, 1 available" and "Version: ...".
 *    PrintFlagsFinal shows the *flag* ActiveProcessorCount (-1 unless set on the command line),
 *    not the count the JVM computed; the gc,init line prints os::active_processor_count(), the
 *    count every ergonomic decision used. Checked with OpenJDK 17.0.15 under a v1 cpu cgroup
 *    with cfs_quota_us = cfs_period_us on a 2-CPU host: "2 total, 1 available" (and SerialGC,
 *    ParallelGCThreads 0, ConcGCThreads 0: one CPU is not a server-class machine); with
 *    -XX:-UseContainerSupport "2 total, 2 available", ParallelGCThreads 2; with
 *    -XX:ActiveProcessorCount=3 "3 available". It is printed for every collector, also when
 *    container support is off (unlike -Xlog:os+container, which then logs nothing), so the
 *    design's flags are enough and the daemon adds no other logging flag for ergonomics.
 *
 * JVM flags the daemon should add for a `jvm: true` SUT (argv[1..], before the cell's jvm_args
 * so a cell can still override them):
 *   -XX:+PrintFlagsFinal
 *   -Xlog:gc*,safepoint:file=<run>/gc.log:uptimenanos,timenanos,level,tags:filecount=0
 *      filecount=0: HotSpot's file output otherwise rotates at 20 MB over 5 files and drops
 *      the oldest pauses of a long, busy run (the design's flag lacks it: proposed change).
 *   -XX:+PerfDataSaveToFile -XX:PerfDataSaveFile=<run>/hsperfdata
 *      optional: the JVM's counters (JIT and GC time) survive the exit of a JVM nobody sampled
 *      at the end; jvm-hsperf.h reads this file as it reads the live one. Not -XX:-UsePerfData
 *      nor -XX:+PerfDisableSharedMem: they remove the live counters.
 *
 * Unknown or absent values are null (has_* false), never an error: a JVM without the table or
 * the log still gives whatever the other source has. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "jvm/jvm-gclog.h"

struct jvm_info {
        bool has_ci_compiler_count;
        int64_t ci_compiler_count;
        bool has_parallel_gc_threads;
        int64_t parallel_gc_threads;     /* 0 is real: SerialGC uses none */
        bool has_conc_gc_threads;
        int64_t conc_gc_threads;
        bool has_active_processor_count; /* computed by the JVM, from the GC log */
        int64_t active_processor_count;
        bool has_cpus_total;             /* os::processor_count(), from the GC log */
        int64_t cpus_total;
        bool has_max_heap_size;
        int64_t max_heap_size;           /* bytes */
        bool has_use_container_support;
        bool use_container_support;
        const char *gc;                  /* "SerialGC", "ParallelGC", "G1GC", "ZGC", "ShenandoahGC",
                                          * "EpsilonGC" (static); NULL = unknown */
        char java_version[64];           /* "17.0.15+6-Debian-1deb12u1"; "" = unknown */
        bool flags_table_found;          /* a [Global flags] table was seen */
};

void jvm_info_init(struct jvm_info *info);

/* Read the first "[Global flags]" table of f (the SUT's stdout; the JVM prints it before main()
 * runs, so the application's own output cannot come first) and fill the flag fields of *info.
 * Lines before the table are skipped, the table ends at its first line that is not a flag.
 * Returns 0 whether or not a table was found, -EIO on a read error (*info untouched). */
int jvm_flags_parse_file(FILE *f, struct jvm_info *info);
/* Same, from a path: -ENOENT etc. when it cannot be opened. */
int jvm_flags_parse_path(const char *path, struct jvm_info *info);

/* Take ActiveProcessorCount, the CPU total, the version, and (if PrintFlagsFinal had none) the
 * collector from a parsed GC log. */
void jvm_info_apply_gclog(struct jvm_info *info, const struct jvm_gclog_info *gc);

/* The design's "jvm" object plus "java_version":
 * {"CICompilerCount":3,"ParallelGCThreads":4,"ConcGCThreads":1,"ActiveProcessorCount":4,
 *  "MaxHeapSize":1073741824,"UseContainerSupport":true,"gc":"ParallelGC","java_version":"..."}
 * with null for every unknown value. */
cJSON *jvm_info_to_json(const struct jvm_info *info);
