/* log.h: leveled logging to the journal (when stderr is the journal, per JOURNAL_STREAM) or to
 * stderr with a level prefix. Run-related messages carry SLICELAB_RUN= / SLICELAB_EXPERIMENT=
 * so `journalctl SLICELAB_RUN=<id>` tells a run's story. Thread-safe. */
#pragma once

#include <syslog.h>

#include "basic/macro.h"

void log_setup(void);
int log_parse_level(const char *s);   /* "debug".."err" -> LOG_*, or -EINVAL */
void log_set_level(int level);
int log_get_level(void);

/* Returns -abs(error) (or -EIO when error is 0), so `return log_error_errno(r, ...)` works. */
int log_full(int level, int error, const char *experiment_id, const char *run_id,
             const char *fmt, ...) _printf_(5, 6);

#define log_debug(...) log_full(LOG_DEBUG, 0, NULL, NULL, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, 0, NULL, NULL, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, 0, NULL, NULL, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, 0, NULL, NULL, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, 0, NULL, NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_full(LOG_ERR, (e), NULL, NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full(LOG_WARNING, (e), NULL, NULL, __VA_ARGS__)
#define log_run(level, exp, run, ...) log_full((level), 0, (exp), (run), __VA_ARGS__)
