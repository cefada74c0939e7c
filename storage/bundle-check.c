/* bundle-check.c: the rules an imported bundle's rows meet (see bundle-check.h). */
#include "storage/bundle-check.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-check.h"
#include "basic/json-util.h"
#include "basic/timeline-format.h"
#include "basic/utf8.h"
#include "storage/timeline-store.h"

int bundle_row_error(struct error *err, const struct bundle_row_at *at, const char *column, const char *fmt, ...) {
        char rule[sizeof err->message], field[sizeof err->field];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rule, sizeof rule, fmt, ap);
        va_end(ap);
        snprintf(field, sizeof field, "%s%s%s", at->table, column ? "." : "", column ? column : "");
        return error_set(err, 400, "invalid_bundle", field, "entry %s, row %zu%s%s: %s", at->entry, at->row,
                         column ? ", column " : "", column ? column : "", rule);
}

static const char *type_name(uint8_t type) {
        static const char *const names[] = { "NULL", "an integer", "a real", "text", "a blob" };
        return type < ELEMENTSOF(names) ? names[type] : "of no known type";
}

/* The rule's text with its reason, for a refusal. */
#define WHY(col) (col)->why ? " (" : "", (col)->why ? (col)->why : "", (col)->why ? ")" : ""

static int check_integer(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                         struct error *err) {
        if (v->type != BUNDLE_VALUE_INTEGER)
                return bundle_row_error(err, at, col->name, "must be an integer, not %s", type_name(v->type));
        if (v->i < col->min || v->i > col->max)
                return bundle_row_error(err, at, col->name, "must be from %" PRId64 " to %" PRId64 ", not %" PRId64 "%s%s%s",
                                        col->min, col->max, v->i, WHY(col));
        return 0;
}

static int check_real(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                      struct error *err) {
        if (v->type != BUNDLE_VALUE_REAL && v->type != BUNDLE_VALUE_INTEGER)
                return bundle_row_error(err, at, col->name, "must be a number, not %s", type_name(v->type));
        double d = v->type == BUNDLE_VALUE_REAL ? v->d : (double) v->i;
        if (!isfinite(d) || d < (double) col->min || d > (double) col->max)
                return bundle_row_error(err, at, col->name, "must be a finite number from %" PRId64 " to %" PRId64 "%s%s%s",
                                        col->min, col->max, WHY(col));
        return 0;
}

/* A C0 control, DEL or a C1 control (U+0080..U+009F, UTF-8 C2 80..C2 9F) at p[i]. */
static bool control_at(const uint8_t *p, size_t len, size_t i) {
        return p[i] < 0x20 || p[i] == 0x7f || (p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f);
}

/* Text: UTF-8 of col->min (0 or 1) to col->max bytes without NUL (names: no control character). */
static int check_text(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                      struct error *err) {
        if (v->type != BUNDLE_VALUE_TEXT)
                return bundle_row_error(err, at, col->name, "must be text, not %s", type_name(v->type));
        if (v->len > (uint64_t) col->max)
                return bundle_row_error(err, at, col->name, "must be at most %" PRId64 " bytes, not %zu", col->max, v->len);
        const uint8_t *nul = memchr(v->p, '\0', v->len);
        if (nul)
                return bundle_row_error(err, at, col->name, "holds a NUL byte (byte %td)", nul - v->p);
        size_t bad = utf8_invalid_offset((const char *) v->p, v->len);
        if (bad < v->len)
                return bundle_row_error(err, at, col->name, "is not UTF-8 (byte %zu)", bad);
        if (v->len < (uint64_t) col->min)
                return bundle_row_error(err, at, col->name, "must not be empty");
        if (col->kind != BUNDLE_NAME)
                return 0;
        for (size_t i = 0; i < v->len; i++)
                if (control_at(v->p, v->len, i))
                        return bundle_row_error(err, at, col->name, "holds a control character (byte %zu)", i);
        return 0;
}

