/* db.c: opening the store, migrating it, and lending connections to threads. */
#include "storage/db.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "basic/log.h"
#include "basic/utf8.h"
#include "storage/schema.h"

#define POOL_MAX 32
#define BUSY_TIMEOUT_MS 10000
/* The cache grows with the statements the program has and never evicts: a caller may hold any
 * statement it was given until its cleanup, so finalising one to make room would free it under
 * that caller. The bound only catches a caller that passes SQL built at run time. */
#define STMT_CACHE_INITIAL 64
#define STMT_CACHE_MAX 4096

struct stmt_slot {
        const char *sql;
        sqlite3_stmt *stmt;
};

struct db_conn {
        sqlite3 *db;
        struct stmt_slot *cache; /* open addressing on the SQL's address, a power of two long */
        size_t cache_size;
        size_t cache_used;
};

struct storage {
        char *path;
        pthread_mutex_t lock;
        pthread_cond_t returned;
        struct db_conn *idle[POOL_MAX];
        size_t n_idle;
        size_t n_open;
};

int sqlite_to_errno(int rc) {
        switch (rc & 0xff) {
        case SQLITE_OK:
        case SQLITE_ROW:
        case SQLITE_DONE:
                return 0;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
                return -EBUSY;
        case SQLITE_CONSTRAINT:
                /* Only a key that is taken is a clash (a 409 where the API says so); a CHECK, NOT
                 * NULL or foreign key failure is a value that breaks a rule of the schema. */
                return rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_ROWID
                               ? -EEXIST
                               : -EINVAL;
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_READONLY:
        case SQLITE_PERM:
        case SQLITE_AUTH:
                return -EACCES;
        case SQLITE_CANTOPEN:
                return -ENOENT;
        case SQLITE_NOTADB:
        case SQLITE_CORRUPT:
                return -ENOTRECOVERABLE;
        case SQLITE_TOOBIG:
                return -E2BIG;
        default:
                return -EIO;
        }
}

sqlite3 *db_handle(struct db_conn *c) {
        return c->db;
}

int db_exec(sqlite3 *db, const char *sql) {
        int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK)
                return log_full(LOG_DEBUG, sqlite_to_errno(rc), NULL, NULL, "sqlite: %s: %s",
                                sqlite3_errmsg(db), sql);
        return 0;
}

int db_step(sqlite3_stmt *s) {
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        log_debug("sqlite step: %s", sqlite3_errmsg(sqlite3_db_handle(s)));
        return sqlite_to_errno(rc);
}

int db_bind_text(sqlite3_stmt *s, int idx, const char *v) {
        int rc;
        size_t len = v ? strlen(v) : 0;
        if (!v)
                rc = sqlite3_bind_null(s, idx);
        else if (utf8_valid(v, len))
                rc = sqlite3_bind_text(s, idx, v, -1, SQLITE_STATIC);
        else {
                /* What the daemon writes is served as JSON and exported in bundles that an import
                 * checks for UTF-8: a string made of a program's output (a SUT's last lines, a
                 * GC cause) keeps its readable part, U+FFFD for the rest. */
                char *clean = utf8_sanitize_dup(v, len);
                rc = clean ? sqlite3_bind_text(s, idx, clean, -1, free) : SQLITE_NOMEM;
        }
        return rc == SQLITE_OK ? 0 : sqlite_to_errno(rc);
}

int db_stmt_text(struct db_conn *c, const char *sql, const char *text, sqlite3_stmt **ret) {
        sqlite3_stmt *s;
        int r = db_stmt(c, sql, &s);
        if (r < 0 || (r = db_bind_text(s, 1, text)) < 0)
                return r;
        *ret = s;
        return 0;
}

int db_row_value(struct db_conn *c, const char *sql, const char *text, sqlite3_stmt **ret) {
        sqlite3_stmt *s;
        int r = db_row_text(c, sql, text, &s);
        if (r < 0)
                return r;
        if (sqlite3_column_type(s, 0) == SQLITE_NULL) {
                db_stmt_resetp(&s);
                return -ENODATA;
        }
        *ret = s;
        return 0;
}

