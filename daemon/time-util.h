/* time-util.h: the two clocks every record carries: CLOCK_MONOTONIC (the timeline's and the
 * JVM's clock) and CLOCK_REALTIME (for people), in nanoseconds. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

static inline int64_t clock_ns(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static inline int64_t now_mono_ns(void) {
        return clock_ns(CLOCK_MONOTONIC);
}
static inline int64_t now_wall_ns(void) {
        return clock_ns(CLOCK_REALTIME);
}
/* RFC 3339 UTC with milliseconds: "2026-11-30T02:40:39.123Z". */
void format_rfc3339(int64_t wall_ns, char *buf, size_t size);
