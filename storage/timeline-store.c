/* timeline-store.c: bulk inserts of a run's raw data, prepared once, in one transaction. */
#include "timeline-store.h"

int requests_store(struct db_conn *c, const char *run_id, const struct timeline_record *records, size_t n) {
        static const char sql_clear[] = "DELETE FROM requests WHERE run_id = ?";
        static const char sql[] =
                "INSERT INTO requests(run_id, first_seq, count, first_scheduled_ns, last_scheduled_ns, records)"
                " VALUES (?, ?, ?, ?, ?, ?)";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        sqlite3_stmt *clear _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql_clear, &clear)) < 0)
                return r;
        db_bind_text(clear, 1, run_id);
        if ((r = db_step(clear)) < 0 || (r = db_stmt(c, sql, &s)) < 0)
                return r;
        for (size_t first = 0; first < n; first += REQUESTS_BLOCK_RECORDS) {
                size_t count = n - first < REQUESTS_BLOCK_RECORDS ? n - first : REQUESTS_BLOCK_RECORDS;
                sqlite3_reset(s);
                db_bind_text(s, 1, run_id);
                sqlite3_bind_int64(s, 2, (int64_t) first);
                sqlite3_bind_int64(s, 3, (int64_t) count);
                sqlite3_bind_int64(s, 4, records[first].scheduled_ns);
                sqlite3_bind_int64(s, 5, records[first + count - 1].scheduled_ns);
                sqlite3_bind_blob(s, 6, &records[first], (int) (count * sizeof *records), SQLITE_STATIC);
                if ((r = db_step(s)) < 0)
                        return r;
        }
        return db_txn_commit(&t);
}

int gc_events_store(struct db_conn *c, const char *run_id, const struct gc_event_row *events, size_t n) {
        static const char sql_clear[] = "DELETE FROM gc_events WHERE run_id = ?";
        static const char sql[] =
                "INSERT INTO gc_events(run_id, seq, start_ns, duration_ns, kind, cause, heap_before, heap_after)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        sqlite3_stmt *clear _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, sql_clear, &clear)) < 0)
                return r;
        db_bind_text(clear, 1, run_id);
        if ((r = db_step(clear)) < 0 || (r = db_stmt(c, sql, &s)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const struct gc_event_row *e = &events[i];
                sqlite3_reset(s);
                db_bind_text(s, 1, run_id);
                sqlite3_bind_int64(s, 2, (int64_t) i);
                sqlite3_bind_int64(s, 3, e->start_ns);
                sqlite3_bind_int64(s, 4, e->duration_ns);
                db_bind_text(s, 5, e->kind);
                db_bind_text(s, 6, e->cause);
                if (e->heap_before >= 0)
                        sqlite3_bind_int64(s, 7, e->heap_before);
                else
                        sqlite3_bind_null(s, 7);
                if (e->heap_after >= 0)
                        sqlite3_bind_int64(s, 8, e->heap_after);
                else
                        sqlite3_bind_null(s, 8);
                if ((r = db_step(s)) < 0)
                        return r;
        }
        return db_txn_commit(&t);
}
