/* db.h: the SQLite store. One file (WAL, foreign keys on), schema migrations by
 * PRAGMA user_version, and a small pool of connections so that every thread (the event loop and
 * libmicrohttpd's workers) uses its own connection. Prepared statements only. */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>

#include "basic/error.h"
#include "basic/macro.h"

struct storage;

/* Open (creating if missing) and migrate the database at path. A file that is not a SQLite
 * database, or whose schema is newer than this binary knows, is refused and never written:
 * -ENOTRECOVERABLE / -EPROTONOSUPPORT with a one-line reason in err->message. */
int storage_open(const char *path, struct storage **ret, struct error *err);
void storage_close(struct storage *s);
DEFINE_POINTER_CLEANUP(struct storage, storage_close)

/* The newest schema version this binary knows. */
int storage_schema_version(void);

/* A connection with its own cache of prepared statements. A thread borrows one from the pool
 * for the length of a request (or, for the event loop, for its lifetime). */
struct db_conn;
sqlite3 *db_handle(struct db_conn *c);

/* Waits for a connection as long as it takes: for the event loop's own, taken once. */
int storage_acquire(struct storage *s, struct db_conn **ret);
/* Waits at most timeout_ms (STORAGE_WAIT_FOREVER: no bound) for a free connection when all
 * storage_pool_size() are lent out; -EAGAIN when none came back in time. */
#define STORAGE_WAIT_FOREVER 0xffffffffu
int storage_acquire_within(struct storage *s, unsigned timeout_ms, struct db_conn **ret);
void storage_release(struct storage *s, struct db_conn *c);
unsigned storage_pool_size(void);

/* How long a request waits for a connection before it is answered 503 (api/). Short enough
 * that a worker is never held long by an exhausted pool, long enough to ride out a burst. */
#define DB_LEASE_WAIT_MS 2000

struct db_lease {
        struct storage *storage;
        struct db_conn *conn;
};
static inline void db_lease_release(struct db_lease *l) {
        if (l->conn)
                storage_release(l->storage, l->conn);
        l->conn = NULL;
}
#define _cleanup_lease_ _cleanup_(db_lease_release)
/* A lease with the bounded wait: -EAGAIN when the pool stayed exhausted (answer 503). */
static inline int db_lease_take(struct storage *s, struct db_lease *l) {
        l->storage = s;
        l->conn = NULL;
        return storage_acquire_within(s, DB_LEASE_WAIT_MS, &l->conn);
}

/* Map a SQLite result code (extended: the connections have them on) to a negative errno
 * (BUSY/LOCKED -> -EBUSY, a PRIMARY KEY or UNIQUE constraint -> -EEXIST, any other constraint
 * (CHECK, NOT NULL, FOREIGN KEY) -> -EINVAL, NOTADB/CORRUPT -> -ENOTRECOVERABLE, FULL -> -ENOSPC,
 * ...). */
int sqlite_to_errno(int rc);

/* A prepared statement from the connection's cache, keyed by the identity of the SQL string
 * (pass string literals or other static storage: the cache grows with the statements there are
 * and never evicts one, so that a statement a caller holds stays valid). Release with the
 * cleanup, which resets it and clears its bindings. */
int db_stmt(struct db_conn *c, const char *sql, sqlite3_stmt **ret);
/* db_stmt() with ?1 bound to text: most reads are "... WHERE id = ?". */
int db_stmt_text(struct db_conn *c, const char *sql, const char *text, sqlite3_stmt **ret);
/* db_stmt_text() stepped to its first row: 0 with the row current, -ENOENT when there is none. */
int db_row_text(struct db_conn *c, const char *sql, const char *text, sqlite3_stmt **ret);
/* db_row_text() for a row whose first column must hold a value: -ENODATA when it is NULL. */
int db_row_value(struct db_conn *c, const char *sql, const char *text, sqlite3_stmt **ret);
static inline void db_stmt_resetp(sqlite3_stmt **s) {
        if (*s) {
                sqlite3_reset(*s);
                sqlite3_clear_bindings(*s);
        }
}
#define _cleanup_stmt_ _cleanup_(db_stmt_resetp)
/* sqlite3_step() mapped to 1 (row), 0 (done) or a negative errno. */
int db_step(sqlite3_stmt *s);
/* Run SQL without results (BEGIN, COMMIT, a schema script). */
int db_exec(sqlite3 *db, const char *sql);
/* Bind a NUL-terminated string (NULL binds SQL NULL) without copying: the caller keeps it alive
 * until the statement is reset. A string that is not valid UTF-8 is bound as a copy with U+FFFD
 * for each byte that begins no character (basic/utf8.h): nothing the daemon writes makes an
 * answer or a bundle invalid. */
int db_bind_text(sqlite3_stmt *s, int idx, const char *v);

/* Write transactions start with BEGIN IMMEDIATE so two writers wait on the busy handler
 * instead of failing with SQLITE_BUSY on lock upgrade; ROLLBACK on scope exit unless committed. */
struct db_txn {
        struct db_conn *conn;
        bool open;
};
int db_txn_begin(struct db_conn *c, struct db_txn *ret);
/* A read transaction: every read until it ends (the cleanup's rollback) sees one snapshot, so
 * what one request reads in several queries agrees (a body, and the status that decides whether
 * it may be kept as final). */
int db_read_begin(struct db_conn *c, struct db_txn *ret);
int db_txn_commit(struct db_txn *t);
void db_txn_rollbackp(struct db_txn *t);
#define _cleanup_txn_ _cleanup_(db_txn_rollbackp)

/* Replace a run's rows in one write transaction: delete_sql (its one parameter is the run id)
 * runs, then insert(insert_sql prepared, run_id, userdata) writes the new rows, and the
 * transaction commits when it returns >= 0. Saving a run's data twice (a collection retried)
 * leaves one copy; on failure nothing changed. */
int db_replace_run_rows(struct db_conn *c, const char *delete_sql, const char *insert_sql, const char *run_id,
                        int (*insert)(sqlite3_stmt *s, const char *run_id, void *userdata), void *userdata);
