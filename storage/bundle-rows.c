/* bundle-rows.c: an experiment's rows as bundle entries and back (see bundle-rows.h). The
 * statements are fixed per table: an entry's column names are compared with the table's, never
 * spliced into SQL. Each table's columns carry the rule an imported value meets
 * (storage/bundle-check.h): what the daemon's own writes put there. */
#include "storage/bundle-rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/capacity-search.h"
#include "basic/macro.h"
#include "basic/timeline-format.h"
#include "storage/bundle-check.h"
#include "storage/run-state.h"
#include "storage/timeline-store.h"

enum owner { OWNER_EXPERIMENT, OWNER_RUN };

struct table {
        const char *name;
        const char *select_sql;         /* ?1 experiment id, ?2 offset */
        const char *insert_sql;
        const struct bundle_column *columns;
        size_t n_columns;
        enum owner owner;
        size_t owner_column;            /* the experiment's or the run's id */
        bool defines_runs;              /* column 0 is a run id that later tables may name */
        bundle_row_check_fn *check;     /* the rules between this table's rows and the others' */
        const char *key;                /* the primary key's columns, said when a row repeats one */
        const char *id_of;              /* the key is an id other experiments' rows may hold: an
                                         * "experiment" or "run" id taken is a clash (409) */
};

#define OF_RUNS " WHERE run_id IN (SELECT id FROM runs WHERE experiment_id = ?1)"
#define PAGE " LIMIT -1 OFFSET ?2"
#define COLUMNS(...) .columns = (const struct bundle_column[]){ __VA_ARGS__ }, \
                     .n_columns = ELEMENTSOF(((const struct bundle_column[]){ __VA_ARGS__ }))
#define COLUMNS_MAX 16
_Static_assert(_COL_RUN_MAX <= COLUMNS_MAX, "runs, the widest table, has room in a row's values");

/* The columns' rules (storage/bundle-check.h). */
#define INTEGER(lo, hi) .kind = BUNDLE_INTEGER, .min = (lo), .max = (hi)
#define REAL(lo, hi) .kind = BUNDLE_REAL, .min = (lo), .max = (hi)
#define IS_ID .kind = BUNDLE_ID
#define TEXT(lo, hi) .kind = BUNDLE_TEXT, .min = (lo), .max = (hi)
#define NAME(lo, hi) .kind = BUNDLE_NAME, .min = (lo), .max = (hi)
#define ENUM(...) .kind = BUNDLE_ENUM, .values = (const char *const[]){ __VA_ARGS__, NULL }
#define JSON_OBJECT .kind = BUNDLE_JSON_OBJECT, .max = BUNDLE_JSON_MAX
#define JSON_ARRAY .kind = BUNDLE_JSON_ARRAY, .max = BUNDLE_JSON_MAX
#define BLOB(lo, hi) .kind = BUNDLE_BLOB, .min = (lo), .max = (hi)
#define NULLABLE .nullable = true
#define NS INTEGER(0, BUNDLE_NS_MAX), .why = "a time in ns, below 2^62"
#define FLAG INTEGER(0, 1)
#define INDEX INTEGER(0, INT32_MAX)
/* definition.h's DEFINITION_SEED_MAX: seeds are exact in a JSON (double) number. */
#define SEED_MAX ((INT64_C(1) << 53) - 1)
/* definition.h's DEFINITION_RATE_MAX, in requests per second. */
#define RATE_MAX 1000000
#define STEP INTEGER(0, CAPACITY_STEPS_MAX - 1), .why = "a capacity search's step"
/* A block of timeline records: first_seq, count, first_scheduled_ns, last_scheduled_ns, records. */
#define BLOCK_COLUMNS                                                                                             \
        { "first_seq", INTEGER(0, BUNDLE_NS_MAX) }, { "count", INTEGER(1, REQUESTS_BLOCK_RECORDS) },                \
        { "first_scheduled_ns", NS }, { "last_scheduled_ns", NS },                                                  \
        { "records", BLOB(sizeof(struct timeline_record), REQUESTS_BLOCK_RECORDS * sizeof(struct timeline_record)) }

