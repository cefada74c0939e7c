/* warmup-watch.h: load.warmup_s "auto" (issue 36): while the local injector warms the SUT, once a
 * second, whether the run is steady, so that its measure phase may begin:
 *   - the JIT quiet: the JVM's compile time, from the run's 1 s samples (samples.h), rose by at
 *     most WARMUP_JIT_QUIET_MS_PER_S per second over the last WARMUP_JIT_QUIET_S seconds; a SUT
 *     that is not a JVM passes, and one whose counters cannot be read passes with that said;
 *   - the series steady: the series timeline-series.h classifies at the run's end (per 1 s
 *     interval of the scheduled time the median latency from the scheduled time, or in mode
 *     max the answered requests per second), read from the timeline the injector flushes each
 *     second of the warmup (slicelab-inject --warmup-until-signal), over its last
 *     WARMUP_WINDOW intervals segmented as basic/steady-state.h does (outliers left out, PELT
 *     with a penalty of 15 log n): its last segment holds at least WARMUP_STEADY_INTERVALS, and
 *     shows no trend: the least-squares line across it changes by at most WARMUP_TREND_MAX of
 *     its mean, or its slope's 95% interval holds 0 (the segmentation has too little power on a
 *     short series to split a smooth warmup, which it then calls one segment).
 * The timeline is read on from where the last read ended, a read() per 1024 records, and the
 * segmentation sees at most WARMUP_WINDOW values: the check costs the same at any rate. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#define WARMUP_JIT_QUIET_S 5
#define WARMUP_JIT_QUIET_MS_PER_S 20.0
#define WARMUP_STEADY_INTERVALS 5
#define WARMUP_WINDOW 120
#define WARMUP_TREND_MAX 0.02

struct samples;
struct sample_point;
struct warmup_watch;

/* The run is steady; message says why, for the run's state history. Called once. */
typedef void (*warmup_watch_fn)(void *userdata, const char *message);

/* Starts checking every second on event. timeline_path is absolute, in the run's directory, and
 * read as daemon/run-files.h reads the run user's files; samples is the run's, read as it
 * grows. -errno (-EINVAL for a path without a directory). */
int warmup_watch_new(sd_event *event, const char *timeline_path, bool rate_metric, bool jvm,
                     const struct samples *samples, warmup_watch_fn on_steady, void *userdata,
                     struct warmup_watch **ret);
struct warmup_watch *warmup_watch_free(struct warmup_watch *w);
/* Where the checks stand ("the JIT compiled 120 ms/s over the last 5 s; the series' last
 * segment holds 3 of 41 intervals"), for a run whose warmup_max_s came first. */
void warmup_watch_describe(const struct warmup_watch *w, char *buf, size_t size);

/* The checks alone, for the tests. The JIT's compile time per second over the last
 * WARMUP_JIT_QUIET_S seconds of points (*ret_ms_per_s); false while the points span less or
 * have no compile time. */
bool warmup_jit_rate(const struct sample_point *points, size_t n, double *ret_ms_per_s);
/* The number of values x[0..n) (finite, above 0) ends with in one segment, the segmentation
 * over its last WARMUP_WINDOW values; 0 for fewer than WARMUP_STEADY_INTERVALS values; -ENOMEM. */
int warmup_last_segment(const double *x, size_t n, bool higher_is_faster, size_t *ret);
/* x[0..n) without a trend: the least-squares line's change across it (*ret_change, a share of
 * the mean) is within WARMUP_TREND_MAX, or the slope's 95% interval holds 0; false below 3. */
bool warmup_trend_flat(const double *x, size_t n, double *ret_change);
