/* ops-series.h: a benchmark without load's in-process iterations (issue 36): each line
 * {"ops_per_s": N} its SUT prints on stdout, with the time it came, is a point of the run's
 * steady-state series; the last stdout line stays the run's result, not a point. A line that
 * starts as such an object but is not one (not JSON, N not a finite number above 0) is counted,
 * never fatal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run's points at most (a week at one a second, 8 MB of doubles beside it): later ones are
 * counted, not kept. */
#define OPS_SERIES_MAX (7 * 24 * 3600)

struct cJSON;

struct ops_series {
        int64_t start_ns;       /* CLOCK_MONOTONIC of the SUT's start */
        double *at_s, *value;   /* n points: when each line came, seconds from the start */
        size_t n, cap;
        uint64_t malformed, dropped;
        bool last_was_point;    /* the latest stdout line was a point (the result, if it stays the last) */
};

void ops_series_start(struct ops_series *s, int64_t start_ns);
/* One complete stdout line, at now_ns. */
void ops_series_line(struct ops_series *s, const char *line, int64_t now_ns);
/* metrics.steady_state over the points but the last line (ops_per_s, faster = higher). -ENOMEM. */
int ops_series_steady_state(const struct ops_series *s, struct cJSON *metrics);
void ops_series_done(struct ops_series *s);