bool bundle_value_is(const struct bundle_value *v, const char *s) {
        return s && v->type == BUNDLE_VALUE_TEXT && v->len == strlen(s) && memcmp(v->p, s, v->len) == 0;
}

static int check_enum(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                      struct error *err) {
        char list[256] = "";
        size_t o = 0;
        for (const char *const *e = col->values; *e; e++) {
                if (bundle_value_is(v, *e))
                        return 0;
                if (o < sizeof list)
                        o += (size_t) snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", *e);
        }
        return bundle_row_error(err, at, col->name, "must be one of %s%s%s%s", list, WHY(col));
}

static int check_id(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                    struct error *err) {
        char id[ID_LEN + 1] = "";
        if (v->type == BUNDLE_VALUE_TEXT && v->len == ID_LEN) {
                memcpy(id, v->p, ID_LEN);
                id[ID_LEN] = '\0';
        }
        if (!id_valid(id))
                return bundle_row_error(err, at, col->name, "must be an id (%d characters of a-z and 2-7)", ID_LEN);
        return 0;
}

static int check_json(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                      struct error *err) {
        if (v->type != BUNDLE_VALUE_TEXT)
                return bundle_row_error(err, at, col->name, "must be JSON text, not %s", type_name(v->type));
        if (v->len > (uint64_t) col->max)
                return bundle_row_error(err, at, col->name, "must be at most %" PRId64 " bytes of JSON, not %zu", col->max, v->len);
        struct json_check_result why;
        if (json_check((const char *) v->p, v->len, BUNDLE_JSON_DEPTH_MAX, BUNDLE_JSON_VALUES_MAX, NULL, &why) < 0)
                switch (why.fault) {
                case JSON_CHECK_TOO_DEEP:
                        return bundle_row_error(err, at, col->name, "nests JSON objects and arrays more than %d deep",
                                                BUNDLE_JSON_DEPTH_MAX);
                case JSON_CHECK_TOO_MANY:
                        return bundle_row_error(err, at, col->name, "holds more than %d JSON values", BUNDLE_JSON_VALUES_MAX);
                default:
                        return bundle_row_error(err, at, col->name, "is not JSON: %s at byte %zu", why.what, why.at);
                }
        size_t first = 0;
        while (first < v->len && strchr(" \t\r\n", v->p[first]))
                first++;
        char want = col->kind == BUNDLE_JSON_OBJECT ? '{' : '[';
        if (first == v->len || v->p[first] != want)
                return bundle_row_error(err, at, col->name, "must be a JSON %s", col->kind == BUNDLE_JSON_OBJECT ? "object" : "array");
        return 0;
}

static int check_blob(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                      struct error *err) {
        if (v->type != BUNDLE_VALUE_BLOB)
                return bundle_row_error(err, at, col->name, "must be a blob, not %s", type_name(v->type));
        if (v->len < (uint64_t) col->min || v->len > (uint64_t) col->max)
                return bundle_row_error(err, at, col->name, "must be %" PRId64 " to %" PRId64 " bytes, not %zu", col->min, col->max,
                                        v->len);
        return 0;
}

int bundle_check_value(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                       struct error *err) {
        if (v->type == BUNDLE_VALUE_NULL)
                return col->nullable ? 0 : bundle_row_error(err, at, col->name, "must not be NULL");
        switch (col->kind) {
        case BUNDLE_INTEGER:
                return check_integer(col, v, at, err);
        case BUNDLE_REAL:
                return check_real(col, v, at, err);
        case BUNDLE_ID:
                return check_id(col, v, at, err);
        case BUNDLE_TEXT:
        case BUNDLE_NAME:
                return check_text(col, v, at, err);
        case BUNDLE_ENUM:
                return check_enum(col, v, at, err);
        case BUNDLE_JSON_OBJECT:
        case BUNDLE_JSON_ARRAY:
                return check_json(col, v, at, err);
        case BUNDLE_BLOB:
                return check_blob(col, v, at, err);
        }
        return bundle_row_error(err, at, col->name, "has no rule");
}