int db_row_text(struct db_conn *c, const char *sql, const char *text, sqlite3_stmt **ret) {
        sqlite3_stmt *s;
        int r = db_stmt_text(c, sql, text, &s);
        if (r < 0)
                return r;
        r = db_step(s);
        if (r <= 0) {
                db_stmt_resetp(&s);
                return r < 0 ? r : -ENOENT;
        }
        *ret = s;
        return 0;
}

static size_t stmt_slot_of(const struct stmt_slot *cache, size_t size, const char *sql) {
        /* Fibonacci hashing: the product's high bits mix all of the address, whose low bits
         * (alignment) say little. */
        size_t i = (size_t) (((uint64_t) (uintptr_t) sql * 0x9e3779b97f4a7c15ull) >> 32);
        for (i &= size - 1; cache[i].sql && cache[i].sql != sql; i = (i + 1) & (size - 1))
                ;
        return i;
}

static int stmt_cache_grow(struct db_conn *c) {
        size_t size = c->cache_size ? c->cache_size * 2 : STMT_CACHE_INITIAL;
        if (size > STMT_CACHE_MAX)
                return log_error_errno(-E2BIG, "storage: more than %d distinct statements on one connection; "
                                               "is SQL built at run time passed to db_stmt()?", STMT_CACHE_MAX / 2);
        struct stmt_slot *cache = calloc(size, sizeof *cache);
        if (!cache)
                return -ENOMEM;
        for (size_t i = 0; i < c->cache_size; i++)
                if (c->cache[i].sql)
                        cache[stmt_slot_of(cache, size, c->cache[i].sql)] = c->cache[i];
        free(c->cache);
        c->cache = cache;
        c->cache_size = size;
        return 0;
}

int db_stmt(struct db_conn *c, const char *sql, sqlite3_stmt **ret) {
        if (c->cache_size) {
                struct stmt_slot *slot = &c->cache[stmt_slot_of(c->cache, c->cache_size, sql)];
                if (slot->sql) {
                        *ret = slot->stmt;
                        return 0;
                }
        }
        /* Keep the table at most half full, so that probes stay short. */
        if (2 * (c->cache_used + 1) > c->cache_size) {
                int r = stmt_cache_grow(c);
                if (r < 0)
                        return r;
        }
        sqlite3_stmt *stmt;
        int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
        if (rc != SQLITE_OK)
                return log_error_errno(sqlite_to_errno(rc), "sqlite prepare: %s",
                                       sqlite3_errmsg(c->db));
        c->cache[stmt_slot_of(c->cache, c->cache_size, sql)] = (struct stmt_slot){ .sql = sql, .stmt = stmt };
        c->cache_used++;
        *ret = stmt;
        return 0;
}

static int txn_begin(struct db_conn *c, const char *begin, struct db_txn *ret) {
        int r = db_exec(c->db, begin);
        if (r < 0)
                return r;
        *ret = (struct db_txn){ .conn = c, .open = true };
        return 0;
}

int db_txn_begin(struct db_conn *c, struct db_txn *ret) {
        return txn_begin(c, "BEGIN IMMEDIATE", ret);
}

int db_read_begin(struct db_conn *c, struct db_txn *ret) {
        /* Deferred: the snapshot is taken by the first read, and no writer waits for it. */
        return txn_begin(c, "BEGIN DEFERRED", ret);
}

int db_txn_commit(struct db_txn *t) {
        int r = db_exec(t->conn->db, "COMMIT");
        if (r < 0)
                return r; /* still open: the cleanup rolls it back */
        t->open = false;
        return 0;
}

void db_txn_rollbackp(struct db_txn *t) {
        if (t->conn && t->open)
                (void) db_exec(t->conn->db, "ROLLBACK");
        t->open = false;
}

int db_replace_run_rows(struct db_conn *c, const char *delete_sql, const char *insert_sql, const char *run_id,
                        int (*insert)(sqlite3_stmt *s, const char *run_id, void *userdata), void *userdata) {
        struct db_txn txn _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &txn);
        if (r < 0)
                return r;
        sqlite3_stmt *clear _cleanup_stmt_ = NULL, *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt(c, delete_sql, &clear)) < 0)
                return r;
        db_bind_text(clear, 1, run_id);
        if ((r = db_step(clear)) < 0 || (r = db_stmt(c, insert_sql, &s)) < 0 || (r = insert(s, run_id, userdata)) < 0)
                return r;
        return db_txn_commit(&txn);
}

