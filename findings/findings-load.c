/* findings-load.c: an experiment's findings input from the store: its definition, its
 * succeeded runs' metrics and 1 s series, and per run one streaming pass over the stored
 * timeline (block by block, one block buffer for the whole experiment) against its GC and
 * safepoint pauses and its throttled seconds. */
#include "findings/findings-load.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "storage/experiments.h"
#include "storage/run-profile.h"
#include "storage/runs.h"
#include "storage/samples-store.h"
#include "storage/timeline-store.h"

struct findings_loaded {
        struct findings_input in;
        cJSON *rows, *cell_names, *experiment;
        char status[EXPERIMENT_STATUS_SIZE];
        struct timeline_record *block;
        const char *state_dir;          /* NULL: profiles not read */
        size_t profile_bytes;           /* read so far */
};

const struct findings_input *findings_loaded_input(const struct findings_loaded *l) {
        return &l->in;
}

const char *findings_loaded_status(const struct findings_loaded *l) {
        return l->status;
}

void findings_loaded_free(struct findings_loaded *l) {
        for (size_t i = 0; i < l->in.n_cells; i++) {
                for (size_t j = 0; j < l->in.cells[i].n_runs; j++) {
                        cJSON_Delete((cJSON *) l->in.cells[i].runs[j].samples);
                        free((char *) l->in.cells[i].runs[j].profile);
                }
                free(l->in.cells[i].runs);
        }
        free(l->in.cells);
        cJSON_Delete(l->rows);
        cJSON_Delete(l->cell_names);
        cJSON_Delete(l->experiment);
        free(l->block);
        free(l);
}

struct span_list {
        struct findings_span *v;
        size_t n, cap;
};

static int add_pause(int64_t start_ns, int64_t duration_ns, void *userdata) {
        struct span_list *l = userdata;
        int64_t end_ns;
        if (duration_ns < 0)
                return 0;
        if (__builtin_add_overflow(start_ns, duration_ns, &end_ns))
                end_ns = INT64_MAX;     /* no GC log says so; the scan's union takes it as it is */
        if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 64;
                struct findings_span *v = realloc(l->v, cap * sizeof *v);
                if (!v)
                        return -ENOMEM;
                l->v = v;
                l->cap = cap;
        }
        l->v[l->n++] = (struct findings_span){ start_ns, end_ns };
        return 0;
}

/* GC and safepoint pauses as spans, in start order (the store's). */
static int pause_spans(struct db_conn *c, const char *run_id, struct findings_span **ret, size_t *ret_n) {
        struct span_list l = { 0 };
        int r = gc_pauses_foreach(c, run_id, add_pause, &l);
        if (r < 0) {
                free(l.v);
                return r;
        }
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}

/* t_ms of a sample on the timeline's clock; false for a value no sampler writes (not a number,
 * or past int64 nanoseconds from the measure start). */
static bool sample_ns(const cJSON *t, int64_t measure_start_ns, int64_t *ret) {
        if (!cJSON_IsNumber(t) || !(fabs(t->valuedouble) < 9e12)) /* ms: 285 years, and NaN fails */
                return false;
        return !__builtin_add_overflow(measure_start_ns, (int64_t) t->valuedouble * NSEC_PER_MSEC, ret);
}

/* The 1 s intervals in which the SUT's slice had throttled periods, on the timeline's clock. */
static size_t throttled_spans(const cJSON *samples, int64_t measure_start_ns, struct findings_span **ret,
                              bool *ret_have) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(samples, "t_ms");
        const cJSON *thr = cJSON_GetObjectItemCaseSensitive(samples, "nr_throttled");
        size_t n = (size_t) cJSON_GetArraySize(t), k = 0;
        *ret_have = false;
        *ret = calloc(MAX(n, (size_t) 1), sizeof **ret);
        if (!*ret)
                return 0;
        /* Both columns walked side by side: cJSON's arrays are lists, an index is a walk. */
        const cJSON *ti = cJSON_IsArray(t) ? t->child : NULL, *v = cJSON_IsArray(thr) ? thr->child : NULL;
        for (; ti && v; ti = ti->next, v = v->next) {
                int64_t from, to;
                if (!cJSON_IsNumber(v) || !sample_ns(ti, measure_start_ns, &from))
                        continue;
                *ret_have = true;
                if (!(v->valuedouble > 0))
                        continue;
                if (!ti->next || !sample_ns(ti->next, measure_start_ns, &to))
                        to = from > INT64_MAX - NSEC_PER_SEC ? INT64_MAX : from + NSEC_PER_SEC;
                (*ret)[k++] = (struct findings_span){ from, to };
        }
        return k;
}

static int feed_block(const struct timeline_record *records, size_t n, void *userdata) {
        findings_tail_feed(userdata, records, n);
        return 0;
}

