/* bundle-rows.c: an experiment's rows as bundle entries and back (see bundle-rows.h). The
 * statements are fixed per table: an entry's column names are compared with the table's, never
 * spliced into SQL. */
#include "storage/bundle-rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "storage/run-state.h"

enum owner { OWNER_EXPERIMENT, OWNER_RUN };

struct table {
        const char *name;
        const char *select_sql;         /* ?1 experiment id, ?2 offset */
        const char *insert_sql;
        const char *const *columns;
        size_t n_columns;
        enum owner owner;
        size_t owner_column;            /* the experiment's or the run's id */
        bool defines_runs;              /* column 0 is a run id that later tables may name */
};

#define OF_RUNS " WHERE run_id IN (SELECT id FROM runs WHERE experiment_id = ?1)"
#define PAGE " LIMIT -1 OFFSET ?2"
#define COLUMNS(...) .columns = (const char *const[]){ __VA_ARGS__ }, \
                     .n_columns = ELEMENTSOF(((const char *const[]){ __VA_ARGS__ }))

static const struct table tables[] = {
        { "experiments",
          "SELECT id, name, status, definition, run_order, seed, warnings, cancel_requested, created_wall_ns,"
          " finished_wall_ns FROM experiments WHERE id = ?1" PAGE,
          "INSERT INTO experiments(id, name, status, definition, run_order, seed, warnings, cancel_requested,"
          " created_wall_ns, finished_wall_ns) VALUES (?,?,?,?,?,?,?,?,?,?)",
          COLUMNS("id", "name", "status", "definition", "run_order", "seed", "warnings", "cancel_requested",
                  "created_wall_ns", "finished_wall_ns"),
          OWNER_EXPERIMENT, 0, false },
        { "cells",
          "SELECT experiment_id, idx, name, definition FROM cells WHERE experiment_id = ?1 ORDER BY idx" PAGE,
          "INSERT INTO cells(experiment_id, idx, name, definition) VALUES (?,?,?,?)",
          COLUMNS("experiment_id", "idx", "name", "definition"), OWNER_EXPERIMENT, 0, false },
        { "runs",
          "SELECT id, experiment_id, position, cell_idx, iteration, state, reason, message, sut_slice, load_slice,"
          " exit_status, metrics, warnings, measure_start_ns FROM runs WHERE experiment_id = ?1 ORDER BY position" PAGE,
          "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state, reason, message, sut_slice,"
          " load_slice, exit_status, metrics, warnings, measure_start_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
          COLUMNS("id", "experiment_id", "position", "cell_idx", "iteration", "state", "reason", "message", "sut_slice",
                  "load_slice", "exit_status", "metrics", "warnings", "measure_start_ns"),
          OWNER_EXPERIMENT, 1, true },
        { "run_events",
          "SELECT run_id, seq, state, wall_ns, mono_ns, message FROM run_events" OF_RUNS " ORDER BY run_id, seq" PAGE,
          "INSERT INTO run_events(run_id, seq, state, wall_ns, mono_ns, message) VALUES (?,?,?,?,?,?)",
          COLUMNS("run_id", "seq", "state", "wall_ns", "mono_ns", "message"), OWNER_RUN, 0, false },
        { "run_metrics",
          "SELECT run_id, name, value FROM run_metrics" OF_RUNS " ORDER BY run_id, name" PAGE,
          "INSERT INTO run_metrics(run_id, name, value) VALUES (?,?,?)",
          COLUMNS("run_id", "name", "value"), OWNER_RUN, 0, false },
        { "requests",
          "SELECT run_id, first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM requests" OF_RUNS
          " ORDER BY run_id, first_seq" PAGE,
          "INSERT INTO requests(run_id, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
          " VALUES (?,?,?,?,?,?)",
          COLUMNS("run_id", "first_seq", "count", "first_scheduled_ns", "last_scheduled_ns", "records"), OWNER_RUN, 0,
          false },
        { "gc_events",
          "SELECT run_id, seq, start_ns, duration_ns, kind, cause, heap_before, heap_after, heap_capacity, gc_id,"
          " collector FROM gc_events" OF_RUNS " ORDER BY run_id, seq" PAGE,
          "INSERT INTO gc_events(run_id, seq, start_ns, duration_ns, kind, cause, heap_before, heap_after,"
          " heap_capacity, gc_id, collector) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
          COLUMNS("run_id", "seq", "start_ns", "duration_ns", "kind", "cause", "heap_before", "heap_after",
                  "heap_capacity", "gc_id", "collector"),
          OWNER_RUN, 0, false },
        { "samples",
          "SELECT run_id, t_ms, data FROM samples" OF_RUNS " ORDER BY run_id, t_ms" PAGE,
          "INSERT INTO samples(run_id, t_ms, data) VALUES (?,?,?)",
          COLUMNS("run_id", "t_ms", "data"), OWNER_RUN, 0, false },
        /* Its id is the local store's sequence: the importer gives the rows new ones, in order. */
        { "host_snapshots",
          "SELECT run_id, taken_wall_ns, data FROM host_snapshots" OF_RUNS " ORDER BY id" PAGE,
          "INSERT INTO host_snapshots(run_id, taken_wall_ns, data) VALUES (?,?,?)",
          COLUMNS("run_id", "taken_wall_ns", "data"), OWNER_RUN, 0, false },
        { "run_steps",
          "SELECT run_id, step, rate, met, measure_start_ns, data FROM run_steps" OF_RUNS " ORDER BY run_id, step" PAGE,
          "INSERT INTO run_steps(run_id, step, rate, met, measure_start_ns, data) VALUES (?,?,?,?,?,?)",
          COLUMNS("run_id", "step", "rate", "met", "measure_start_ns", "data"), OWNER_RUN, 0, false },
        { "step_requests",
          "SELECT run_id, step, first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM step_requests"
          OF_RUNS " ORDER BY run_id, step, first_seq" PAGE,
          "INSERT INTO step_requests(run_id, step, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
          " VALUES (?,?,?,?,?,?,?)",
          COLUMNS("run_id", "step", "first_seq", "count", "first_scheduled_ns", "last_scheduled_ns", "records"),
          OWNER_RUN, 0, false },
};

