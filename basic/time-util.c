/* time-util.c: formatting wall-clock times for people. */
#include "basic/time-util.h"

#include <stdio.h>

void format_rfc3339(int64_t wall_ns, char *buf, size_t size) {
        time_t secs = (time_t) (wall_ns / NSEC_PER_SEC);
        struct tm tm;
        gmtime_r(&secs, &tm);
        char base[32];
        strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf, size, "%s.%03dZ", base, (int) ((wall_ns / NSEC_PER_MSEC) % 1000));
}
