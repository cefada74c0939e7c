/* findings-compare.h: a cell against the baseline, metric by metric, as the difference rule
 * decides and the noise rule explains what it could not decide: the ratio of geometric means
 * with its interval at one level for all the metrics compared (95% with Bonferroni's
 * correction for their number), so that the two rules can never disagree on what was decided. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/sequential.h"
#include "basic/stats.h"
#include "findings/findings.h"

/* The metrics the difference rule compares, in order. */
struct findings_compare_metric {
        const char *path, *what;
        bool higher_is_better;
};
extern const struct findings_compare_metric findings_compare_metrics[];
extern const size_t findings_compare_metrics_count;
#define FINDINGS_COMPARE_METRICS_MAX 5

#define FINDINGS_ALPHA 0.05

/* What a claim says of an approximate interval (stats.h: struct stats_ratio's approximate). */
#define FINDINGS_APPROXIMATE_TEXT "approximate: fewer than 5 iterations on a side and sides of different sizes"

struct findings_compared {
        const struct findings_compare_metric *metric;
        size_t nx, nbase;
        struct stats_ratio r;           /* at the decision's level; .approximate as stats.h says */
        double value, baseline_value;   /* the geometric means */
        double log_var, log_var_df;     /* pooled variance of ln x over both sides, and its df (0: n/a) */
        /* decided by the definition's stop rule (findings-sequential.h): .r is its interval */
        bool sequential;
        struct sequential_outcome stop;
        double stop_level;
        size_t stop_comparisons;
        unsigned stop_rounds;
};

/* The decision's level for k metrics at once: 1 - FINDINGS_ALPHA / k. */
double findings_compare_level(size_t k);
/* "95% interval" or "98.75% interval, Bonferroni over 4 metrics". */
void findings_compare_level_text(char *buf, size_t size, size_t k);
/* The same for k things of another kind: "99.17% intervals, Bonferroni over 6 thread groups"
 * (what, plural; intervals says "interval" or "intervals"). */
void findings_level_text(char *buf, size_t size, size_t k, const char *intervals, const char *what);

/* cell against base over findings_compare_metrics that both have with values above 0, into out
 * (capacity FINDINGS_COMPARE_METRICS_MAX): the count compared, k. */
size_t findings_compare_cell(const struct findings_cell *cell, const struct findings_cell *base,
                             struct findings_compared *out);
