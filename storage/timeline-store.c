/* timeline-store.c: bulk inserts of a run's raw data, prepared once, in one transaction. */
#include "storage/timeline-store.h"

#include "basic/json-util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <string.h>

#include "basic/log.h"
#include "storage/row-json.h"

/* What the inserts of db_replace_run_rows() write: n items of an array. */
struct rows {
        const void *items;
        size_t n;
};

static int insert_requests(sqlite3_stmt *s, const char *run_id, void *userdata) {
        const struct rows *rows = userdata;
        db_bind_text(s, 1, run_id);
        return requests_insert_blocks(s, 2, rows->items, rows->n);
}

int requests_store(struct db_conn *c, const char *run_id, const struct timeline_record *records, size_t n) {
        static const char sql_clear[] = "DELETE FROM requests WHERE run_id = ?";
        static const char sql[] =
                "INSERT INTO requests(run_id, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
                " VALUES (?, ?, ?, ?, ?, ?)";
        struct rows rows = { records, n };
        return db_replace_run_rows(c, sql_clear, sql, run_id, insert_requests, &rows);
}

int requests_insert_blocks(sqlite3_stmt *s, int first_param, const struct timeline_record *records, size_t n) {
        for (size_t first = 0; first < n; first += REQUESTS_BLOCK_RECORDS) {
                size_t count = n - first < REQUESTS_BLOCK_RECORDS ? n - first : REQUESTS_BLOCK_RECORDS;
                sqlite3_reset(s); /* keeps the bindings before first_param */
                sqlite3_bind_int64(s, first_param, (int64_t) first);
                sqlite3_bind_int64(s, first_param + 1, (int64_t) count);
                sqlite3_bind_int64(s, first_param + 2, records[first].scheduled_ns);
                sqlite3_bind_int64(s, first_param + 3, records[first + count - 1].scheduled_ns);
                sqlite3_bind_blob(s, first_param + 4, &records[first], (int) (count * sizeof *records), SQLITE_STATIC);
                int r = db_step(s);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int insert_gc_events(sqlite3_stmt *s, const char *run_id, void *userdata) {
        const struct rows *rows = userdata;
        const struct gc_event_row *events = rows->items;
        int r = 0;
        for (size_t i = 0; i < rows->n; i++) {
                const struct gc_event_row *e = &events[i];
                sqlite3_reset(s);
                db_bind_text(s, 1, run_id);
                sqlite3_bind_int64(s, 2, (int64_t) i);
                sqlite3_bind_int64(s, 3, e->start_ns);
                sqlite3_bind_int64(s, 4, e->duration_ns);
                db_bind_text(s, 5, e->kind);
                db_bind_text(s, 6, e->cause);
                const int64_t optional[] = { e->heap_before, e->heap_after, e->heap_capacity, e->gc_id };
                for (int k = 0; k < 4; k++) {
                        if (optional[k] >= 0)
                                sqlite3_bind_int64(s, 7 + k, optional[k]);
                        else
                                sqlite3_bind_null(s, 7 + k);
                }
                db_bind_text(s, 11, e->collector);
                if ((r = db_step(s)) < 0)
                        return r;
        }
        return 0;
}

int gc_events_store(struct db_conn *c, const char *run_id, const struct gc_event_row *events, size_t n) {
        static const char sql_clear[] = "DELETE FROM gc_events WHERE run_id = ?";
        static const char sql[] =
                "INSERT INTO gc_events(run_id, seq, start_ns, duration_ns, kind, cause, heap_before, heap_after,"
                " heap_capacity, gc_id, collector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        struct rows rows = { events, n };
        return db_replace_run_rows(c, sql_clear, sql, run_id, insert_gc_events, &rows);
}

/* What a block must be for a reader to trust its figures: first_seq >= 0 with first_seq + count
 * representable, 1..REQUESTS_BLOCK_RECORDS records of exactly count records' bytes, in scheduled
 * order from first_scheduled_ns to last_scheduled_ns (so that the blocks' bounds, which
 * requests_span() and the time windows read, bound every record). requests_insert_blocks()
 * writes nothing else; a row that breaks a rule was changed behind the daemon's back, and is
 * -EUCLEAN, logged with its run and first_seq, rather than a sequence that wraps or a copy
 * past the buffer. s's columns from col: first_seq, count, first_scheduled_ns,
 * last_scheduled_ns, records. Copies the records into buf; returns their number. */
static int block_read(sqlite3_stmt *s, int col, const char *table, const char *run_id,
                      struct timeline_record buf[REQUESTS_BLOCK_RECORDS], int64_t *ret_first_seq) {
        int64_t first_seq = sqlite3_column_int64(s, col), count = sqlite3_column_int64(s, col + 1);
        int64_t first_ns = sqlite3_column_int64(s, col + 2), last_ns = sqlite3_column_int64(s, col + 3), end;
        const void *blob = sqlite3_column_blob(s, col + 4);
        int bytes = sqlite3_column_bytes(s, col + 4);
        const char *why = NULL;
        if (sqlite3_column_type(s, col) != SQLITE_INTEGER || sqlite3_column_type(s, col + 1) != SQLITE_INTEGER)
                why = "first_seq or count is not an integer";
        else if (first_seq < 0 || __builtin_add_overflow(first_seq, count, &end))
                why = "first_seq is negative or first_seq + count overflows";
        else if (count <= 0 || count > REQUESTS_BLOCK_RECORDS)
                why = "count is not 1 to a block's records (REQUESTS_BLOCK_RECORDS)";
        else if (!blob || (int64_t) bytes != count * (int64_t) sizeof *buf)
                why = "records is not count records of 40 bytes";
        if (!why) {
                /* copied first: SQLite's buffer need not be aligned for the records' int64 fields */
                memcpy(buf, blob, (size_t) bytes);
                if (buf[0].scheduled_ns != first_ns || buf[count - 1].scheduled_ns != last_ns)
                        why = "first_scheduled_ns or last_scheduled_ns is not its records'";
                for (int64_t i = 1; !why && i < count; i++)
                        if (buf[i].scheduled_ns < buf[i - 1].scheduled_ns)
                                why = "its records are not in scheduled order";
        }
        if (why) {
                log_error("run %s: the %s block at first_seq %" PRId64 " (count %" PRId64 ", %d bytes) is inconsistent: %s",
                          run_id, table, first_seq, count, bytes, why);
                return -EUCLEAN;
        }
        *ret_first_seq = first_seq;
        return (int) count;
}

int requests_block_at(struct db_conn *c, const char *run_id, int step, int64_t seq, int64_t min_scheduled_ns,
                      struct timeline_record buf[REQUESTS_BLOCK_RECORDS], int64_t *ret_first_seq) {
        static const char sql_run[] =
                "SELECT first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM requests"
                " WHERE run_id = ?1 AND first_seq > ?2 - ?4 AND first_seq + count > ?2 AND last_scheduled_ns >= ?3"
                " ORDER BY first_seq LIMIT 1";
        static const char sql_step[] =
                "SELECT first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM step_requests"
                " WHERE run_id = ?1 AND step = ?5 AND first_seq > ?2 - ?4 AND first_seq + count > ?2 AND last_scheduled_ns >= ?3"
                " ORDER BY first_seq LIMIT 1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, step < 0 ? sql_run : sql_step, run_id, &s);
        if (r < 0)
                return r;
        if (step >= 0)
                sqlite3_bind_int(s, 5, step);
        sqlite3_bind_int64(s, 2, seq);
        sqlite3_bind_int64(s, 3, min_scheduled_ns);
        /* Blocks hold REQUESTS_BLOCK_RECORDS records (the last fewer), so the one holding seq starts
         * after seq - REQUESTS_BLOCK_RECORDS: a range on the primary key, not a scan of the run. */
        sqlite3_bind_int64(s, 4, REQUESTS_BLOCK_RECORDS);
        if ((r = db_step(s)) <= 0)
                return r;
        int64_t first_seq;
        int n = block_read(s, 0, step < 0 ? "requests" : "step_requests", run_id, buf, &first_seq);
        if (n < 0)
                return n;
        /* SQL's sums turn real past INT64_MAX: only the block's own figures, checked, say that
         * it holds seq or a later record, which is what keeps a reader moving forward. */
        if (first_seq + n <= seq) {
                log_error("run %s: the block at first_seq %" PRId64 " is inconsistent: it ends before seq %" PRId64 " yet was found for it",
                          run_id, first_seq, seq);
                return -EUCLEAN;
        }
        *ret_first_seq = first_seq;
        return n;
}

int requests_check_blocks(struct db_conn *c, const char *run_id, int step) {
        /* The blocks the lookups by seq pass over without reading them; their records would be
         * missing from a timeline that says nothing. One pass over the keys, not the records. */
#define BAD_BLOCK " AND (typeof(first_seq) != 'integer' OR typeof(count) != 'integer' OR first_seq < 0" \
                  " OR count < 1 OR count > ?2 OR first_seq > 9223372036854775807 - count) LIMIT 1"
        static const char sql_run[] = "SELECT first_seq, count FROM requests WHERE run_id = ?1" BAD_BLOCK;
        static const char sql_step[] = "SELECT first_seq, count FROM step_requests WHERE run_id = ?1 AND step = ?3" BAD_BLOCK;
#undef BAD_BLOCK
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, step < 0 ? sql_run : sql_step, run_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, REQUESTS_BLOCK_RECORDS);
        if (step >= 0)
                sqlite3_bind_int(s, 3, step);
        if ((r = db_step(s)) <= 0)
                return r;
        log_error("run %s: the %s block at first_seq %s (count %s) is inconsistent: first_seq is negative, count is not 1 to"
                  " a block's records or their sum overflows", run_id, step < 0 ? "requests" : "step_requests",
                  (const char *) sqlite3_column_text(s, 0), (const char *) sqlite3_column_text(s, 1));
        return -EUCLEAN;
}

int requests_span(struct db_conn *c, const char *run_id, int64_t *ret_first_ns, int64_t *ret_last_ns) {
        static const char sql[] = "SELECT MIN(first_scheduled_ns), MAX(last_scheduled_ns) FROM requests WHERE run_id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_value(c, sql, run_id, &s);
        if (r < 0)
                return r;
        *ret_first_ns = sqlite3_column_int64(s, 0);
        *ret_last_ns = sqlite3_column_int64(s, 1);
        return 0;
}

int requests_stream(struct db_conn *c, const char *run_id, struct timeline_record buf[REQUESTS_BLOCK_RECORDS],
                    int (*fn)(const struct timeline_record *records, size_t n, void *userdata), void *userdata) {
        static const char sql[] = "SELECT first_seq, count, first_scheduled_ns, last_scheduled_ns, records FROM requests"
                                  " WHERE run_id = ? ORDER BY first_seq";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        while ((r = db_step(s)) > 0) {
                int64_t first_seq;
                int n = block_read(s, 0, "requests", run_id, buf, &first_seq);
                if (n < 0)
                        return n;
                if ((r = fn(buf, (size_t) n, userdata)) < 0)
                        return r;
        }
        return r;
}

int gc_pauses_foreach(struct db_conn *c, const char *run_id, int (*fn)(int64_t start_ns, int64_t duration_ns, void *userdata),
                      void *userdata) {
        static const char sql[] = "SELECT start_ns, duration_ns FROM gc_events"
                                  " WHERE run_id = ? AND kind IN ('pause', 'safepoint') ORDER BY start_ns, seq";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        while ((r = db_step(s)) > 0)
                if ((r = fn(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), userdata)) < 0)
                        return r;
        return r;
}

