/* time-util.h: the two clocks every record carries: CLOCK_MONOTONIC (the timeline's and the
 * JVM's clock, which HotSpot's gc.log `timenanos` uses too, so GC pauses line up with requests
 * without translation) and CLOCK_REALTIME (for people), in nanoseconds, and the unit constants
 * every layer spells with. Reading a clock is a vDSO call, not a syscall: fine per request. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC INT64_C(1000000000)
#define NSEC_PER_MSEC INT64_C(1000000)
#define NSEC_PER_USEC INT64_C(1000)
#define USEC_PER_SEC INT64_C(1000000)

static inline double seconds_from_ns(int64_t ns) {
        return (double) ns / (double) NSEC_PER_SEC;
}

static inline struct timespec timespec_from_ns(int64_t ns) {
        if (ns < 0)
                ns = 0;
        return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

static inline int64_t clock_ns(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (int64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}
static inline int64_t now_mono_ns(void) {
        return clock_ns(CLOCK_MONOTONIC);
}
static inline int64_t now_wall_ns(void) {
        return clock_ns(CLOCK_REALTIME);
}
/* RFC 3339 UTC with milliseconds: "2026-11-30T02:40:39.123Z". */
void format_rfc3339(int64_t wall_ns, char *buf, size_t size);
