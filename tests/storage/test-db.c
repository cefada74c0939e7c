/* test-db.c: the store's migrations and refusals, and its connection pool under threads; the load
 * hosts the runs used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "storage/db.h"
#include "basic/fileio.h"
#include "basic/json-util.h"
#include "storage/experiments.h"
#include "storage/peer-hosts.h"
#include "storage/runs.h"
#include "storage/samples-store.h"
#include "storage/timeline-store.h"
#include "test-store.h"
#include "test-tmp.h"

static int user_version(const char *path) {
        sqlite3 *db;
        sqlite3_stmt *s;
        int v = -1;
        assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
        assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL), SQLITE_OK);
        if (sqlite3_step(s) == SQLITE_ROW)
                v = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
        sqlite3_close(db);
        return v;
}

/* Experiment 'e' with one cell and the runs of runs_values, "(id, experiment_id, position,
 * cell_idx, iteration, state)" rows, counted by state as the daemon's inserts are. */
static void seed_experiment(const char *path, const char *runs_values) {
        char sql[1024];
        snprintf(sql, sizeof sql,
                 "INSERT INTO experiments(id, name, status, definition, run_order, created_wall_ns)"
                 " VALUES ('e', 'e', 'running', '{}', 'interleaved', 1);"
                 "INSERT INTO cells(experiment_id, idx, name, definition) VALUES ('e', 0, 'c', '{}');"
                 "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state) VALUES %s;"
                 "UPDATE run_state_counts SET runs = (SELECT count(*) FROM runs WHERE state = run_state_counts.state);",
                 runs_values);
        test_store_exec(path, sql);
}

static void test_new_and_version0_files_migrate(void **state) {
        char path[256];
        struct storage *s = test_store_new("new.db", path, sizeof path);
        struct error err = { 0 };
        storage_close(s);
        assert_int_equal(user_version(path), storage_schema_version());

        tmp_path(path, sizeof path, tmp_group_dir, "v0.db");
        test_store_exec(path, "CREATE TABLE unrelated(x); PRAGMA user_version=0;");
        assert_int_equal(storage_open(path, &s, &err), 0);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        int64_t queued = -1, active = -1;
        assert_int_equal(runs_count_queue(c, &queued, &active), 0);
        assert_int_equal(queued, 0);
        storage_release(s, c);
        storage_close(s);
        assert_int_equal(user_version(path), storage_schema_version());
}

static void test_refusals_leave_file_untouched(void **state) {
        char path[256];
        _cleanup_free_ char *before = NULL, *after = NULL;
        size_t before_len, after_len;
        struct storage *s = NULL;
        struct error err = { 0 };

        tmp_path(path, sizeof path, tmp_group_dir, "future.db");
        test_store_exec(path, "CREATE TABLE t(x); PRAGMA user_version=1000;");
        assert_int_equal(read_file_bounded(path, 1 << 20, &before, &before_len), 0);
        assert_int_equal(storage_open(path, &s, &err), -EPROTONOSUPPORT);
        assert_null(s);
        assert_non_null(strstr(err.message, "schema version 1000 is newer"));
        assert_int_equal(read_file_bounded(path, 1 << 20, &after, &after_len), 0);
        assert_int_equal(before_len, after_len);
        assert_memory_equal(before, after, before_len);

        tmp_path(path, sizeof path, tmp_group_dir, "garbage.db");
        char junk[4096];
        for (size_t i = 0; i < sizeof junk; i++)
                junk[i] = (char) (i * 7 + 3);
        assert_int_equal(write_file_atomic(path, junk, sizeof junk, 0600), 0);
        assert_int_equal(storage_open(path, &s, &err), -ENOTRECOVERABLE);
        assert_non_null(strstr(err.message, "not a SQLite database"));
        free(after);
        after = NULL;
        assert_int_equal(read_file_bounded(path, 1 << 20, &after, &after_len), 0);
        assert_int_equal(after_len, sizeof junk);
        assert_memory_equal(after, junk, sizeof junk);
}

struct writer {
        struct storage *s;
        int id;
        int failures;
};

/* Eight threads write at once through their own leases; BEGIN IMMEDIATE plus the busy timeout
 * must make every write succeed, none surfacing SQLITE_BUSY. */