/* The tail scan of one run, streaming its stored timeline. */
static int scan_tail(struct db_conn *c, struct findings_run *run, struct timeline_record *block) {
        double p99_us;
        int64_t start;
        /* A threshold beyond any latency in ns (or not a number) finds no tail: not scanned. */
        if (!findings_metric(run, "latency_us.scheduled.p99", &p99_us) || !(fabs(p99_us) < 9e12) ||
            runs_measure_start(c, run->id, &start) < 0)
                return 0;
        _cleanup_free_ struct findings_span *pauses = NULL, *throttled = NULL;
        size_t n_pauses = 0;
        int r = pause_spans(c, run->id, &pauses, &n_pauses);
        if (r < 0)
                return r;
        bool have_throttle;
        size_t n_throttled = throttled_spans(run->samples, start, &throttled, &have_throttle);
        if (!throttled)
                return -ENOMEM;
        struct findings_tail_scan scan;
        r = findings_tail_begin(&scan, (int64_t) llround(p99_us * 1000), pauses, n_pauses, throttled, n_throttled,
                                have_throttle);
        if (r < 0)
                return r;
        r = requests_stream(c, run->id, block, feed_block, &scan);
        findings_tail_done(&scan);
        if (r < 0)
                return r;
        run->tail = scan.result;
        return 0;
}

/* The run's profile.folded when its metrics say it has one; none past the experiment's budget
 * (or a file that cannot be read: the rule then sees one profiled run less). */
static void read_profile(struct findings_loaded *l, struct findings_run *run) {
        char *text = NULL;
        size_t len = 0;
        if (!l->state_dir || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(run->metrics, "profile")) ||
            l->profile_bytes >= FINDINGS_PROFILES_BYTES_MAX || run_profile_read(l->state_dir, run->id, &text, &len) < 0)
                return;
        if (len > FINDINGS_PROFILES_BYTES_MAX - l->profile_bytes) {
                free(text);
                l->profile_bytes = FINDINGS_PROFILES_BYTES_MAX;
                return;
        }
        l->profile_bytes += len;
        run->profile = text;
        run->profile_len = len;
}

static int fill_cell(struct db_conn *c, struct findings_loaded *l, size_t idx, const char *name) {
        struct findings_cell *cell = &l->in.cells[idx];
        cell->name = name;
        cell->def = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(l->in.definition, "cells"), (int) idx);
        size_t cap = (size_t) cJSON_GetArraySize(l->rows);
        cell->runs = calloc(MAX(cap, (size_t) 1), sizeof *cell->runs);
        if (!cell->runs)
                return -ENOMEM;
        const cJSON *row;
        cJSON_ArrayForEach(row, l->rows) {
                const char *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "state"));
                const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(row, "metrics");
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "cell")), name) != 0 ||
                    strcmp(state, "succeeded") != 0 || !cJSON_IsObject(metrics))
                        continue;
                struct findings_run *run = &cell->runs[cell->n_runs++];
                run->id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "id"));
                double iteration = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "iteration"));
                run->iteration = iteration >= 0 && iteration <= UINT_MAX ? (unsigned) iteration : 0; /* NaN too */
                run->metrics = metrics;
                cJSON *samples = NULL;
                int r = samples_json(c, run->id, &samples);
                if (r < 0)
                        return r;
                run->samples = samples;
                if ((r = scan_tail(c, run, l->block)) < 0)
                        return r;
                read_profile(l, run);
        }
        return 0;
}

int findings_load(struct db_conn *c, const char *state_dir, const char *id, const char *baseline,
                  struct findings_loaded **ret) {
        struct findings_loaded *l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        l->state_dir = state_dir;
        _cleanup_findings_ struct findings_loaded *owned = l;
        int r = experiments_report_rows(c, id, &l->rows, &l->cell_names, l->status);
        if (r < 0)
                return r;
        if ((r = experiments_get_json(c, id, &l->experiment)) < 0)
                return r;
        l->in.experiment_id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l->experiment, "id"));
        l->in.definition = cJSON_GetObjectItemCaseSensitive(l->experiment, "definition");
        size_t n = (size_t) cJSON_GetArraySize(l->cell_names);
        bool found = baseline == NULL;
        for (size_t i = 0; i < n && baseline; i++)
                if (strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(l->cell_names, (int) i)), baseline) == 0) {
                        l->in.baseline = i;
                        found = true;
                }
        if (!found || n == 0)
                return -EINVAL;
        l->block = malloc(REQUESTS_BLOCK_RECORDS * sizeof *l->block);
        l->in.cells = calloc(n, sizeof *l->in.cells);
        if (!l->block || !l->in.cells)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                l->in.n_cells = i + 1;
                if ((r = fill_cell(c, l, i, cJSON_GetStringValue(cJSON_GetArrayItem(l->cell_names, (int) i)))) < 0)
                        return r;
        }
        *ret = TAKE_PTR(owned);
        return 0;
}
