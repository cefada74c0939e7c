/* hlog.h: a timeline as an HdrHistogram interval log (log format 1.3, V2 compressed histograms),
 * the one writer behind `slicelab-inject --hlog` and GET /v1/runs/{id}/histogram, so both give
 * the same intervals and histograms for the same records (the StartTime and BaseTime
 * comments come from each side's own wall-clock reading).
 *
 * The measure phase's records, in scheduled order, fall into intervals of the scheduled time
 * counted from the measure start; each interval gives two lines: tag `scheduled` (done -
 * scheduled, coordinated-omission corrected) and tag `submit` (done - submit), in microseconds
 * rounded to the nearest, by the rule of basic/latency.h (answered requests only). Every interval
 * from the first to the last record's is written, empty ones too. Timestamps are seconds from
 * BaseTime, which is the measure start on the wall clock. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "basic/hdr-histogram.h"
#include "basic/timeline-format.h"

#define HLOG_INTERVAL_MIN_NS INT64_C(1000000)               /* 1 ms */
#define HLOG_INTERVAL_MAX_NS (INT64_C(3600) * 1000000000)   /* 1 h */
#define HLOG_INTERVALS_MAX INT64_C(36000)  /* 10 h of 1 s: a log that a reader still takes whole */

enum hlog_tag { HLOG_SCHEDULED, HLOG_SUBMIT, _HLOG_TAG_MAX };

struct hlog {
        struct hdr_histogram h[_HLOG_TAG_MAX];
        int64_t measure_start_ns, interval_ns;
        int64_t interval;       /* index of the interval being filled, -1 before the first */
        char *text;
        size_t len, cap;
};

/* wall_start_ns: the measure start on CLOCK_REALTIME. 0 or -ENOMEM (*l then needs no hlog_done). */
int hlog_begin(struct hlog *l, int64_t measure_start_ns, int64_t wall_start_ns, int64_t interval_ns);
/* Records out of the measure phase are skipped; 0 or -ENOMEM. */
int hlog_add(struct hlog *l, const struct timeline_record *r);
/* The whole log into *ret (malloc'd, *ret_len bytes, NUL-terminated); l is then done. */
int hlog_end(struct hlog *l, char **ret, size_t *ret_len);
void hlog_done(struct hlog *l);