static void *writer_main(void *p) {
        struct writer *w = p;
        for (int i = 0; i < 50; i++) {
                struct db_lease lease _cleanup_lease_ = { 0 };
                if (db_lease_take(w->s, &lease) < 0) {
                        w->failures++;
                        continue;
                }
                struct db_txn t _cleanup_txn_ = { 0 };
                char sql[128];
                snprintf(sql, sizeof sql, "INSERT INTO host_snapshots(taken_wall_ns, data) VALUES (%d, '{}')", w->id * 1000 + i);
                if (db_txn_begin(lease.conn, &t) < 0 || db_exec(db_handle(lease.conn), sql) < 0 || db_txn_commit(&t) < 0)
                        w->failures++;
        }
        return NULL;
}

static void test_pool_under_concurrent_writers(void **state) {
        char path[256];
        struct storage *s = test_store_new("pool.db", path, sizeof path);
        pthread_t th[8];
        struct writer w[8];
        for (int i = 0; i < 8; i++) {
                w[i] = (struct writer){ .s = s, .id = i };
                assert_int_equal(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
        }
        for (int i = 0; i < 8; i++) {
                pthread_join(th[i], NULL);
                assert_int_equal(w[i].failures, 0);
        }
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        sqlite3_stmt *st _cleanup_stmt_ = NULL;
        assert_int_equal(db_stmt(c, "SELECT count(*) FROM host_snapshots", &st), 0);
        assert_int_equal(db_step(st), 1);
        assert_int_equal(sqlite3_column_int(st, 0), 400);
        db_stmt_resetp(&st);
        st = NULL;
        storage_release(s, c);
        storage_close(s);
}

/* Every connection lent out: a bounded wait gives up with -EAGAIN after about its bound, and
 * succeeds as soon as one comes back. */
struct returner {
        struct storage *s;
        struct db_conn *c;
};

static void *return_later(void *arg) {
        struct returner *r = arg;
        struct timespec t = { .tv_nsec = 200 * 1000000L };
        nanosleep(&t, NULL);
        storage_release(r->s, r->c);
        return NULL;
}

static int64_t mono_ms(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (int64_t) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void test_pool_bounded_wait(void **state) {
        char path[256];
        struct storage *s = test_store_new("bounded.db", path, sizeof path);
        unsigned n = storage_pool_size();
        struct db_conn *held[64];
        assert_true(n <= 64);
        for (unsigned i = 0; i < n; i++)
                assert_int_equal(storage_acquire_within(s, 100, &held[i]), 0);
        struct db_conn *c = NULL;
        int64_t start = mono_ms();
        assert_int_equal(storage_acquire_within(s, 300, &c), -EAGAIN);
        assert_null(c);
        assert_true(mono_ms() - start >= 290);

        struct returner r = { .s = s, .c = held[n - 1] };
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, return_later, &r), 0);
        assert_int_equal(storage_acquire_within(s, 60000, &c), 0);
        assert_ptr_equal(c, held[n - 1]);
        pthread_join(th, NULL);
        held[n - 1] = c;
        for (unsigned i = 0; i < n; i++)
                storage_release(s, held[i]);
        storage_close(s);
}

/* A connection given back with a statement stepped and not reset must not keep that snapshot:
 * the next borrower sees what others wrote since (a run finished, an experiment's status). */