enum { VALUE_NULL, VALUE_INTEGER, VALUE_REAL, VALUE_TEXT, VALUE_BLOB };

size_t bundle_rows_tables(void) {
        return ELEMENTSOF(tables);
}

const char *bundle_rows_table_name(size_t table) {
        return table < ELEMENTSOF(tables) ? tables[table].name : NULL;
}

static int put_header(struct bundle_buf *out, const struct table *t) {
        int r = bundle_buf_put_u16(out, (uint16_t) t->n_columns);
        for (size_t i = 0; r >= 0 && i < t->n_columns; i++) {
                size_t n = strlen(t->columns[i]);
                r = bundle_buf_put_u8(out, (uint8_t) n);
                if (r >= 0)
                        r = bundle_buf_put(out, t->columns[i], n);
        }
        return r;
}

static int put_value(struct bundle_buf *out, sqlite3_stmt *s, int col) {
        int type = sqlite3_column_type(s, col), r;
        switch (type) {
        case SQLITE_INTEGER:
                r = bundle_buf_put_u8(out, VALUE_INTEGER);
                return r < 0 ? r : bundle_buf_put_u64(out, (uint64_t) sqlite3_column_int64(s, col));
        case SQLITE_FLOAT: {
                double d = sqlite3_column_double(s, col);
                uint64_t bits;
                memcpy(&bits, &d, sizeof bits);
                r = bundle_buf_put_u8(out, VALUE_REAL);
                return r < 0 ? r : bundle_buf_put_u64(out, bits);
        }
        case SQLITE_TEXT:
        case SQLITE_BLOB: {
                const void *p = type == SQLITE_TEXT ? (const void *) sqlite3_column_text(s, col) : sqlite3_column_blob(s, col);
                uint32_t n = (uint32_t) sqlite3_column_bytes(s, col);
                r = bundle_buf_put_u8(out, type == SQLITE_TEXT ? VALUE_TEXT : VALUE_BLOB);
                if (r >= 0)
                        r = bundle_buf_put_u32(out, n);
                return r < 0 ? r : bundle_buf_put(out, p, n);
        }
        default:
                return bundle_buf_put_u8(out, VALUE_NULL);
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

void bundle_rows_owner_done(struct bundle_rows_owner *o) {
        free(o->run_ids);
        o->run_ids = NULL;
        o->n_runs = 0;
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
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: not the %zu columns of table %s",
                                 entry, t->n_columns, t->name);
        for (size_t i = 0; i < t->n_columns; i++) {
                const uint8_t *len, *name;
                if (!take(rd, 1, &len) || !take(rd, *len, &name) || *len != strlen(t->columns[i]) ||
                    memcmp(name, t->columns[i], *len) != 0)
                        return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: column %zu is not %s.%s",
                                         entry, i + 1, t->name, t->columns[i]);
        }
        return 0;
}

/* Binds one encoded value to parameter idx; the text of an owner column is returned in *ret. */
static int bind_value(struct reader *rd, sqlite3_stmt *s, int idx, const uint8_t **ret_text, size_t *ret_len) {
        const uint8_t *type, *p;
        *ret_text = NULL;
        if (!take(rd, 1, &type))
                return -EBADMSG;
        switch (*type) {
        case VALUE_NULL:
                return sqlite3_bind_null(s, idx) == SQLITE_OK ? 0 : -ENOMEM;
        case VALUE_INTEGER:
                if (!take(rd, 8, &p))
                        return -EBADMSG;
                return sqlite3_bind_int64(s, idx, (int64_t) bundle_get_u64(p)) == SQLITE_OK ? 0 : -ENOMEM;
        case VALUE_REAL: {
                if (!take(rd, 8, &p))
                        return -EBADMSG;
                uint64_t bits = bundle_get_u64(p);
                double d;
                memcpy(&d, &bits, sizeof d);
                return sqlite3_bind_double(s, idx, d) == SQLITE_OK ? 0 : -ENOMEM;
        }
        case VALUE_TEXT:
        case VALUE_BLOB: {
                const uint8_t *lp;
                if (!take(rd, 4, &lp))
                        return -EBADMSG;
                uint32_t n = bundle_get_u32(lp);
                if (!take(rd, n, &p) || n > INT32_MAX)
                        return -EBADMSG;
                int rc = *type == VALUE_TEXT ? sqlite3_bind_text(s, idx, (const char *) p, (int) n, SQLITE_STATIC)
                                             : sqlite3_bind_blob(s, idx, p, (int) n, SQLITE_STATIC);
                if (*type == VALUE_TEXT) {
                        *ret_text = p;
                        *ret_len = n;
                }
                return rc == SQLITE_OK ? 0 : -ENOMEM;
        }
        default:
                return -EBADMSG;
        }
}