static void conn_free(struct db_conn *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->cache_size; i++)
                sqlite3_finalize(c->cache[i].stmt);
        free(c->cache);
        sqlite3_close_v2(c->db);
        free(c);
}
DEFINE_POINTER_CLEANUP(struct db_conn, conn_free)

/* Every connection, the first one included, is configured the same way; the first only once
 * the file is known to be ours (a pragma on a foreign file would be the first write to it). */
static int conn_configure(struct db_conn *c) {
        /* Reads of timeline blocks go through the page cache without a pread per page. In WAL
         * mode, synchronous=NORMAL keeps every commit atomic and the file consistent; a power
         * loss may drop the last commits, not corrupt. */
        return db_exec(c->db, "PRAGMA foreign_keys=ON; PRAGMA mmap_size=268435456; PRAGMA synchronous=NORMAL");
}

static int conn_open(const char *path, int flags, bool configure, struct db_conn **ret) {
        _cleanup_(conn_freep) struct db_conn *c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        int rc = sqlite3_open_v2(path, &c->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return sqlite_to_errno(rc);
        sqlite3_extended_result_codes(c->db, 1);
        sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
        if (configure) {
                int r = conn_configure(c);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(c);
        return 0;
}

DEFINE_POINTER_CLEANUP(sqlite3_stmt, sqlite3_finalize)

static int read_user_version(sqlite3 *db, int *ret) {
        sqlite3_stmt *raw;
        int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &raw, NULL);
        if (rc != SQLITE_OK)
                return sqlite_to_errno(rc);
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *s = raw;
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return sqlite_to_errno(rc);
        *ret = sqlite3_column_int(s, 0);
        return 0;
}

/* Apply every migration above the file's version, each in its own transaction together with
 * the user_version bump, so a crash mid-way leaves a consistent, resumable file. */
static int migrate(struct db_conn *c, int from, const char *path, struct error *err) {
        const struct migration *m;
        size_t n = schema_migrations(&m);
        for (size_t i = (size_t) from; i < n; i++) {
                struct db_txn t _cleanup_txn_ = { 0 };
                int r = db_txn_begin(c, &t);
                if (r >= 0)
                        r = db_exec(c->db, m[i].sql);
                char bump[64];
                snprintf(bump, sizeof bump, "PRAGMA user_version=%zu", i + 1);
                if (r >= 0)
                        r = db_exec(c->db, bump);
                if (r >= 0)
                        r = db_txn_commit(&t);
                if (r < 0) {
                        error_set(err, 500, "storage", NULL, "%s: migration to schema %zu (%s) failed: %s",
                                  path, i + 1, m[i].name, sqlite3_errmsg(c->db));
                        return r;
                }
                log_info("%s: migrated to schema %zu (%s)", path, i + 1, m[i].name);
        }
        return 0;
}

int storage_schema_version(void) {
        const struct migration *m;
        return (int) schema_migrations(&m);
}

int storage_open(const char *path, struct storage **ret, struct error *err) {
        _cleanup_(conn_freep) struct db_conn *c = NULL;
        int r = conn_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, false, &c);
        if (r < 0) {
                error_set(err, 500, "storage", NULL, "%s: cannot open database: %s", path, strerror(-r));
                return r;
        }
        /* Look before writing anything: a foreign or newer file must stay exactly as it is. */
        int version = 0;
        r = read_user_version(c->db, &version);
        if (r < 0) {
                error_set(err, 500, "storage", NULL, "%s: not a SQLite database (%s); refusing to touch it",
                          path, sqlite3_errmsg(c->db));
                return -ENOTRECOVERABLE;
        }
        if (version > storage_schema_version()) {
                error_set(err, 500, "storage", NULL,
                          "%s: schema version %d is newer than this slicelabd knows (%d); refusing to touch it",
                          path, version, storage_schema_version());
                return -EPROTONOSUPPORT;
        }
        /* A new file gets 16 KiB pages: timeline blocks (160 KiB blobs) then take a few pages,
         * not a chain of forty, at ingest and when streamed. Only before the first table. */
        r = version == 0 ? db_exec(c->db, "PRAGMA page_size=16384") : 0;
        if (r >= 0)
                r = conn_configure(c);
        if (r >= 0)
                r = db_exec(c->db, "PRAGMA journal_mode=WAL");
        if (r < 0) {
                error_set(err, 500, "storage", NULL, "%s: cannot enable WAL: %s", path, sqlite3_errmsg(c->db));
                return r;
        }
        r = migrate(c, version, path, err);
        if (r < 0)
                return r;

        _cleanup_free_ struct storage *s = calloc(1, sizeof *s);
        if (!s || !(s->path = strdup(path))) {
                free(s ? s->path : NULL);
                return -ENOMEM;
        }
        pthread_mutex_init(&s->lock, NULL);
        /* Bounded waits are measured on the monotonic clock: a clock step must not stretch them. */
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&s->returned, &attr);
        pthread_condattr_destroy(&attr);
        s->idle[s->n_idle++] = TAKE_PTR(c);
        s->n_open = 1;
        *ret = TAKE_PTR(s);
        return 0;
}