static void test_release_resets_a_forgotten_statement(void **state) {
        char path[256];
        struct storage *s = test_store_new("forgotten.db", path, sizeof path);
        struct db_conn *reader, *writer;
        assert_int_equal(storage_acquire(s, &reader), 0);
        assert_int_equal(storage_acquire(s, &writer), 0);
        assert_int_equal(sqlite3_exec(db_handle(writer), "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);", NULL, NULL, NULL),
                         SQLITE_OK);
        sqlite3_stmt *forgotten;
        assert_int_equal(db_stmt(reader, "SELECT x FROM t", &forgotten), 0);
        assert_int_equal(db_step(forgotten), 1);   /* a row; then given back mid-read */
        storage_release(s, reader);
        assert_int_equal(sqlite3_exec(db_handle(writer), "INSERT INTO t VALUES (3)", NULL, NULL, NULL), SQLITE_OK);
        storage_release(s, writer);

        /* Whichever connection comes back first, each sees the third row. */
        struct db_conn *a, *b;
        assert_int_equal(storage_acquire(s, &a), 0);
        assert_int_equal(storage_acquire(s, &b), 0);
        struct db_conn *both[] = { a, b };
        for (size_t i = 0; i < 2; i++) {
                sqlite3_stmt *count;
                assert_int_equal(db_stmt(both[i], "SELECT count(*) FROM t", &count), 0);
                assert_int_equal(db_step(count), 1);
                assert_int_equal(sqlite3_column_int64(count, 0), 3);
                db_stmt_resetp(&count);
        }
        storage_release(s, a);
        storage_release(s, b);
        storage_close(s);
}

/* More distinct statements than any fixed cache would hold, while the first is still held and
 * mid-read: the cache must neither evict it (a use after free, under ASan) nor lose its row. The
 * texts live in static storage, as the literals of the store's callers do. */
#define MANY_STATEMENTS 300
static char many_sql[MANY_STATEMENTS][32];

static void test_statement_cache_keeps_held_statements(void **state) {
        char path[256];
        struct storage *s = test_store_new("many.db", path, sizeof path);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        for (size_t i = 0; i < MANY_STATEMENTS; i++)
                snprintf(many_sql[i], sizeof many_sql[i], "SELECT %zu", i);
        sqlite3_stmt *held = NULL;
        assert_int_equal(db_stmt(c, many_sql[0], &held), 0);
        assert_int_equal(db_step(held), 1);
        for (size_t i = 1; i < MANY_STATEMENTS; i++) {
                sqlite3_stmt *st _cleanup_stmt_ = NULL;
                assert_int_equal(db_stmt(c, many_sql[i], &st), 0);
                assert_int_equal(db_step(st), 1);
                assert_int_equal(sqlite3_column_int64(st, 0), (int64_t) i);
        }
        assert_int_equal(sqlite3_column_int64(held, 0), 0);
        assert_int_equal(db_step(held), 0);
        /* Asked again, each text gives the statement prepared the first time. */
        for (size_t i = 0; i < MANY_STATEMENTS; i++) {
                sqlite3_stmt *a, *b;
                assert_int_equal(db_stmt(c, many_sql[i], &a), 0);
                assert_int_equal(db_stmt(c, many_sql[i], &b), 0);
                assert_ptr_equal(a, b);
                assert_string_equal(sqlite3_sql(a), many_sql[i]);
        }
        db_stmt_resetp(&held);
        storage_release(s, c);
        storage_close(s);
}

static int64_t count_of(struct db_conn *c, const char *sql) {
        sqlite3_stmt *st _cleanup_stmt_ = NULL;
        assert_int_equal(db_stmt(c, sql, &st), 0);
        assert_int_equal(db_step(st), 1);
        return sqlite3_column_int64(st, 0);
}

