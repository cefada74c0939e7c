/* jvm-gclog.h: HotSpot's unified GC log as GC pauses and safepoints on the injector's clock.
 *
 * The daemon starts the JVM with
 *   -Xlog:gc*,safepoint:file=<run>/gc.log:uptimenanos,timenanos,level,tags
 * HotSpot prints decorators in its own fixed order whatever the order on the command line, so
 * every line reads
 *   [<timenanos>ns][<uptimenanos>ns][<level>][<tags, space padded>] <message>
 * timenanos is os::javaTimeNanos(), CLOCK_MONOTONIC on Linux (tests/jvm proves it on the JDK in
 * use), taken when the line is logged. Pause and safepoint lines are logged when the pause has
 * ENDED, so an event's start is timenanos - duration (checked against the gc,start lines of
 * real logs: within 0.05 ms either side, for every collector of JDK 17 that prints them).
 *
 * Events recognised (JDK 17):
 *   [gc]        GC(N) Pause <what> [<before>-><after>(<capacity>)] <ms>ms
 *               Serial, Parallel, G1 (Young/Full/Remark/Cleanup), Shenandoah (Init/Final Mark,
 *               Init/Final Update Refs, Final Roots, Degenerated GC, Full)
 *   [gc,phases] GC(N) Pause <what> <ms>ms             ZGC only (Mark Start, Mark End, Relocate Start)
 *   [safepoint] Safepoint "<VM operation>", ..., Total: <ns> ns     every collector
 * and, for jvm-flags, [gc] "Using <collector>" and [gc,init] "Version: ..." and
 * "CPUs: <total> total, <available> available" (the CPU count the JVM computed, container
 * limits and -XX:ActiveProcessorCount included). Concurrent phases are not pauses and are
 * not events. Anything else, and any line that does not parse, is counted and ignored. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/macro.h"

enum jvm_gc_event_kind {
        JVM_GC_PAUSE,           /* a stop-the-world pause as the collector reports it */
        JVM_GC_SAFEPOINT,       /* any VM operation at a safepoint, time to reach it included;
                                 * GC pauses are also safepoints, so the two kinds overlap */
};

#define JVM_GC_CAUSE_MAX 72

struct jvm_gc_event {
        int64_t start_ns;       /* CLOCK_MONOTONIC */
        int64_t duration_ns;
        enum jvm_gc_event_kind kind;
        int64_t gc_id;          /* the N of GC(N); -1 for safepoints */
        int64_t heap_before;    /* bytes; -1 when the line has none (ZGC, Shenandoah marks) */
        int64_t heap_after;
        int64_t heap_capacity;
        /* HotSpot's own words: "Pause Young (Normal) (G1 Evacuation Pause)",
         * "Pause Full (System.gc())", "Pause Mark Start"; for a safepoint the VM operation,
         * "G1CollectForAllocation". Cut if longer; printable ASCII only (others become '?'). */
        char cause[JVM_GC_CAUSE_MAX];
        const char *collector;  /* static: "SerialGC", "ParallelGC", "G1GC", "ZGC",
                                 * "ShenandoahGC", "EpsilonGC"; NULL if no "Using" line was seen */
};

/* What the log's init lines say about the JVM; consumed by jvm_info_apply_gclog(). */
struct jvm_gclog_info {
        const char *collector;  /* as in jvm_gc_event, NULL until seen */
        char version[64];       /* "17.0.15+6-Debian-1deb12u1"; "" until seen */
        bool has_cpus;
        int64_t cpus_total;     /* os::processor_count() */
        int64_t cpus_available; /* os::active_processor_count(): what ergonomics used */
};

struct jvm_gclog_parser {
        struct jvm_gclog_info info;
        uint64_t lines;         /* complete lines read */
        uint64_t skipped;       /* lines too long, with NUL, or without HotSpot's decorations */
};

void jvm_gclog_parser_init(struct jvm_gclog_parser *p);
/* One complete line without its newline. Returns 1 and fills *ret when the line is an event,
 * 0 otherwise (init lines update p->info). Never fails: a hostile line is only counted. */
int jvm_gclog_parse_line(struct jvm_gclog_parser *p, const char *line, size_t len, struct jvm_gc_event *ret);

/* Called for every event in file order; a negative return stops the parse and is returned. */
typedef int (*jvm_gc_event_handler_t)(const struct jvm_gc_event *ev, void *userdata);
/* Stream a whole log, line by line with a fixed buffer: constant memory whatever the size.
 * Returns 0, the handler's negative value, or -EIO. */
int jvm_gclog_parse_file(FILE *f, struct jvm_gclog_parser *p, jvm_gc_event_handler_t handler, void *userdata);

/* A whole log in memory, events in file order (ascending end time, not necessarily start). */
struct jvm_gclog {
        struct jvm_gclog_info info;
        struct jvm_gc_event *events;
        size_t n_events;
        uint64_t lines, skipped;
        bool truncated;         /* more than max_events events: the rest were dropped */
};

/* Load path with at most max_events events (the rest counted by truncated). -ENOENT etc from
 * fopen, -ENOMEM, -EIO. *ret untouched on failure. */
int jvm_gclog_load(const char *path, size_t max_events, struct jvm_gclog **ret);
/* The same over a log rotated into several files (-Xlog's filecount), given oldest first: one
 * stream of events in the files' order. Fails as jvm_gclog_load() on the first file that does. */
int jvm_gclog_load_files(const char *const *paths, size_t n, size_t max_events, struct jvm_gclog **ret);
/* The same over streams already open (the daemon's run-files opener), oldest first; they stay
 * the caller's. */
int jvm_gclog_load_streams(FILE *const *files, size_t n, size_t max_events, struct jvm_gclog **ret);
void jvm_gclog_free(struct jvm_gclog *log);
DEFINE_POINTER_CLEANUP(struct jvm_gclog, jvm_gclog_free)

/* The design's "gc" metrics over a window: events whose start lies in [from_ns, to_ns). */
struct jvm_gc_summary {
        uint64_t pauses;
        int64_t pause_total_ns;
        int64_t pause_max_ns;   /* meaningful only when pauses > 0 */
        int64_t pause_p99_ns;   /* nearest rank: the ceil(0.99 n)-th smallest; pauses > 0 */
        uint64_t safepoints;
        int64_t safepoint_total_ns;
};

/* -ENOMEM (the p99 needs a copy of the window's durations), -EINVAL if from_ns > to_ns. */
int jvm_gc_summarize(const struct jvm_gc_event *events, size_t n, int64_t from_ns, int64_t to_ns,
                     struct jvm_gc_summary *ret);

/* {"pauses":N,"pause_total_ms":x,"pause_max_ms":x|null,"pause_p99_ms":x|null,
 *  "safepoint_total_ms":x}: max and p99 of no pauses are null, not 0. */
cJSON *jvm_gc_summary_to_json(const struct jvm_gc_summary *s);
const char *jvm_gc_event_kind_to_string(enum jvm_gc_event_kind k);