static void gc_event_row(cJSON *e, sqlite3_stmt *s) {
        row_add_int(e, "start_ns", s, 0);
        row_add_int(e, "duration_ns", s, 1);
        row_add_text(e, "kind", s, 2);
        row_add_text(e, "cause", s, 3);
        row_add_int(e, "gc_id", s, 4);
        row_add_int(e, "heap_before", s, 5);
        row_add_int(e, "heap_after", s, 6);
        row_add_int(e, "heap_capacity", s, 7);
        row_add_text(e, "collector", s, 8);
}

int gc_events_page_json(struct db_conn *c, const char *run_id, const struct gc_key *after, size_t limit, cJSON **ret,
                        struct gc_key *ret_next, bool *ret_more) {
        /* Keyset paging on (start_ns, seq): a page costs one pass with a sorter of limit rows,
         * wherever it starts, and no page repeats or skips an event. */
        static const char sql[] =
                "SELECT start_ns, duration_ns, kind, cause, gc_id, heap_before, heap_after, heap_capacity, collector, seq"
                " FROM gc_events WHERE run_id = ?1 AND (start_ns, seq) > (?2, ?3) ORDER BY start_ns, seq LIMIT ?4";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, after ? after->start_ns : INT64_MIN);
        sqlite3_bind_int64(s, 3, after ? after->seq : INT64_MIN);
        sqlite3_bind_int64(s, 4, (sqlite3_int64) limit + 1);
        _cleanup_json_ cJSON *events = cJSON_CreateArray();
        struct gc_key last = { 0 };
        size_t n = 0;
        while ((r = db_step(s)) > 0 && n < limit) {
                cJSON *e = cJSON_CreateObject();
                gc_event_row(e, s);
                cJSON_AddItemToArray(events, e);
                last = (struct gc_key){ .start_ns = sqlite3_column_int64(s, 0), .seq = sqlite3_column_int64(s, 9) };
                n++;
        }
        if (r < 0)
                return r;
        *ret_more = r > 0;      /* a row beyond the page */
        *ret_next = last;
        *ret = TAKE_PTR(events);
        return 0;
}