/* A run's data saved again (a collection retried after a crash) replaces the first copy. */
static void test_run_rows_saved_twice_keep_one_copy(void **state) {
        char path[256];
        struct storage *s = test_store_new("replace.db", path, sizeof path);
        seed_experiment(path, "('r', 'e', 0, 0, 0, 'collecting')");
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);

        static struct timeline_record records[REQUESTS_BLOCK_RECORDS + 10];
        for (size_t i = 0; i < ELEMENTSOF(records); i++)
                records[i] = (struct timeline_record){ .scheduled_ns = (int64_t) i, .submit_ns = (int64_t) i,
                                                       .done_ns = (int64_t) i + 1, .status = 200 };
        assert_int_equal(requests_store(c, "r", records, ELEMENTSOF(records)), 0);
        assert_int_equal(requests_store(c, "r", records, 7), 0);
        assert_int_equal(count_of(c, "SELECT sum(count) FROM requests"), 7);

        const struct gc_event_row gc = { .start_ns = 5, .duration_ns = 1, .kind = "pause", .cause = "x",
                                         .heap_before = -1, .heap_after = -1, .heap_capacity = -1, .gc_id = -1 };
        assert_int_equal(gc_events_store(c, "r", (const struct gc_event_row[]){ gc, gc, gc }, 3), 0);
        assert_int_equal(gc_events_store(c, "r", &gc, 1), 0);
        assert_int_equal(count_of(c, "SELECT count(*) FROM gc_events"), 1);

        const int64_t t_ms[] = { 0, 1000 };
        char *rows[] = { "{\"requests\":1}", "{\"requests\":2}" };
        assert_int_equal(samples_save(c, "r", t_ms, rows, 2), 0);
        assert_int_equal(samples_save(c, "r", t_ms + 1, rows + 1, 1), 0);
        assert_int_equal(count_of(c, "SELECT count(*) FROM samples WHERE t_ms = 1000"), 1);
        assert_int_equal(count_of(c, "SELECT count(*) FROM samples"), 1);

        /* Rows of a run that does not exist are refused whole, and leave no transaction open
         * (the next save could not begin its own). */
        assert_true(requests_store(c, "missing", records, 7) < 0);
        assert_int_equal(count_of(c, "SELECT sum(count) FROM requests"), 7);
        assert_int_equal(requests_store(c, "r", records, 3), 0);
        assert_int_equal(count_of(c, "SELECT sum(count) FROM requests"), 3);
        storage_release(s, c);
        storage_close(s);
}

/* Cancel names the runs it stops from its own transaction: the run in progress, not the queued
 * one it cancels nor the finished one; a second cancel of the ended experiment stops nothing. */
static void test_cancel_names_the_runs_it_stops(void **state) {
        char path[256];
        struct storage *s = test_store_new("cancel.db", path, sizeof path);
        seed_experiment(path, "('r0', 'e', 0, 0, 0, 'succeeded'), ('r1', 'e', 1, 0, 1, 'measuring'), ('r2', 'e', 2, 0, 2, 'queued')");
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        int64_t cancelled = -1;
        cJSON *stopping = NULL;
        assert_int_equal(experiments_cancel(c, "e", &cancelled, &stopping), 0);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(stopping);
        assert_string_equal(text, "[\"r1\"]");
        assert_int_equal(cancelled, 1);
        cJSON_Delete(stopping);

        test_store_exec(path, "UPDATE runs SET state = 'cancelled' WHERE id = 'r1'; UPDATE experiments SET status = 'cancelled'");
        stopping = NULL;
        assert_int_equal(experiments_cancel(c, "e", &cancelled, &stopping), 0);
        assert_int_equal(cJSON_GetArraySize(stopping), 0);
        assert_int_equal(cancelled, 0);
        cJSON_Delete(stopping);

        stopping = (cJSON *) 1;   /* untouched on failure */
        assert_int_equal(experiments_cancel(c, "missing", &cancelled, &stopping), -ENOENT);
        assert_ptr_equal(stopping, (cJSON *) 1);
        storage_release(s, c);
        storage_close(s);
}

/* An experiment through experiments_create, labelled as labels_json says; its id in id. */
static void create_labelled(struct db_conn *c, const char *name, const char *labels_json, char id[static ID_LEN + 1]) {
        char definition[256];
        snprintf(definition, sizeof definition, "{\"name\":\"%s\",\"labels\":%s}", name, labels_json);
        const char *cell_names[] = { "a" }, *cells[] = { "{}" };
        struct experiment_new e = {
                .name = name, .definition_json = definition, .order = "interleaved", .warnings_json = "[]",
                .n_cells = 1, .cell_names = cell_names, .cell_json = cells,
        };
        bool existing = true;
        struct error err = { 0 };
        assert_int_equal(experiments_create(c, &e, id, &existing, &err), 0);
        assert_false(existing);
}

/* The ids of a list's page, space-separated, newest first; *next its cursor. */
static void list_ids(struct db_conn *c, const char *labels, int64_t limit, int64_t cursor, char *buf, size_t size,
                     int64_t *next) {
        cJSON *items = NULL;
        assert_int_equal(experiments_list_json(c, NULL, labels, limit, cursor, &items, next), 0);
        buf[0] = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, items)
                snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? " " : "",
                         cJSON_GetObjectItem(o, "id")->valuestring);
        cJSON_Delete(items);
}