static const struct table tables[] = {
        { "experiments",
          "SELECT id, name, status, definition, run_order, seed, warnings, cancel_requested, created_wall_ns,"
          " finished_wall_ns FROM experiments WHERE id = ?1" PAGE,
          "INSERT INTO experiments(id, name, status, definition, run_order, seed, warnings, cancel_requested,"
          " created_wall_ns, finished_wall_ns) VALUES (?,?,?,?,?,?,?,?,?,?)",
          COLUMNS([COL_EXPERIMENT_ID] = { "id", IS_ID },
                  [COL_EXPERIMENT_NAME] = { "name", NAME(1, BUNDLE_SHORT_MAX) },
                  [COL_EXPERIMENT_STATUS] = { "status", ENUM("succeeded", "partial", "failed", "cancelled"),
                                              .why = "only a finished experiment is imported" },
                  [COL_EXPERIMENT_DEFINITION] = { "definition", JSON_OBJECT },
                  [COL_EXPERIMENT_RUN_ORDER] = { "run_order", ENUM("interleaved", "sequential", "random") },
                  [COL_EXPERIMENT_SEED] = { "seed", INTEGER(0, SEED_MAX), NULLABLE },
                  [COL_EXPERIMENT_WARNINGS] = { "warnings", JSON_ARRAY },
                  [COL_EXPERIMENT_CANCEL_REQUESTED] = { "cancel_requested", FLAG },
                  [COL_EXPERIMENT_CREATED] = { "created_wall_ns", NS },
                  [COL_EXPERIMENT_FINISHED] = { "finished_wall_ns", NS }),
          OWNER_EXPERIMENT, 0, false, bundle_check_experiment, "id", "experiment" },
        { "cells",
          "SELECT experiment_id, idx, name, definition FROM cells WHERE experiment_id = ?1 ORDER BY idx" PAGE,
          "INSERT INTO cells(experiment_id, idx, name, definition) VALUES (?,?,?,?)",
          COLUMNS([COL_CELL_EXPERIMENT_ID] = { "experiment_id", IS_ID },
                  [COL_CELL_IDX] = { "idx", INDEX },
                  [COL_CELL_NAME] = { "name", NAME(1, BUNDLE_SHORT_MAX) },
                  [COL_CELL_DEFINITION] = { "definition", JSON_OBJECT }),
          OWNER_EXPERIMENT, 0, false, bundle_check_cell, "experiment_id, idx" },
        { "runs",
          "SELECT id, experiment_id, position, cell_idx, iteration, state, reason, message, sut_slice, load_slice,"
          " exit_status, metrics, warnings, measure_start_ns FROM runs WHERE experiment_id = ?1 ORDER BY position" PAGE,
          "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state, reason, message, sut_slice,"
          " load_slice, exit_status, metrics, warnings, measure_start_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
          COLUMNS([COL_RUN_ID] = { "id", IS_ID },
                  [COL_RUN_EXPERIMENT_ID] = { "experiment_id", IS_ID },
                  [COL_RUN_POSITION] = { "position", INDEX },
                  [COL_RUN_CELL_IDX] = { "cell_idx", INDEX },
                  [COL_RUN_ITERATION] = { "iteration", INDEX },
                  [COL_RUN_STATE] = { "state", ENUM("succeeded", "failed", "cancelled", "interrupted"),
                                      .why = "the runs of a finished experiment have ended" },
                  [COL_RUN_REASON] = { "reason", NAME(0, BUNDLE_SHORT_MAX), NULLABLE },
                  [COL_RUN_MESSAGE] = { "message", TEXT(0, BUNDLE_TEXT_MAX), NULLABLE },
                  [COL_RUN_SUT_SLICE] = { "sut_slice", NAME(0, BUNDLE_SHORT_MAX), NULLABLE },
                  [COL_RUN_LOAD_SLICE] = { "load_slice", NAME(0, BUNDLE_SHORT_MAX), NULLABLE },
                  [COL_RUN_EXIT_STATUS] = { "exit_status", JSON_OBJECT, NULLABLE },
                  [COL_RUN_METRICS] = { "metrics", JSON_OBJECT, NULLABLE },
                  [COL_RUN_WARNINGS] = { "warnings", JSON_ARRAY },
                  [COL_RUN_MEASURE_START] = { "measure_start_ns", NS, NULLABLE }),
          OWNER_EXPERIMENT, 1, true, bundle_check_run, "id", "run" },
        { "run_events",
          "SELECT run_id, seq, state, wall_ns, mono_ns, message FROM run_events" OF_RUNS " ORDER BY run_id, seq" PAGE,
          "INSERT INTO run_events(run_id, seq, state, wall_ns, mono_ns, message) VALUES (?,?,?,?,?,?)",
          COLUMNS([COL_EVENT_RUN_ID] = { "run_id", IS_ID },
                  [COL_EVENT_SEQ] = { "seq", INDEX },
                  [COL_EVENT_STATE] = { "state", ENUM("queued", "preparing", "starting", "warmup", "measuring", "collecting",
                                                      "succeeded", "failed", "cancelled", "interrupted") },
                  [COL_EVENT_WALL] = { "wall_ns", NS },
                  [COL_EVENT_MONO] = { "mono_ns", NS },
                  [COL_EVENT_MESSAGE] = { "message", TEXT(0, BUNDLE_TEXT_MAX), NULLABLE }),
          OWNER_RUN, 0, false, bundle_check_event, "run_id, seq" },
        { "run_metrics",
          "SELECT run_id, name, value FROM run_metrics" OF_RUNS " ORDER BY run_id, name" PAGE,
          "INSERT INTO run_metrics(run_id, name, value) VALUES (?,?,?)",
          COLUMNS({ "run_id", IS_ID }, { "name", NAME(1, BUNDLE_SHORT_MAX) }, { "value", REAL(-INT64_MAX, INT64_MAX), NULLABLE }),
          OWNER_RUN, 0, false, NULL, "run_id, name" },
        { "requests",
          "SELECT run_id, first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM requests" OF_RUNS
          " ORDER BY run_id, first_seq" PAGE,
          "INSERT INTO requests(run_id, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
          " VALUES (?,?,?,?,?,?)",
          COLUMNS({ "run_id", IS_ID }, BLOCK_COLUMNS), OWNER_RUN, 0, false, bundle_check_requests, "run_id, first_seq" },
        { "gc_events",
          "SELECT run_id, seq, start_ns, duration_ns, kind, cause, heap_before, heap_after, heap_capacity, gc_id,"
          " collector FROM gc_events" OF_RUNS " ORDER BY run_id, seq" PAGE,
          "INSERT INTO gc_events(run_id, seq, start_ns, duration_ns, kind, cause, heap_before, heap_after,"
          " heap_capacity, gc_id, collector) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
          COLUMNS({ "run_id", IS_ID }, { "seq", INDEX }, { "start_ns", NS }, { "duration_ns", NS },
                  { "kind", ENUM("pause", "safepoint") }, { "cause", NAME(0, BUNDLE_SHORT_MAX), NULLABLE },
                  { "heap_before", INTEGER(0, INT64_MAX), NULLABLE }, { "heap_after", INTEGER(0, INT64_MAX), NULLABLE },
                  { "heap_capacity", INTEGER(0, INT64_MAX), NULLABLE }, { "gc_id", INTEGER(0, INT64_MAX), NULLABLE },
                  { "collector", NAME(0, BUNDLE_SHORT_MAX), NULLABLE }),
          OWNER_RUN, 0, false, NULL, "run_id, seq" },
        { "samples",
          "SELECT run_id, t_ms, data FROM samples" OF_RUNS " ORDER BY run_id, t_ms" PAGE,
          "INSERT INTO samples(run_id, t_ms, data) VALUES (?,?,?)",
          COLUMNS([COL_SAMPLE_RUN_ID] = { "run_id", IS_ID },
                  [COL_SAMPLE_T_MS] = { "t_ms", INTEGER(-(INT64_C(1) << 32), INT64_C(1) << 32),
                                        .why = "ms from the measure's start, within 49 days" },
                  [COL_SAMPLE_DATA] = { "data", JSON_OBJECT }),
          OWNER_RUN, 0, false, bundle_check_sample, "run_id, t_ms" },
        /* Its id is the local store's sequence: the importer gives the rows new ones, in order. */
        { "host_snapshots",
          "SELECT run_id, taken_wall_ns, data FROM host_snapshots" OF_RUNS " ORDER BY id" PAGE,
          "INSERT INTO host_snapshots(run_id, taken_wall_ns, data) VALUES (?,?,?)",
          COLUMNS({ "run_id", IS_ID }, { "taken_wall_ns", NS }, { "data", JSON_OBJECT }), OWNER_RUN, 0, false, NULL, "id" },
        { "run_steps",
          "SELECT run_id, step, rate, met, measure_start_ns, data FROM run_steps" OF_RUNS " ORDER BY run_id, step" PAGE,
          "INSERT INTO run_steps(run_id, step, rate, met, measure_start_ns, data) VALUES (?,?,?,?,?,?)",
          COLUMNS({ "run_id", IS_ID }, { "step", STEP }, { "rate", REAL(0, RATE_MAX) }, { "met", FLAG },
                  { "measure_start_ns", NS, NULLABLE }, { "data", JSON_OBJECT }),
          OWNER_RUN, 0, false, NULL, "run_id, step" },
        { "step_requests",
          "SELECT run_id, step, first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM step_requests"
          OF_RUNS " ORDER BY run_id, step, first_seq" PAGE,
          "INSERT INTO step_requests(run_id, step, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
          " VALUES (?,?,?,?,?,?,?)",
          COLUMNS({ "run_id", IS_ID }, { "step", STEP }, BLOCK_COLUMNS), OWNER_RUN, 0, false, bundle_check_step_requests,
          "run_id, step, first_seq" },
};

