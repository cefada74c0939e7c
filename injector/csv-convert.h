/* csv-convert.h: bring per-request data back into slicelab's timeline format. Two inputs, one
 * request per line, times on CLOCK_MONOTONIC or any one clock in ns:
 *  - another injector's CSV with the columns scheduled_ns,submit_ns,done_ns,status (an optional
 *    header line naming exactly those): a status of 0 is a transport error of unknown kind
 *    (error "io"), and records scheduled within warmup_ns of the first one carry the warmup flag;
 *  - slicelab's own export (GET /v1/runs/{id}/timeline as text/csv, `slicelab timeline`), known
 *    by its header line scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags: records
 *    keep their error, bytes, connection and warmup flag, the measure phase starts at the first
 *    record without the flag, and warmup_ns must be 0.
 * Records are sorted by scheduled time. */
#pragma once

#include <stdint.h>

#define CSV_MAX_RECORDS (UINT64_C(1) << 26)
#define CSV_MAX_LINE 512

struct csv_error {
        uint64_t line;          /* 1-based; 0 when the error is not about a line */
        char message[160];
};

/* Convert in_path into a complete timeline at out_path (written all or nothing). On a bad line,
 * returns -EINVAL and says where in *err. */
int csv_convert(const char *in_path, const char *out_path, int64_t warmup_ns, struct csv_error *err);