/* The label filter reads experiment_labels: filled by a create, and by the migration from the
 * definitions a store of schema 4 holds (made by dropping what schemas 5 to 7 add); all pairs
 * required, newest first, paged by cursor. */
static void test_label_filter(void **state) {
        char path[256], got[256], want[256];
        struct storage *s = test_store_new("labels.db", path, sizeof path);
        test_store_exec(path, "DROP TABLE bisection_steps; DROP TABLE bisections;"
                              "DROP TABLE experiment_labels; DROP INDEX idempotency_keys_by_age; DROP TABLE run_state_counts;"
                              "DROP TRIGGER run_state_counts_delete; DROP TRIGGER run_state_counts_update; DROP INDEX runs_active;"
                              "CREATE INDEX runs_by_state ON runs(state); PRAGMA user_version=4;"
                              "INSERT INTO experiments(id, name, status, definition, run_order, created_wall_ns)"
                              " VALUES ('old', 'old', 'succeeded', '{\"labels\":{\"team\":\"perf\",\"build\":\"40\"}}', 'interleaved', 1)");
        storage_close(s);
        struct error err = { 0 };
        assert_int_equal(storage_open(path, &s, &err), 0);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        char e1[ID_LEN + 1], e2[ID_LEN + 1], e3[ID_LEN + 1];
        create_labelled(c, "e1", "{\"team\":\"perf\",\"build\":\"41\"}", e1);
        create_labelled(c, "e2", "{\"team\":\"web\",\"build\":\"41\"}", e2);
        create_labelled(c, "e3", "{\"team\":\"perf\"}", e3);
        int64_t next = -1;

        list_ids(c, "[[\"team\",\"perf\"]]", 50, 0, got, sizeof got, &next);
        snprintf(want, sizeof want, "%s %s old", e3, e1);
        assert_string_equal(got, want);
        assert_int_equal(next, 0);
        list_ids(c, "[[\"build\",\"41\"],[\"team\",\"perf\"]]", 50, 0, got, sizeof got, &next);
        assert_string_equal(got, e1);
        list_ids(c, "[[\"team\",\"perf\"],[\"build\",\"42\"]]", 50, 0, got, sizeof got, &next);
        assert_string_equal(got, "");
        list_ids(c, "[[\"team\",\"perf\"]]", 1, 0, got, sizeof got, &next);
        assert_string_equal(got, e3);
        assert_true(next > 0);
        list_ids(c, "[[\"team\",\"perf\"]]", 1, next, got, sizeof got, &next);
        assert_string_equal(got, e1);
        list_ids(c, "[[\"team\",\"perf\"]]", 1, next, got, sizeof got, &next);
        assert_string_equal(got, "old");
        assert_int_equal(next, 0);
        list_ids(c, NULL, 2, 0, got, sizeof got, &next);
        snprintf(want, sizeof want, "%s %s", e3, e2);
        assert_string_equal(got, want);
        list_ids(c, NULL, 2, next, got, sizeof got, &next);
        snprintf(want, sizeof want, "%s old", e1);
        assert_string_equal(got, want);
        storage_release(s, c);
        storage_close(s);
}

/* The load hosts the runs used (GET /v1/peers): each host's latest use with that run's clock; a
 * host whose clock the run never measured (rtt 0), an imported experiment's hosts, a run without
 * load hosts and a host that is not a string are not listed; max bounds the rows. */
struct used_rows {
        size_t n;
        struct peer_host_used rows[8];
};

static int collect_used(const struct peer_host_used *h, void *userdata) {
        struct used_rows *u = userdata;
        if (u->n == ELEMENTSOF(u->rows))
                return -E2BIG;
        u->rows[u->n++] = *h;
        return 0;
}