size_t bundle_rows_tables(void) {
        return ELEMENTSOF(tables);
}

const char *bundle_rows_table_name(size_t table) {
        return table < ELEMENTSOF(tables) ? tables[table].name : NULL;
}

static int put_header(struct bundle_buf *out, const struct table *t) {
        int r = bundle_buf_put_u16(out, (uint16_t) t->n_columns);
        for (size_t i = 0; r >= 0 && i < t->n_columns; i++) {
                size_t n = strlen(t->columns[i].name);
                r = bundle_buf_put_u8(out, (uint8_t) n);
                if (r >= 0)
                        r = bundle_buf_put(out, t->columns[i].name, n);
        }
        return r;
}

static int put_value(struct bundle_buf *out, sqlite3_stmt *s, int col) {
        int type = sqlite3_column_type(s, col), r;
        switch (type) {
        case SQLITE_INTEGER:
                r = bundle_buf_put_u8(out, BUNDLE_VALUE_INTEGER);
                return r < 0 ? r : bundle_buf_put_u64(out, (uint64_t) sqlite3_column_int64(s, col));
        case SQLITE_FLOAT: {
                double d = sqlite3_column_double(s, col);
                uint64_t bits;
                memcpy(&bits, &d, sizeof bits);
                r = bundle_buf_put_u8(out, BUNDLE_VALUE_REAL);
                return r < 0 ? r : bundle_buf_put_u64(out, bits);
        }
        case SQLITE_TEXT:
        case SQLITE_BLOB: {
                const void *p = type == SQLITE_TEXT ? (const void *) sqlite3_column_text(s, col) : sqlite3_column_blob(s, col);
                uint32_t n = (uint32_t) sqlite3_column_bytes(s, col);
                r = bundle_buf_put_u8(out, type == SQLITE_TEXT ? BUNDLE_VALUE_TEXT : BUNDLE_VALUE_BLOB);
                if (r >= 0)
                        r = bundle_buf_put_u32(out, n);
                return r < 0 ? r : bundle_buf_put(out, p, n);
        }
        default:
                return bundle_buf_put_u8(out, BUNDLE_VALUE_NULL);
        }
}