void storage_close(struct storage *s) {
        if (!s)
                return;
        /* Every lease must have been returned: connections are owned by the pool. */
        if (s->n_idle != s->n_open)
                log_error("storage: closing with %zu connection(s) still lent out", s->n_open - s->n_idle);
        for (size_t i = 0; i < s->n_idle; i++)
                conn_free(s->idle[i]);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->returned);
        free(s->path);
        free(s);
}

unsigned storage_pool_size(void) {
        return POOL_MAX;
}

static struct timespec deadline_after_ms(unsigned ms) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_sec += ms / 1000;
        t.tv_nsec += (long) (ms % 1000) * 1000000L;
        if (t.tv_nsec >= 1000000000L) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000L;
        }
        return t;
}

int storage_acquire(struct storage *s, struct db_conn **ret) {
        return storage_acquire_within(s, STORAGE_WAIT_FOREVER, ret);
}

int storage_acquire_within(struct storage *s, unsigned timeout_ms, struct db_conn **ret) {
        struct timespec deadline = deadline_after_ms(timeout_ms == STORAGE_WAIT_FOREVER ? 0 : timeout_ms);
        pthread_mutex_lock(&s->lock);
        while (s->n_idle == 0 && s->n_open >= POOL_MAX) {
                if (timeout_ms == STORAGE_WAIT_FOREVER)
                        pthread_cond_wait(&s->returned, &s->lock);
                else if (pthread_cond_timedwait(&s->returned, &s->lock, &deadline) == ETIMEDOUT &&
                         s->n_idle == 0 && s->n_open >= POOL_MAX) {
                        pthread_mutex_unlock(&s->lock);
                        return -EAGAIN;
                }
        }
        if (s->n_idle > 0) {
                *ret = s->idle[--s->n_idle];
                pthread_mutex_unlock(&s->lock);
                return 0;
        }
        s->n_open++; /* reserve the slot, open outside the lock */
        pthread_mutex_unlock(&s->lock);

        struct db_conn *c;
        int r = conn_open(s->path, SQLITE_OPEN_READWRITE, true, &c);
        if (r < 0) {
                pthread_mutex_lock(&s->lock);
                s->n_open--;
                pthread_cond_signal(&s->returned);
                pthread_mutex_unlock(&s->lock);
                return log_error_errno(r, "storage: cannot open another connection to %s", s->path);
        }
        *ret = c;
        return 0;
}

/* A statement stepped and never reset keeps its read transaction open, and with it a snapshot:
 * every later reader on this connection would see the database as it was then (a run still
 * queued, an experiment still running). Reset, and say which, as it is a bug where it came from. */
static void reset_busy_statements(struct db_conn *c) {
        for (sqlite3_stmt *st = sqlite3_next_stmt(c->db, NULL); st; st = sqlite3_next_stmt(c->db, st))
                if (sqlite3_stmt_busy(st)) {
                        log_warning("storage: a statement was given back unreset: %s", sqlite3_sql(st));
                        sqlite3_reset(st);
                }
}

void storage_release(struct storage *s, struct db_conn *c) {
        reset_busy_statements(c);
        /* A statement left mid-transaction by an error path must not leak into the next user. */
        if (!sqlite3_get_autocommit(c->db))
                (void) db_exec(c->db, "ROLLBACK");
        pthread_mutex_lock(&s->lock);
        s->idle[s->n_idle++] = c;
        pthread_cond_signal(&s->returned);
        pthread_mutex_unlock(&s->lock);
}