static void test_peer_hosts_used(void **state) {
        char path[256];
        struct storage *s = test_store_new("peer-hosts.db", path, sizeof path);
#define HOST(h, off, rtt) "{\"host\":\"" h "\",\"offset_ns\":" #off ",\"rtt_ns\":" #rtt ",\"error_ns\":" #rtt "}"
        test_store_exec(path,
                "INSERT INTO experiments(id, name, status, definition, run_order, created_wall_ns) VALUES"
                " ('e', 'e', 'succeeded', '{}', 'interleaved', 1), ('i', 'i', 'succeeded', '{}', 'interleaved', 1);"
                "INSERT INTO cells(experiment_id, idx, name, definition) VALUES ('e', 0, 'c', '{}'), ('i', 0, 'c', '{}');"
                "INSERT INTO imports(experiment_id, origin_host, origin_id, bundle_sha256, imported_wall_ns)"
                " VALUES ('i', 'lab2', 'x', '00', 1);"
                "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state, metrics) VALUES"
                " ('r0', 'e', 0, 0, 0, 'succeeded', '{\"load\":{\"hosts\":[" HOST("a", 1, 100) "," HOST("b", 5, 0) "]}}'),"
                " ('r1', 'e', 1, 0, 1, 'succeeded', '{\"load\":{\"hosts\":[" HOST("a", -2, 200) "," HOST("d", 7, 70) "]}}'),"
                " ('r2', 'e', 2, 0, 2, 'succeeded', '{\"requests\":3}'),"
                " ('r3', 'e', 3, 0, 3, 'failed', '{\"load\":{\"hosts\":[{\"host\":5,\"rtt_ns\":9}]}}'),"
                " ('ri', 'i', 0, 0, 0, 'succeeded', '{\"load\":{\"hosts\":[" HOST("c", 3, 30) "]}}');"
                "INSERT INTO run_events(run_id, seq, state, wall_ns, mono_ns) VALUES"
                " ('r0', 0, 'queued', 10, 1), ('r0', 1, 'succeeded', 20, 2), ('r1', 0, 'queued', 25, 3),"
                " ('r1', 1, 'failed', 40, 4), ('r2', 0, 'succeeded', 50, 5), ('r3', 0, 'failed', 60, 6),"
                " ('ri', 0, 'succeeded', 90, 9);");
#undef HOST
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        struct used_rows u = { 0 };
        assert_int_equal(peer_hosts_used(c, PEER_HOSTS_SCAN_MAX, collect_used, &u), 0);
        assert_int_equal(u.n, 2);
        /* Same last use (r1): by name. */
        assert_string_equal(u.rows[0].host, "a");
        assert_string_equal(u.rows[0].run_id, "r1");
        assert_int_equal(u.rows[0].used_wall_ns, 40);
        assert_true(u.rows[0].offset_ns == -2 && u.rows[0].rtt_ns == 200 && u.rows[0].error_ns == 200);
        assert_string_equal(u.rows[1].host, "d");
        u = (struct used_rows){ 0 };
        assert_int_equal(peer_hosts_used(c, 1, collect_used, &u), 0);
        assert_int_equal(u.n, 1);
        assert_string_equal(u.rows[0].host, "a");
        /* r1 deleted: a's last use is r0's, with r0's clock. */
        test_store_exec(path, "DELETE FROM run_events WHERE run_id = 'r1'; DELETE FROM runs WHERE id = 'r1';");
        u = (struct used_rows){ 0 };
        assert_int_equal(peer_hosts_used(c, PEER_HOSTS_SCAN_MAX, collect_used, &u), 0);
        assert_int_equal(u.n, 1);
        assert_string_equal(u.rows[0].run_id, "r0");
        assert_true(u.rows[0].offset_ns == 1 && u.rows[0].used_wall_ns == 20);
        storage_release(s, c);
        storage_close(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_new_and_version0_files_migrate),
                cmocka_unit_test(test_refusals_leave_file_untouched),
                cmocka_unit_test(test_pool_under_concurrent_writers),
                cmocka_unit_test(test_pool_bounded_wait),
                cmocka_unit_test(test_release_resets_a_forgotten_statement),
                cmocka_unit_test(test_statement_cache_keeps_held_statements),
                cmocka_unit_test(test_run_rows_saved_twice_keep_one_copy),
                cmocka_unit_test(test_cancel_names_the_runs_it_stops),
                cmocka_unit_test(test_label_filter),
                cmocka_unit_test(test_peer_hosts_used),
        };
        return cmocka_run_group_tests(tests, tmp_group_setup, tmp_group_teardown);
}