/* ---- the rules between rows ------------------------------------------------------------------ */

/* The definition, read by the importer; its own refusal said as the column's. */
static int read_definition(struct bundle_rows_owner *o, const struct bundle_value *v, const struct bundle_row_at *at,
                           struct error *err) {
        struct error why = { 0 };
        if (!o->read_definition)
                return -EINVAL;
        int r = o->read_definition((const char *) v->p, v->len, &o->def, &why);
        if (r >= 0)
                return 0;
        if (why.status == 0 || why.status >= 500) {
                *err = why;
                return r;
        }
        return bundle_row_error(err, at, "definition", "is not a definition this daemon takes: %s%s%s", why.field,
                                why.field[0] ? ": " : "", why.message);
}

static int check_seed(const struct bundle_rows_owner *o, const struct bundle_value *v, const struct bundle_row_at *at,
                      struct error *err) {
        const struct bundle_value *seed = &v[COL_EXPERIMENT_SEED];
        bool random = strcmp(o->def.order, "random") == 0;
        if (!random && seed->type != BUNDLE_VALUE_NULL)
                return bundle_row_error(err, at, "seed", "must be NULL: the definition's order is %s, not random", o->def.order);
        if (random && seed->type == BUNDLE_VALUE_NULL)
                return bundle_row_error(err, at, "seed", "must hold the seed the runs were ordered with: the definition's order is random");
        if (random && o->def.has_seed && (uint64_t) seed->i != o->def.seed)
                return bundle_row_error(err, at, "seed", "must be the definition's seed, %" PRIu64, o->def.seed);
        return 0;
}

int bundle_check_experiment(_unused_ struct db_conn *c, struct bundle_rows_owner *o, const struct bundle_value *v,
                            const struct bundle_row_at *at, struct error *err) {
        if (o->have_experiment)
                return bundle_row_error(err, at, NULL, "a second row of experiments: a bundle holds one experiment");
        int r = read_definition(o, &v[COL_EXPERIMENT_DEFINITION], at, err);
        if (r < 0)
                return r;
        o->have_experiment = true;
        if (!bundle_value_is(&v[COL_EXPERIMENT_NAME], o->def.name))
                return bundle_row_error(err, at, "name", "must be the definition's name");
        if (!bundle_value_is(&v[COL_EXPERIMENT_RUN_ORDER], o->def.order))
                return bundle_row_error(err, at, "run_order", "must be the definition's order, %s", o->def.order);
        if ((r = check_seed(o, v, at, err)) < 0)
                return r;
        /* Bounded by the definition: at most DEFINITION_CELLS_MAX x DEFINITION_ITERATIONS_MAX. */
        size_t runs = o->def.n_cells * o->def.iterations;
        o->positions = calloc(MAX(runs, (size_t) 1), 1);
        o->cell_runs = calloc(MAX(runs, (size_t) 1), 1);
        return o->positions && o->cell_runs ? 0 : -ENOMEM;
}

int bundle_check_cell(_unused_ struct db_conn *c, struct bundle_rows_owner *o, const struct bundle_value *v,
                      const struct bundle_row_at *at, struct error *err) {
        int64_t idx = v[COL_CELL_IDX].i;
        if (idx != (int64_t) o->n_cells || (size_t) idx >= o->def.n_cells)
                return bundle_row_error(err, at, "idx",
                                        "is %" PRId64 " where %zu comes next: the definition's %zu cells come in order, each once",
                                        idx, o->n_cells, o->def.n_cells);
        if (!bundle_value_is(&v[COL_CELL_NAME], o->def.cell_names[idx]))
                return bundle_row_error(err, at, "name", "must be the name of the definition's cell %" PRId64, idx);
        o->n_cells++;
        return 0;
}