static bool is(const uint8_t *text, size_t len, const char *id) {
        return text && len == strlen(id) && memcmp(text, id, len) == 0;
}

static bool owned_run(const struct bundle_rows_owner *o, const uint8_t *text, size_t len) {
        for (size_t i = 0; i < o->n_runs; i++)
                if (is(text, len, o->run_ids[i]))
                        return true;
        return false;
}

static int add_run(struct bundle_rows_owner *o, const uint8_t *text, size_t len) {
        if (!text || len != ID_LEN)
                return -EBADMSG;
        char (*n)[ID_LEN + 1] = realloc(o->run_ids, (o->n_runs + 1) * sizeof *n);
        if (!n)
                return -ENOMEM;
        o->run_ids = n;
        memcpy(o->run_ids[o->n_runs], text, len);
        o->run_ids[o->n_runs][len] = '\0';
        if (!id_valid(o->run_ids[o->n_runs]))
                return -EBADMSG;
        o->n_runs++;
        return 0;
}

/* One row: its values bound, its owner checked, stepped. */
static int load_row(struct reader *rd, sqlite3_stmt *s, const struct table *t, struct bundle_rows_owner *o,
                    const char *entry, struct error *err) {
        const uint8_t *owner = NULL, *first = NULL;
        size_t owner_len = 0, first_len = 0;
        for (size_t i = 0; i < t->n_columns; i++) {
                const uint8_t *text;
                size_t len = 0;
                int r = bind_value(rd, s, (int) i + 1, &text, &len);
                if (r == -EBADMSG)
                        return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: a value of column %s is cut or of no known type",
                                         entry, t->columns[i]);
                if (r < 0)
                        return r;
                if (i == t->owner_column) {
                        owner = text;
                        owner_len = len;
                }
                if (i == 0) {
                        first = text;
                        first_len = len;
                }
        }
        bool ok = t->owner == OWNER_EXPERIMENT ? is(owner, owner_len, o->experiment_id) : owned_run(o, owner, owner_len);
        if (!ok)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: a row belongs to another %s than the bundle's",
                                 entry, t->owner == OWNER_EXPERIMENT ? "experiment" : "run");
        if (t->defines_runs && add_run(o, first, first_len) < 0)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: a run's id is not an id", entry);
        int r = db_step(s);
        sqlite3_reset(s);
        if (r == -EEXIST)
                return error_set(err, 409, "conflict", "bundle",
                                 "entry %s: a row with the same key is already stored (an experiment or run id is taken)", entry);
        return r < 0 ? r : 0;
}

int bundle_rows_load(struct db_conn *c, const char *entry_name, const uint8_t *data, size_t len,
                     struct bundle_rows_owner *o, struct error *err) {
        const struct table *t = table_of_entry(entry_name);
        if (!t)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: no table of this version has that name", entry_name);
        struct reader rd = { data, data + len };
        if (check_header(&rd, t, entry_name, err) < 0)
                return -EINVAL;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, t->insert_sql, &s);
        if (r < 0)
                return r;
        while (rd.p < rd.end)
                if ((r = load_row(&rd, s, t, o, entry_name, err)) < 0)
                        return r;
        return 0;
}

int bundle_rows_check(struct db_conn *c, const struct bundle_rows_owner *o, struct error *err) {
        static const char sql[] =
                "SELECT status IN ('succeeded','partial','failed','cancelled'),"
                " (SELECT count(*) FROM runs WHERE experiment_id = ?1 AND state NOT IN " RUN_STATES_FINISHED_SQL ")"
                " FROM experiments WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, o->experiment_id, &s);
        if (r == -ENOENT)
                return error_set(err, 400, "invalid_bundle", "bundle", "the bundle holds no row of experiment %s", o->experiment_id);
        if (r < 0)
                return r;
        if (!sqlite3_column_int(s, 0) || sqlite3_column_int64(s, 1) > 0)
                return error_set(err, 400, "invalid_bundle", "bundle", "experiment %s is not finished in the bundle: only finished experiments are imported",
                                 o->experiment_id);
        return 0;
}
