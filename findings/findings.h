/* findings.h: why cells differ, with the evidence. Each rule (rule-*.c) is a pure function over
 * an experiment's stored data (struct findings_input): the runs' metrics, their 1 s samples,
 * and what one streaming pass over each run's timeline found about its slowest requests
 * (findings-tail.c). findings-load.h fills the input from the store (the one part of findings/
 * that sees storage/); unit tests fill it from fixtures. The rules, their thresholds and their
 * evidence are documented in docs/findings.md. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A tail request counts as in a pause when GC or safepoint pauses cover this share of its time
 * in flight. */
#define FINDINGS_PAUSE_SHARE 0.05

/* What the timeline says about a run's slowest requests (those at or above its p99 from
 * scheduled): how many, how many were in flight during GC or safepoint pauses (same clock;
 * pauses covering FINDINGS_PAUSE_SHARE of the flight at least),
 * how many were scheduled in a 1 s interval in which the SUT's slice was throttled. */
struct findings_tail {
        bool have;                      /* the timeline was read */
        uint64_t tail;
        uint64_t in_pause;
        bool have_throttle;             /* the run has a throttling series */
        uint64_t in_throttled;
};

struct findings_run {
        const char *id;
        unsigned iteration;             /* 1-based, as the API numbers them */
        const cJSON *metrics;           /* the run's metrics as stored */
        const cJSON *samples;           /* the 1 s series, columnar, as GET /v1/runs/{id}/samples; may be NULL */
        struct findings_tail tail;
        const char *profile;            /* its profile.folded (profile.cpu); NULL: none */
        size_t profile_len;
};

struct findings_cell {
        const char *name;
        const cJSON *def;               /* the cell as defined (cpus, cpu_quota, jvm_args, ...); may be NULL */
        size_t n_runs;                  /* succeeded runs only */
        struct findings_run *runs;
};

struct findings_input {
        const char *experiment_id;
        const cJSON *definition;        /* the experiment's definition; may be NULL */
        size_t n_cells;
        struct findings_cell *cells;
        size_t baseline;                /* index into cells */
};

enum findings_severity {
        FINDING_INFO,
        FINDING_MEDIUM,
        FINDING_HIGH,
};

/* A rule appends findings to out (a JSON array) with findings_append(). */
typedef void (*findings_rule_fn)(const struct findings_input *in, cJSON *out);

struct findings_rule {
        const char *kind;
        findings_rule_fn fn;
};

/* The registry, in the order the rules run. */
extern const struct findings_rule findings_rules[];
extern const size_t findings_rules_count;

/* Every rule over in, ordered by severity then effect size: the "findings" array. */
cJSON *findings_compute(const struct findings_input *in);

/* ---- helpers for rules (findings.c) ---- */

/* A new finding appended to out: {"id","kind","severity","cells","claim","evidence":[],
 * "suggestion"}; effect orders findings of one severity (larger first) and is not served. */
cJSON *findings_append(cJSON *out, const char *kind, enum findings_severity sev, double effect, const char *claim,
                       const char *suggestion);
void findings_add_cell(cJSON *finding, const char *cell);
/* {"metric","cell","value","baseline_value","runs"} with the ids of cell's runs; NAN gives null. */
void findings_add_evidence(cJSON *finding, const char *metric, const struct findings_cell *cell, double value,
                           double baseline_value);
/* The same with text values (a collector's name). */
void findings_add_evidence_text(cJSON *finding, const char *metric, const struct findings_cell *cell, const char *value,
                                const char *baseline_value);
/* The same naming only the runs given. */
void findings_add_evidence_runs(cJSON *finding, const char *metric, const char *cell, double value,
                                double baseline_value, const char *const *run_ids, size_t n_ids);

/* A number at a dotted path of a run's metrics ("latency_us.scheduled.p99"); false when absent
 * or null. */
bool findings_metric(const struct findings_run *run, const char *path, double *ret);
/* The cell's values of a metric, one per run that has it, into x (capacity max); the count. */
size_t findings_values(const struct findings_cell *cell, const char *path, double *x, size_t max);
/* The sum of a metric over the cell's runs that have it; false when none has. */
bool findings_sum(const struct findings_cell *cell, const char *path, double *ret);
/* A string at a dotted path of the first run that has it. */
const char *findings_string(const struct findings_cell *cell, const char *path);

/* The sum of a series of a run's samples; false without that series. */
bool findings_series_sum(const struct findings_run *run, const char *series, double *ret);

#define FINDINGS_RUNS_MAX 1000

/* ---- the tail scan (findings-tail.c): one pass, records in scheduled order ---- */

struct timeline_record;

struct findings_span {
        int64_t from_ns, to_ns;
};

struct findings_tail_scan {
        int64_t threshold_ns;                   /* the run's p99 from scheduled */
        struct findings_span *pauses;           /* the pauses' union: disjoint spans, in order */
        uint64_t *covered;                      /* covered[i]: the union's time before pauses[i] */
        size_t n_pauses;
        const struct findings_span *throttled;  /* 1 s intervals with throttled periods, in order */
        size_t n_throttled, throttled_pos;
        struct findings_tail result;
};

/* pauses in any order, nested or overlapping (a GC pause inside its safepoint), spans with
 * to_ns <= from_ns ignored: the scan keeps their union, so that what a request's flight met
 * costs a lookup, however long the flight and however many pauses there are. 0, or -ENOMEM
 * (nothing to free); findings_tail_done() after the feeds. */
int findings_tail_begin(struct findings_tail_scan *s, int64_t threshold_ns, const struct findings_span *pauses,
                        size_t n_pauses, const struct findings_span *throttled, size_t n_throttled,
                        bool have_throttle);
void findings_tail_feed(struct findings_tail_scan *s, const struct timeline_record *r, size_t n);
void findings_tail_done(struct findings_tail_scan *s);
