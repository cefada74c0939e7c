/* timeline.h: a run's per-request timeline (timeline-format.h) loaded, checked and sorted by
 * scheduled time, and the figures of its measure phase: counts, and the latency percentiles
 * (from scheduled, from submit, lag) as basic/latency.h defines them, the injector's too. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "basic/timeline-format.h"

#define TIMELINE_MAX_RECORDS (UINT64_C(200) * 1000 * 1000)

struct timeline {
        struct timeline_header header;
        struct timeline_record *records;        /* sorted by scheduled_ns */
        size_t n;
};

/* -EBADMSG for a bad header or a size that is not header + whole records; -EFBIG past
 * TIMELINE_MAX_RECORDS. *ret untouched on failure. */
int timeline_load(const char *path, struct timeline **ret);
/* The same from an open regular file (daemon/run-files.h); fd stays the caller's. */
int timeline_load_fd(int fd, struct timeline **ret);
void timeline_free(struct timeline *t);

struct cJSON;
/* Adds to metrics: throughput_rps (measured completions per second of measure_ns), requests,
 * errors, errors_by_kind, latency_us {scheduled, submit, lag: p50 p90 p99 p999 p9999 max, in us
 * with ns precision, null when no request counts}. Warmup records are left out. */
int timeline_metrics(const struct timeline *t, int64_t measure_ns, struct cJSON *metrics);
/* Measured requests, and how many of them got an HTTP answer (any status). */
void timeline_answered(const struct timeline *t, size_t *ret_measured, size_t *ret_answered);
