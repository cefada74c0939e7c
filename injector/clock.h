/* clock.h: the injector's one clock. Every timeline field is CLOCK_MONOTONIC in ns (now_mono_ns()),
 * the clock HotSpot's gc.log `timenanos` uses too, so GC pauses line up with requests without
 * translation. Reading it is a vDSO call, not a syscall, so reading it per request is fine. */
#pragma once

#include <stdint.h>
#include <time.h>

#include "time-util.h"   /* now_mono_ns() */

#define NSEC_PER_SEC INT64_C(1000000000)
#define NSEC_PER_MSEC INT64_C(1000000)
#define NSEC_PER_USEC INT64_C(1000)

static inline struct timespec timespec_from_ns(int64_t ns) {
        if (ns < 0)
                ns = 0;
        return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}