int bundle_rows_chunk(struct db_conn *c, size_t table, const char *experiment_id, int64_t *offset, size_t max,
                      struct bundle_buf *out, size_t *ret_rows) {
        const struct table *t = &tables[table];
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, t->select_sql, experiment_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, *offset);
        size_t rows = 0, start = out->len;
        while (out->len - start < max && (r = db_step(s)) > 0) {
                if (rows == 0 && (r = put_header(out, t)) < 0)
                        break;
                for (size_t i = 0; r >= 0 && i < t->n_columns; i++)
                        r = put_value(out, s, (int) i);
                if (r < 0)
                        break;
                rows++;
        }
        if (r < 0) {
                out->len = start;
                return r;
        }
        *offset += (int64_t) rows;
        *ret_rows = rows;
        return 0;
}

void bundle_rows_definition_done(struct bundle_rows_definition *d) {
        free(d->name);
        for (size_t i = 0; d->cell_names && i < d->n_cells; i++)
                free(d->cell_names[i]);
        free(d->cell_names);
        *d = (struct bundle_rows_definition){ 0 };
}

void bundle_rows_owner_done(struct bundle_rows_owner *o) {
        free(o->run_ids);
        o->run_ids = NULL;
        o->n_runs = 0;
        bundle_rows_definition_done(&o->def);
        free(o->positions);
        free(o->cell_runs);
        o->positions = o->cell_runs = NULL;
}