int bundle_check_run(_unused_ struct db_conn *c, struct bundle_rows_owner *o, const struct bundle_value *v,
                     const struct bundle_row_at *at, struct error *err) {
        size_t runs = o->def.n_cells * o->def.iterations;
        if (o->n_cells < o->def.n_cells)
                return bundle_row_error(err, at, NULL, "a run before all %zu cells of the definition (%zu so far)", o->def.n_cells,
                                        o->n_cells);
        int64_t position = v[COL_RUN_POSITION].i, cell = v[COL_RUN_CELL_IDX].i, iteration = v[COL_RUN_ITERATION].i;
        if ((uint64_t) position >= runs)
                return bundle_row_error(err, at, "position", "is %" PRId64 ": the definition plans %zu runs", position, runs);
        if (o->positions[position])
                return bundle_row_error(err, at, "position", "%" PRId64 " is another run's", position);
        if ((uint64_t) cell >= o->def.n_cells)
                return bundle_row_error(err, at, "cell_idx", "is %" PRId64 ": the definition has %zu cells", cell, o->def.n_cells);
        if ((uint64_t) iteration >= o->def.iterations)
                return bundle_row_error(err, at, "iteration", "is %" PRId64 ": the definition runs %u iterations of each cell",
                                        iteration, o->def.iterations);
        size_t k = (size_t) cell * o->def.iterations + (size_t) iteration;
        if (o->cell_runs[k])
                return bundle_row_error(err, at, "iteration", "iteration %" PRId64 " of cell %" PRId64 " is another run's", iteration,
                                        cell);
        o->positions[position] = o->cell_runs[k] = 1;
        return 0;
}

/* The record's times are CLOCK_MONOTONIC ns, its error a known one, its flags the format's. */
static int check_record(const struct timeline_record *rec, size_t i, const struct bundle_row_at *at, struct error *err) {
        const int64_t times[] = { rec->scheduled_ns, rec->submit_ns, rec->done_ns };
        for (size_t k = 0; k < ELEMENTSOF(times); k++)
                if (times[k] < 0 || times[k] > BUNDLE_NS_MAX)
                        return bundle_row_error(err, at, "records", "record %zu: a time is not from 0 to 2^62 ns", i);
        if (rec->error >= _TIMELINE_ERR_MAX)
                return bundle_row_error(err, at, "records", "record %zu: error %u is none the injector writes", i, rec->error);
        if (rec->flags & ~(uint32_t) (TIMELINE_WARMUP | TIMELINE_HOST_MASK))
                return bundle_row_error(err, at, "records", "record %zu: flags 0x%x hold bits the format does not use", i,
                                        rec->flags);
        return 0;
}

/* A block's records: count of them, each sound, in scheduled order, the first's and last's times
 * the block's columns. */
static int check_records(const struct bundle_value *b, const struct bundle_row_at *at, struct error *err) {
        int64_t count = b[COL_BLOCK_COUNT].i;
        const struct bundle_value *records = &b[COL_BLOCK_RECORDS];
        if (records->len != (size_t) count * sizeof(struct timeline_record))
                return bundle_row_error(err, at, "records", "must be count x %zu bytes (%" PRId64 " records), not %zu",
                                        sizeof(struct timeline_record), count, records->len);
        int64_t previous = INT64_MIN;
        for (int64_t i = 0; i < count; i++) {
                struct timeline_record rec;
                /* copied: the entry's bytes need not be aligned for the records' int64 fields */
                memcpy(&rec, records->p + i * (int64_t) sizeof rec, sizeof rec);
                int r = check_record(&rec, (size_t) i, at, err);
                if (r < 0)
                        return r;
                if (rec.scheduled_ns < previous)
                        return bundle_row_error(err, at, "records", "record %" PRId64 " is scheduled before the one before it", i);
                previous = rec.scheduled_ns;
                if (i == 0 && rec.scheduled_ns != b[COL_BLOCK_FIRST_SCHEDULED].i)
                        return bundle_row_error(err, at, "first_scheduled_ns", "must be the first record's scheduled time");
        }
        if (previous != b[COL_BLOCK_LAST_SCHEDULED].i)
                return bundle_row_error(err, at, "last_scheduled_ns", "must be the last record's scheduled time");
        return 0;
}

