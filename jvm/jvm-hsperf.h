/* jvm-hsperf.h: the JVM's own counters (JIT compile time, GC time) from its hsperfdata file.
 *
 * HotSpot keeps its performance counters in a shared-memory file,
 * /tmp/hsperfdata_<user>/<pid> as seen from the JVM (so the daemon looks under
 * /proc/<pid>/root/tmp with the JVM's innermost pid), in a public format (the one jstat reads):
 *   prologue, 32 bytes: magic CA FE C0 C0, byte order (0 big, 1 little), major, minor,
 *     accessible (1 once initialised), used, overflow, mod_time_stamp (8), entry_offset,
 *     num_entries; all in the stated byte order after the magic
 *   entries, 20-byte header each: entry_length, name_offset, vector_length (0 = scalar),
 *     data_type ('J' = int64, 'B' = bytes), flags, data_units, data_variability, data_offset;
 *     name and data at those offsets from the entry start.
 * Counters used: java.ci.totalTime (sun.ci.totalTime on old JDKs), sun.os.hrt.frequency,
 * sun.rt.safepointTime, sun.gc.collector.<N>.{time,invocations,name}. Times are in ticks of
 * sun.os.hrt.frequency (1e9 on Linux).
 *
 * An fd opened while the JVM runs keeps reading the final counters after it exits (the JVM
 * unlinks the file but the shared pages stay), so open it once the JVM is up, sample it every
 * second, and read it once more after the exit for the totals. A file saved at exit with
 * -XX:+PerfDataSaveToFile -XX:PerfDataSaveFile=<path> reads the same way (jvm_hsperf_open_path).
 * The file belongs to the system under test: every offset is bounds-checked, the file must be
 * a regular file owned by the JVM's user, and its size is capped. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JVM_HSPERF_MAX_SIZE (8u << 20)
#define JVM_HSPERF_MAX_COLLECTORS 4

struct jvm_hsperf_collector {
        bool has_time, has_invocations;
        int64_t time_ticks;
        int64_t invocations;
        char name[48];          /* "G1 incremental collections"; "" if absent */
};

struct jvm_hsperf_sample {
        int64_t sampled_ns;     /* CLOCK_MONOTONIC when read */
        bool has_frequency;
        int64_t frequency;      /* ticks per second, > 0 */
        bool has_compile_ticks;
        int64_t compile_ticks;  /* total JIT compile time */
        bool has_safepoint_ticks;
        int64_t safepoint_ticks;
        unsigned n_collectors;  /* collectors[0..n) filled, index = the N of the counter names */
        struct jvm_hsperf_collector collectors[JVM_HSPERF_MAX_COLLECTORS];
};

/* Parse an in-memory copy. -EBADMSG for anything malformed, -EAGAIN if the JVM has not
 * finished initialising the file (accessible = 0), -EPROTONOSUPPORT for a major version other
 * than 2. Counters that are absent are has_* false. *ret untouched on failure. */
int jvm_hsperf_parse(const void *buf, size_t size, struct jvm_hsperf_sample *ret);

/* Find and open the hsperfdata file of a running JVM. -ENOENT when the JVM has none (yet, or
 * it runs with -XX:-UsePerfData), -ESRCH when pid is gone. */
int jvm_hsperf_open(pid_t pid, int *ret_fd);
/* Open a saved file (-XX:PerfDataSaveFile). Symlinks and non-regular files are refused. */
int jvm_hsperf_open_path(const char *path, int *ret_fd);
/* Read and parse the whole file from fd (pread: the offset is not used). */
int jvm_hsperf_read(int fd, struct jvm_hsperf_sample *ret);
/* open + read + close. */
int jvm_hsperf_sample_pid(pid_t pid, struct jvm_hsperf_sample *ret);

/* ticks -> ns with the sample's frequency; -ENODATA without one, -ERANGE for negative ticks or
 * more than ~292 years. */
int jvm_hsperf_ticks_to_ns(const struct jvm_hsperf_sample *s, int64_t ticks, int64_t *ret);
/* Total JIT compile time; -ENODATA if the counter or the frequency is absent. */
int jvm_hsperf_compile_time_ns(const struct jvm_hsperf_sample *s, int64_t *ret);
/* Sum of every collector's time (stop-the-world time for Serial, Parallel and G1); -ENODATA
 * if no collector has a time counter. */
int jvm_hsperf_gc_time_ns(const struct jvm_hsperf_sample *s, int64_t *ret);