/* "tables/<name>/<n>" names a table this version knows. */
static const struct table *table_of_entry(const char *entry_name) {
        static const char prefix[] = "tables/";
        if (strncmp(entry_name, prefix, strlen(prefix)) != 0)
                return NULL;
        const char *name = entry_name + strlen(prefix);
        size_t n = strcspn(name, "/");
        if (name[n] != '/' || name[n + 1] == '\0' || strspn(name + n + 1, "0123456789") != strlen(name + n + 1))
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(tables); i++)
                if (strlen(tables[i].name) == n && memcmp(tables[i].name, name, n) == 0)
                        return &tables[i];
        return NULL;
}

struct reader {
        const uint8_t *p, *end;
};

static bool take(struct reader *rd, size_t n, const uint8_t **ret) {
        if ((size_t) (rd->end - rd->p) < n)
                return false;
        *ret = rd->p;
        rd->p += n;
        return true;
}

static int check_header(struct reader *rd, const struct table *t, const char *entry, struct error *err) {
        const uint8_t *p;
        if (!take(rd, 2, &p) || bundle_get_u16(p) != t->n_columns)
                return error_set(err, 400, "invalid_bundle", t->name, "entry %s: not the %zu columns of table %s",
                                 entry, t->n_columns, t->name);
        for (size_t i = 0; i < t->n_columns; i++) {
                const uint8_t *len, *name;
                if (!take(rd, 1, &len) || !take(rd, *len, &name) || *len != strlen(t->columns[i].name) ||
                    memcmp(name, t->columns[i].name, *len) != 0)
                        return error_set(err, 400, "invalid_bundle", t->name, "entry %s: column %zu is not %s.%s",
                                         entry, i + 1, t->name, t->columns[i].name);
        }
        return 0;
}