/* The block follows the run's (or the step's) last one: blocks hold REQUESTS_BLOCK_RECORDS
 * records but the last, their sequence numbers contiguous from 0, their times in order. */
static int check_block(struct db_conn *c, const char *last_sql, const struct bundle_value *run, const struct bundle_value *step,
                       const struct bundle_value *b, const struct bundle_row_at *at, struct error *err) {
        int r = check_records(b, at, err);
        if (r < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, last_sql, &s)) < 0)
                return r;
        if (sqlite3_bind_text(s, 1, (const char *) run->p, (int) run->len, SQLITE_STATIC) != SQLITE_OK)
                return -ENOMEM;
        if (step)
                sqlite3_bind_int64(s, 2, step->i);
        if ((r = db_step(s)) < 0)
                return r;
        int64_t next = r > 0 ? sqlite3_column_int64(s, 0) + sqlite3_column_int64(s, 1) : 0;
        int64_t first_seq = b[COL_BLOCK_FIRST_SEQ].i;
        if (first_seq != next)
                return bundle_row_error(err, at, "first_seq",
                                        "is %" PRId64 " where %" PRId64 " comes next: a run's blocks are contiguous from 0, in order",
                                        first_seq, next);
        if (r > 0 && sqlite3_column_int64(s, 1) != REQUESTS_BLOCK_RECORDS)
                return bundle_row_error(err, at, "first_seq",
                                        "follows a block of %" PRId64 " records: only a run's last block holds fewer than %d",
                                        (int64_t) sqlite3_column_int64(s, 1), REQUESTS_BLOCK_RECORDS);
        if (r > 0 && b[COL_BLOCK_FIRST_SCHEDULED].i < sqlite3_column_int64(s, 2))
                return bundle_row_error(err, at, "first_scheduled_ns",
                                        "is before the previous block's last: a run's records are in scheduled order");
        return 0;
}

int bundle_check_requests(struct db_conn *c, _unused_ struct bundle_rows_owner *o, const struct bundle_value *v,
                          const struct bundle_row_at *at, struct error *err) {
        static const char sql[] =
                "SELECT first_seq, count, last_scheduled_ns FROM requests WHERE run_id = ?1 ORDER BY first_seq DESC LIMIT 1";
        return check_block(c, sql, &v[0], NULL, &v[1], at, err);
}

int bundle_check_step_requests(struct db_conn *c, _unused_ struct bundle_rows_owner *o, const struct bundle_value *v,
                               const struct bundle_row_at *at, struct error *err) {
        static const char sql_step[] = "SELECT 1 FROM run_steps WHERE run_id = ?1 AND step = ?2";
        static const char sql[] =
                "SELECT first_seq, count, last_scheduled_ns FROM step_requests WHERE run_id = ?1 AND step = ?2"
                " ORDER BY first_seq DESC LIMIT 1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql_step, &s);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(s, 1, (const char *) v[0].p, (int) v[0].len, SQLITE_STATIC) != SQLITE_OK)
                return -ENOMEM;
        sqlite3_bind_int64(s, 2, v[1].i);
        if ((r = db_step(s)) < 0)
                return r;
        if (r == 0)
                return bundle_row_error(err, at, "step", "step %" PRId64 " of the run is not in run_steps (its rows come first)", v[1].i);
        db_stmt_resetp(&s);
        return check_block(c, sql, &v[0], &v[1], &v[2], at, err);
}

/* A run's transitions are numbered from 0 without a gap, the first its queueing (the run's
 * history, and the clock offset its times are shown with, read them). */
