/* timeline-stats.h: the figures of a run, computed from its timeline file after the run: counts
 * by outcome and exact nearest-rank percentiles of the three latencies, over the measured
 * (non-warmup) records. The file is read a few times in blocks rather than held in memory, so
 * memory does not grow with the number of requests: a first pass counts, then each pass narrows
 * every wanted rank to 1/4096 of its value range until the range is a single value. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "basic/timeline-format.h"

enum latency_kind {
        LATENCY_SCHEDULED,      /* done - scheduled: coordinated-omission corrected */
        LATENCY_SUBMIT,         /* done - submit */
        LATENCY_LAG,            /* submit - scheduled: the injector's own delay */
        _LATENCY_MAX,
};

enum percentile {
        PCT_P50, PCT_P90, PCT_P99, PCT_P999, PCT_P9999, PCT_MAX, _PCT_MAX,
};

extern const char *const percentile_names[_PCT_MAX];      /* "p50" ... "max" */
extern const char *const latency_kind_names[_LATENCY_MAX]; /* "scheduled", "submit", "lag" */

struct timeline_stats {
        uint64_t records;               /* all of them, warmup included */
        uint64_t warmup;
        uint64_t measured;
        uint64_t ok;                    /* measured answers with a 2xx status */
        uint64_t sent;                  /* measured requests that were sent (not not_sent) */
        uint64_t http_errors;           /* measured answers with a status outside 2xx */
        uint64_t errors[_TIMELINE_ERR_MAX]; /* measured transport errors by kind (status 0) */
        uint64_t status_class[10];      /* measured answers by status / 100 */
        /* Latencies count the measured requests that got an answer (status != 0); lag counts
         * the measured requests that were sent. Percentiles in ns, valid when n[kind] > 0. */
        uint64_t n[_LATENCY_MAX];
        int64_t pct[_LATENCY_MAX][_PCT_MAX];
};

/* Read count records at offset of fd (after the header). */
int timeline_stats_compute(int fd, off_t offset, uint64_t count, struct timeline_stats *ret);

/* Nearest rank (1-based) of a percentile among n values: ceil(n * p), at least 1. */
uint64_t percentile_rank(enum percentile p, uint64_t n);