/* One encoded value; false when it is cut or of no known type. */
static bool read_value(struct reader *rd, struct bundle_value *v) {
        const uint8_t *type, *p;
        *v = (struct bundle_value){ 0 };
        if (!take(rd, 1, &type))
                return false;
        v->type = *type;
        switch (*type) {
        case BUNDLE_VALUE_NULL:
                return true;
        case BUNDLE_VALUE_INTEGER:
                if (!take(rd, 8, &p))
                        return false;
                v->i = (int64_t) bundle_get_u64(p);
                return true;
        case BUNDLE_VALUE_REAL: {
                if (!take(rd, 8, &p))
                        return false;
                uint64_t bits = bundle_get_u64(p);
                memcpy(&v->d, &bits, sizeof v->d);
                return true;
        }
        case BUNDLE_VALUE_TEXT:
        case BUNDLE_VALUE_BLOB:
                if (!take(rd, 4, &p))
                        return false;
                v->len = bundle_get_u32(p);
                return v->len <= INT32_MAX && take(rd, v->len, &v->p);
        default:
                return false;
        }
}

static int bind_value(sqlite3_stmt *s, int idx, const struct bundle_value *v) {
        int rc;
        switch (v->type) {
        case BUNDLE_VALUE_INTEGER:
                rc = sqlite3_bind_int64(s, idx, v->i);
                break;
        case BUNDLE_VALUE_REAL:
                rc = sqlite3_bind_double(s, idx, v->d);
                break;
        case BUNDLE_VALUE_TEXT:
                rc = sqlite3_bind_text(s, idx, (const char *) v->p, (int) v->len, SQLITE_STATIC);
                break;
        case BUNDLE_VALUE_BLOB:
                rc = sqlite3_bind_blob(s, idx, v->p, (int) v->len, SQLITE_STATIC);
                break;
        default:
                rc = sqlite3_bind_null(s, idx);
        }
        return rc == SQLITE_OK ? 0 : sqlite_to_errno(rc);
}

static int run_id_compare(const void *a, const void *b) {
        return strcmp(a, b);
}

/* A run of the bundle's, looked up among the sorted ids: a bundle may bring tens of thousands of
 * runs and millions of their rows. */
static bool owned_run(const struct bundle_rows_owner *o, const struct bundle_value *v) {
        char id[ID_LEN + 1];
        if (v->type != BUNDLE_VALUE_TEXT || v->len != ID_LEN || o->n_runs == 0)
                return false;
        memcpy(id, v->p, ID_LEN);
        id[ID_LEN] = '\0';
        return bsearch(id, o->run_ids, o->n_runs, sizeof *o->run_ids, run_id_compare) != NULL;
}

/* The run id taken is one the bundle brought already (a repeated row), not another experiment's. */
static bool run_of_this_bundle(struct db_conn *c, const struct bundle_value *id, const char *experiment_id) {
        static const char sql[] = "SELECT 1 FROM runs WHERE id = ?1 AND experiment_id = ?2";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        return db_stmt(c, sql, &s) >= 0 &&
               sqlite3_bind_text(s, 1, (const char *) id->p, (int) id->len, SQLITE_STATIC) == SQLITE_OK &&
               db_bind_text(s, 2, experiment_id) >= 0 && db_step(s) > 0;
}

/* A run of the bundle (its id checked by its column's rule). */
static int add_run(struct bundle_rows_owner *o, const struct bundle_value *v) {
        char (*n)[ID_LEN + 1] = realloc(o->run_ids, (o->n_runs + 1) * sizeof *n);
        if (!n)
                return -ENOMEM;
        o->run_ids = n;
        memcpy(o->run_ids[o->n_runs], v->p, ID_LEN);
        o->run_ids[o->n_runs][ID_LEN] = '\0';
        o->n_runs++;
        return 0;
}

/* A row's values by their columns' rules, its owner, then the rules between rows. */
static int check_row(struct db_conn *c, const struct table *t, struct bundle_rows_owner *o, const struct bundle_value *v,
                     const struct bundle_row_at *at, struct error *err) {
        for (size_t i = 0; i < t->n_columns; i++) {
                int r = bundle_check_value(&t->columns[i], &v[i], at, err);
                if (r < 0)
                        return r;
        }
        const struct bundle_value *owner = &v[t->owner_column];
        if (t->owner == OWNER_EXPERIMENT ? !bundle_value_is(owner, o->experiment_id) : !owned_run(o, owner))
                return bundle_row_error(err, at, t->columns[t->owner_column].name, "the row belongs to another %s than the bundle's",
                                        t->owner == OWNER_EXPERIMENT ? "experiment" : "run");
        return t->check ? t->check(c, o, v, at, err) : 0;
}

