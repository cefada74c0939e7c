/* run-files.h: opening a run's files for reading. The run directory belongs to the run user, who
 * may have put a symlink (to /dev/zero, to the token), a FIFO or a device where the daemon expects
 * gc.log or a timeline: the daemon (root) opens them beneath the run directory only, following no
 * symlink, without blocking, regular files only and no larger than a cap. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/timeline.h"

/* Caps on what the daemon reads back (captures are cut at 64 MiB plus a marker). */
#define RUN_FILE_CAP_CAPTURE (UINT64_C(65) * 1024 * 1024)
#define RUN_FILE_CAP_GC_LOG (UINT64_C(1) << 30)
#define RUN_FILE_CAP_SUMMARY (UINT64_C(1) << 20)
#define RUN_FILE_CAP_TIMELINE (sizeof(struct timeline_header) + TIMELINE_MAX_RECORDS * sizeof(struct timeline_record))
#define RUN_FILE_CAP_HSPERF (UINT64_C(16) << 20)

/* Open name (relative, may have directories, never "..") beneath dir for reading. On success
 * *ret_fd is a blocking fd of a regular file of at most max bytes. -ENOENT when it is absent;
 * -ELOOP (a symlink on the way or a path out of dir), -ENXIO (not a regular file), -EFBIG (over
 * max) or another errno otherwise; why (may be NULL) says which file and what was wrong. */
int run_file_open(const char *dir, const char *name, uint64_t max, int *ret_fd, char *why, size_t why_size);
/* The same as a FILE for line parsers. */
int run_file_fopen(const char *dir, const char *name, uint64_t max, FILE **ret, char *why, size_t why_size);
/* The timeline's header (timeline-format.h) beneath dir, as the injector wrote it when its
 * schedule began: -ENODATA while the file is absent or shorter than a header, -EBADMSG for one
 * that is not a timeline's, else run_file_open()'s errors. *ret untouched on failure. */
int run_file_timeline_header(const char *dir, const char *name, struct timeline_header *ret);
