/* hdr-histogram.h: a fixed-shape HdrHistogram (values 1..HDR_HIGHEST, 3 significant digits) and its
 * published V2 compressed encoding, written from the format's public description, so that tools of
 * the HdrHistogram ecosystem (HistogramLogAnalyzer, the log processor) read what we record.
 * One shape only: what slicelab records are latencies in microseconds, from 1 us to an hour. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define HDR_SIGNIFICANT_DIGITS 3
#define HDR_LOWEST INT64_C(1)
#define HDR_HIGHEST INT64_C(3600000000)        /* an hour in microseconds */

struct hdr_histogram {
        int64_t *counts;        /* HDR_COUNTS_LEN of them */
        int64_t total;
        int64_t max;            /* largest value recorded (clamped), 0 when empty */
        size_t max_index;       /* highest counts index in use, for resets and encoding */
};

/* 0 or -ENOMEM; *h untouched on failure. */
int hdr_init(struct hdr_histogram *h);
void hdr_done(struct hdr_histogram *h);
void hdr_reset(struct hdr_histogram *h);
/* Values below 0 count as 0, above HDR_HIGHEST as HDR_HIGHEST (an hour is past any timeout a
 * user would read from a histogram). */
void hdr_record(struct hdr_histogram *h, int64_t value);

/* The V2 compressed encoding in base64 (NUL-terminated, malloc'd) into *ret: 0 or -ENOMEM/-EIO. */
int hdr_encode_base64(const struct hdr_histogram *h, char **ret);
