/* latency.h: the latency figures of a timeline's measure phase, defined once for the daemon's run
 * metrics and the injector's summary, so the two report the same numbers to the nanosecond.
 *
 * Which measured (non-warmup) requests count:
 * - from scheduled (done - scheduled, coordinated-omission corrected) and from submit
 *   (done - submit): those that got an answer (status != 0); an error has no response time.
 * - lag (submit - scheduled): those that were sent (error != not_sent), answered or not, since
 *   the injector's own delay does not depend on what became of the request.
 * Percentiles are exact nearest ranks (stats_nearest_rank()). They are found in a few passes over
 * the records, in blocks, never holding them all: a first pass counts, then each pass narrows
 * every wanted rank to 1/4096 of its value range until that range is a single value. Memory does
 * not grow with the number of records, which the injector needs, as it reads its own timeline
 * back inside the load's memory limit. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/timeline-format.h"

enum latency_kind {
        LATENCY_SCHEDULED,      /* done - scheduled */
        LATENCY_SUBMIT,         /* done - submit */
        LATENCY_LAG,            /* submit - scheduled: the injector's own delay */
        _LATENCY_MAX,
};

enum percentile {
        PCT_P50, PCT_P90, PCT_P99, PCT_P999, PCT_P9999, PCT_MAX, _PCT_MAX,
};

extern const char *const percentile_names[_PCT_MAX];      /* "p50" ... "max" */
extern const char *const latency_kind_names[_LATENCY_MAX]; /* "scheduled", "submit", "lag" */

/* Nearest rank (1-based) of a percentile among n values: ceil(n * p), at least 1. */
uint64_t percentile_rank(enum percentile p, uint64_t n);

/* The rule above: whether r counts for latency k, and its value in ns (*ret untouched when it
 * does not count; a difference that does not fit in int64 does not count). */
bool latency_of(const struct timeline_record *r, enum latency_kind k, int64_t *ret);

/* Where the records are: in memory (records != NULL), or count records at offset of fd. */
struct timeline_source {
        const struct timeline_record *records;
        int fd;
        off_t offset;
        uint64_t count;
};

/* Call fn for every record in order. -EIO when the file holds fewer than count records. */
int timeline_source_for_each(const struct timeline_source *src,
                             void (*fn)(const struct timeline_record *, void *), void *userdata);

/* A sent request is late when its lag is above this: the injector's accuracy goal (lag p99
 * within 1 ms), which "saturated" holds a run to. */
#define LATENCY_LATE_NS 1000000

struct latency_stats {
        uint64_t n[_LATENCY_MAX];               /* records that count, per kind */
        int64_t pct[_LATENCY_MAX][_PCT_MAX];    /* ns; valid when n[kind] > 0 */
};

/* *ret untouched on failure (-ENOMEM, -EIO, or a read error). */
int latency_stats_compute(const struct timeline_source *src, struct latency_stats *ret);
