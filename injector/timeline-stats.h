/* timeline-stats.h: the figures of a run, computed from its timeline file after the run: counts
 * by outcome over the measured (non-warmup) records, and the latency percentiles as basic/latency.h
 * defines them (the same the daemon reports). The file is read in blocks, a few times, rather
 * than held in memory. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "basic/latency.h"
#include "basic/timeline-format.h"

struct timeline_stats {
        uint64_t records;               /* all of them, warmup included */
        uint64_t warmup;
        uint64_t measured;
        uint64_t ok;                    /* measured answers with a 2xx status */
        uint64_t sent;                  /* measured requests that were sent (not not_sent) */
        uint64_t http_errors;           /* measured answers with a status outside 2xx */
        uint64_t errors[_TIMELINE_ERR_MAX]; /* measured transport errors by kind (status 0) */
        uint64_t status_class[10];      /* measured answers by status / 100 */
        struct latency_stats latency;
};

/* Read count records at offset of fd (after the header). */
int timeline_stats_compute(int fd, off_t offset, uint64_t count, struct timeline_stats *ret);