/* The insert of a checked row. A key taken is the bundle's own repeat but for an experiment or a
 * run, whose ids other experiments may hold: a clash of ids, 409. */
static int insert_row(struct db_conn *c, sqlite3_stmt *s, const struct table *t, const struct bundle_rows_owner *o,
                      const struct bundle_value *v, const struct bundle_row_at *at, struct error *err) {
        int r = 0;
        for (size_t i = 0; r >= 0 && i < t->n_columns; i++)
                r = bind_value(s, (int) i + 1, &v[i]);
        if (r >= 0)
                r = db_step(s);
        char why[160];
        snprintf(why, sizeof why, "%s", sqlite3_errmsg(db_handle(c)));
        sqlite3_reset(s);
        if (r == -EEXIST && t->defines_runs && run_of_this_bundle(c, &v[0], o->experiment_id))
                return bundle_row_error(err, at, "id", "run %.*s is twice in the bundle", (int) v[0].len, (const char *) v[0].p);
        if (r == -EEXIST && t->id_of)
                return error_set(err, 409, "conflict", t->name,
                                 "entry %s, row %zu: %s id %.*s is taken here by another experiment%s; the bundle is not stored",
                                 at->entry, at->row, t->id_of, (int) v[0].len, (const char *) v[0].p,
                                 t->defines_runs ? "'s run" : "");
        if (r == -EEXIST)
                return bundle_row_error(err, at, NULL, "repeats the key (%s) of an earlier row of %s", t->key, t->name);
        if (r == -EINVAL)
                return bundle_row_error(err, at, NULL, "breaks a rule of the store: %s", why);
        return r < 0 ? r : 0;
}

int bundle_rows_load(struct db_conn *c, const char *entry_name, const uint8_t *data, size_t len,
                     struct bundle_rows_owner *o, struct error *err) {
        const struct table *t = table_of_entry(entry_name);
        if (!t)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: no table of this version has that name", entry_name);
        size_t index = (size_t) (t - tables);
        if (index < o->next_table)
                return error_set(err, 400, "invalid_bundle", t->name,
                                 "entry %s: after the rows of %s: the tables come in the format's order"
                                 " (experiments, cells, runs, then the runs' rows)",
                                 entry_name, tables[o->next_table].name);
        o->next_table = index;
        if (t->owner == OWNER_RUN && !o->runs_sorted) {
                if (o->n_runs > 0)
                        qsort(o->run_ids, o->n_runs, sizeof *o->run_ids, run_id_compare);
                o->runs_sorted = true;
        }
        if (index > 0 && !o->have_experiment)
                return error_set(err, 400, "invalid_bundle", t->name, "entry %s: rows of %s before the experiment's row", entry_name,
                                 t->name);
        struct reader rd = { data, data + len };
        if (check_header(&rd, t, entry_name, err) < 0)
                return -EINVAL;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, t->insert_sql, &s);
        if (r < 0)
                return r;
        struct bundle_value v[COLUMNS_MAX];
        struct bundle_row_at at = { .entry = entry_name, .table = t->name };
        while (rd.p < rd.end) {
                at.row++;
                for (size_t i = 0; i < t->n_columns; i++)
                        if (!read_value(&rd, &v[i]))
                                return bundle_row_error(err, &at, t->columns[i].name, "the value is cut or of no known type");
                if ((r = check_row(c, t, o, v, &at, err)) < 0 || (r = insert_row(c, s, t, o, v, &at, err)) < 0)
                        return r;
                if (t->defines_runs && (r = add_run(o, &v[0])) < 0)
                        return r;
        }
        return 0;
}

int bundle_rows_check(struct db_conn *c, const struct bundle_rows_owner *o, struct error *err) {
        return bundle_check_complete(c, o, err);
}