int bundle_check_event(struct db_conn *c, _unused_ struct bundle_rows_owner *o, const struct bundle_value *v,
                       const struct bundle_row_at *at, struct error *err) {
        static const char sql[] = "SELECT max(seq) FROM run_events WHERE run_id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        if (sqlite3_bind_text(s, 1, (const char *) v[COL_EVENT_RUN_ID].p, (int) v[COL_EVENT_RUN_ID].len, SQLITE_STATIC) != SQLITE_OK)
                return -ENOMEM;
        if ((r = db_step(s)) < 0)
                return r;
        int64_t next = r > 0 && sqlite3_column_type(s, 0) != SQLITE_NULL ? sqlite3_column_int64(s, 0) + 1 : 0;
        if (v[COL_EVENT_SEQ].i != next)
                return bundle_row_error(err, at, "seq",
                                        "is %" PRId64 " where %" PRId64 " comes next: a run's transitions are numbered from 0, in order",
                                        v[COL_EVENT_SEQ].i, next);
        if (next == 0 && !bundle_value_is(&v[COL_EVENT_STATE], "queued"))
                return bundle_row_error(err, at, "state", "must be queued: a run's first transition is its queueing");
        return 0;
}

/* A sample's data says its own t_ms: the findings read it from there. */
int bundle_check_sample(_unused_ struct db_conn *c, _unused_ struct bundle_rows_owner *o, const struct bundle_value *v,
                        const struct bundle_row_at *at, struct error *err) {
        _cleanup_json_ cJSON *data = cJSON_ParseWithLength((const char *) v[COL_SAMPLE_DATA].p, v[COL_SAMPLE_DATA].len);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(data, "t_ms");
        if (t && (!cJSON_IsNumber(t) || t->valuedouble != (double) v[COL_SAMPLE_T_MS].i))
                return bundle_row_error(err, at, "data", "its t_ms must be the row's, %" PRId64, v[COL_SAMPLE_T_MS].i);
        return 0;
}

int bundle_check_complete(struct db_conn *c, const struct bundle_rows_owner *o, struct error *err) {
        /* Each run's last transition is to the state it is in. */
        static const char sql[] =
                "SELECT r.id FROM runs r WHERE r.experiment_id = ?1 AND r.state IS NOT"
                " (SELECT e.state FROM run_events e WHERE e.run_id = r.id ORDER BY e.seq DESC LIMIT 1)"
                " ORDER BY r.position LIMIT 1";
        if (!o->have_experiment)
                return error_set(err, 400, "invalid_bundle", "experiments", "the bundle holds no row of experiment %s",
                                 o->experiment_id);
        if (o->n_cells < o->def.n_cells)
                return error_set(err, 400, "invalid_bundle", "cells", "the bundle holds %zu of the %zu cells of its definition",
                                 o->n_cells, o->def.n_cells);
        size_t runs = o->def.n_cells * o->def.iterations;
        if (o->def.min_rounds > 0) {
                /* a stop rule ends after whole rounds: their runs all kept, ended */
                if (o->n_runs % o->def.n_cells != 0 || o->n_runs < o->def.n_cells * o->def.min_rounds)
                        return error_set(err, 400, "invalid_bundle", "runs",
                                         "the bundle holds %zu runs: its definition's stop rule keeps whole rounds of its %zu"
                                         " cells, at least iterations.min (%u) of them",
                                         o->n_runs, o->def.n_cells, o->def.min_rounds);
                size_t rounds = o->n_runs / o->def.n_cells;
                for (size_t k = 0; k < o->def.n_cells * o->def.iterations; k++)
                        if (o->cell_runs[k] != (k % o->def.iterations < rounds))
                                return error_set(err, 400, "invalid_bundle", "runs",
                                                 "cell %zu iteration %zu: a stop rule's experiment keeps its first %zu rounds whole",
                                                 k / o->def.iterations, k % o->def.iterations, rounds);
                runs = o->n_runs;
        }
        if (o->n_runs < runs)
                return error_set(err, 400, "invalid_bundle", "runs",
                                 "the bundle holds %zu of the %zu runs its definition plans"
                                 " (every run of a finished experiment is kept, ended)",
                                 o->n_runs, runs);
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, o->experiment_id, &s);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return error_set(err, 400, "invalid_bundle", "run_events",
                         "run %s: its last transition (in run_events) is not to its state (in runs), or it has none",
                         (const char *) sqlite3_column_text(s, 0));
}
