/* test-run-counts.c: the runs counted by state (schema 6's run_state_counts, which the queue's
 * limit reads) stay what COUNT(*) over the runs says, through every path that adds, moves or
 * removes a run: the migration over a store that already holds runs, a POST's insert and its
 * refusal, each transition, a run's end, the restart's interruption, a cancel, the fail-fast
 * cancel, an UPDATE from outside the daemon, an import and a refused one, a deleted experiment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/bundle-format.h"
#include "basic/json-util.h"
#include "storage/bundle-rows.h"
#include "storage/db.h"
#include "storage/experiments.h"
#include "storage/imports.h"
#include "storage/run-state.h"
#include "storage/runs.h"
#include "test-store.h"
#include "test-tmp.h"

static int64_t query_int(struct db_conn *c, const char *sql) {
        sqlite3_stmt *s;
        assert_int_equal(sqlite3_prepare_v2(db_handle(c), sql, -1, &s, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(s), SQLITE_ROW);
        int64_t v = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        return v;
}

/* Every state's kept count against a COUNT(*) of the runs, and runs_count_queue()'s two figures
 * and runs_overview()'s against theirs; names the state that drifted. */
static void assert_counts_exact(struct db_conn *c, const char *after) {
        static const char sql[] =
                "SELECT k.state, k.runs, (SELECT count(*) FROM runs r WHERE r.state = k.state) FROM run_state_counts k";
        sqlite3_stmt *s;
        assert_int_equal(sqlite3_prepare_v2(db_handle(c), sql, -1, &s, NULL), SQLITE_OK);
        int states = 0;
        while (sqlite3_step(s) == SQLITE_ROW) {
                states++;
                int64_t kept = sqlite3_column_int64(s, 1), counted = sqlite3_column_int64(s, 2);
                if (kept != counted)
                        fail_msg("after %s: %s kept as %lld, counted %lld", after, (const char *) sqlite3_column_text(s, 0),
                                 (long long) kept, (long long) counted);
        }
        sqlite3_finalize(s);
        assert_int_equal(states, _RUN_STATE_MAX);
        /* A run in a state without a row would be counted nowhere. */
        assert_int_equal(query_int(c, "SELECT sum(runs) FROM run_state_counts"), query_int(c, "SELECT count(*) FROM runs"));
        int64_t queued = -1, active = -1;
        assert_int_equal(runs_count_queue(c, &queued, &active), 0);
        assert_int_equal(queued, query_int(c, "SELECT count(*) FROM runs WHERE state = 'queued'"));
        assert_int_equal(active, query_int(c, "SELECT count(*) FROM runs WHERE state IN " RUN_STATES_ACTIVE_SQL));
        /* GET /metrics reads them too. */
        struct runs_overview o;
        assert_int_equal(runs_overview(c, &o), 0);
        for (int i = 0; i < _RUN_STATE_MAX; i++) {
                char count[128];
                snprintf(count, sizeof count, "SELECT count(*) FROM runs WHERE state = '%s'", run_state_to_string(i));
                if (o.by_state[i] != query_int(c, count))
                        fail_msg("after %s: the overview says %lld %s", after, (long long) o.by_state[i], run_state_to_string(i));
        }
}

static int64_t queued_runs(struct db_conn *c) {
        int64_t queued = -1, active = -1;
        assert_int_equal(runs_count_queue(c, &queued, &active), 0);
        return queued;
}

/* An experiment of cells x iterations runs, interleaved; its id in id. -EBUSY (nothing stored)
 * past queue_max. */
static int create(struct db_conn *c, size_t cells, unsigned iterations, int64_t queue_max, char id[static ID_LEN + 1]) {
        const char *names[] = { "a", "b", "c" }, *json[] = { "{}", "{}", "{}" };
        size_t run_cell[64];
        unsigned run_iteration[64];
        size_t n = 0;
        assert_true(cells <= ELEMENTSOF(names) && cells * iterations <= ELEMENTSOF(run_cell));
        for (unsigned i = 0; i < iterations; i++)
                for (size_t k = 0; k < cells; k++) {
                        run_cell[n] = k;
                        run_iteration[n++] = i;
                }
        /* What test_definition() reads back when the experiment is imported. */
        char definition[256];
        snprintf(definition, sizeof definition, "{\"name\":\"counted\",\"iterations\":%u,\"cells\":%zu}", iterations, cells);
        struct experiment_new e = {
                .name = "counted", .definition_json = definition, .order = "interleaved",
                .warnings_json = "[]", .n_cells = cells, .cell_names = names, .cell_json = json, .n_runs = n,
                .run_cell = run_cell, .run_iteration = run_iteration, .queue_max = queue_max,
        };
        bool existing = true;
        struct error err = { 0 };
        int r = experiments_create(c, &e, id, &existing, &err);
        if (r == 0)
                assert_false(existing);
        return r;
}

/* The id of the experiment's run at position. */
static void run_at(struct db_conn *c, const char *experiment_id, int position, char id[static ID_LEN + 1]) {
        sqlite3_stmt *s;
        assert_int_equal(sqlite3_prepare_v2(db_handle(c), "SELECT id FROM runs WHERE experiment_id = ? AND position = ?",
                                            -1, &s, NULL), SQLITE_OK);
        sqlite3_bind_text(s, 1, experiment_id, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 2, position);
        assert_int_equal(sqlite3_step(s), SQLITE_ROW);
        snprintf(id, ID_LEN + 1, "%s", (const char *) sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
}

/* Runs the experiment's run at position through the lifecycle to state, checking at each step. */
static void run_to_end(struct db_conn *c, const char *experiment_id, int position, const char *state, const char *reason) {
        static const char *const steps[] = { "preparing", "starting", "warmup", "measuring", "collecting" };
        char run[ID_LEN + 1];
        run_at(c, experiment_id, position, run);
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                assert_int_equal(runs_advance(c, run, experiment_id, steps[i], NULL, NULL), 0);
                assert_counts_exact(c, steps[i]);
        }
        assert_int_equal(runs_finish(c, run, experiment_id, state, reason, "the end", "{}", "{}", "[]"), 0);
        assert_counts_exact(c, state);
}

/* A store at schema 5 holding runs in several states (made by dropping what schemas 6 and 7
 * add): the migration counts them. */
static void test_migration_counts_the_runs_stored(void **state) {
        char path[256];
        struct storage *s = test_store_new("migrate.db", path, sizeof path);
        storage_close(s);
        test_store_exec(path, "DROP TABLE bisection_steps; DROP TABLE bisections;"
                              "DROP TABLE run_state_counts; DROP TRIGGER run_state_counts_delete;"
                              "DROP TRIGGER run_state_counts_update;"
                              "DROP INDEX runs_active; CREATE INDEX runs_by_state ON runs(state); PRAGMA user_version=5;"
                              "INSERT INTO experiments(id, name, status, definition, run_order, created_wall_ns)"
                              " VALUES ('e', 'e', 'running', '{}', 'interleaved', 1);"
                              "INSERT INTO cells(experiment_id, idx, name, definition) VALUES ('e', 0, 'c', '{}');"
                              "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state) VALUES"
                              " ('r0', 'e', 0, 0, 0, 'succeeded'), ('r1', 'e', 1, 0, 1, 'failed'), ('r2', 'e', 2, 0, 2, 'measuring'),"
                              " ('r3', 'e', 3, 0, 3, 'queued'), ('r4', 'e', 4, 0, 4, 'queued'), ('r5', 'e', 5, 0, 5, 'queued')");
        struct error err = { 0 };
        assert_int_equal(storage_open(path, &s, &err), 0);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        assert_int_equal(query_int(c, "PRAGMA user_version"), storage_schema_version());
        assert_counts_exact(c, "the migration");
        assert_int_equal(queued_runs(c), 3);
        /* And kept from there on. */
        char id[ID_LEN + 1];
        assert_int_equal(create(c, 1, 2, 0, id), 0);
        assert_int_equal(queued_runs(c), 5);
        assert_counts_exact(c, "a create after the migration");
        storage_release(s, c);
        storage_close(s);
}

/* The importer's reading of a definition (api/imports.c parses it as POST /v1/experiments does),
 * for create()'s: cells a, b, c in order, interleaved. */
static int test_definition(const char *json, size_t len, struct bundle_rows_definition *ret, struct error *err) {
        static const char *const names[] = { "a", "b", "c" };
        unsigned iterations = 0;
        size_t cells = 0;
        if (sscanf(json, "{\"name\":\"counted\",\"iterations\":%u,\"cells\":%zu}", &iterations, &cells) != 2 ||
            cells > ELEMENTSOF(names))
                return error_set(err, 400, "invalid_bundle", "definition", "not create()'s");
        struct bundle_rows_definition d = { .name = strdup("counted"), .order = "interleaved", .n_cells = cells,
                                            .cell_names = calloc(cells, sizeof(char *)), .iterations = iterations };
        assert_non_null(d.name);
        assert_non_null(d.cell_names);
        for (size_t i = 0; i < cells; i++)
                assert_non_null(d.cell_names[i] = strdup(names[i]));
        *ret = d;
        return 0;
}

/* Copies the experiment's rows from one store into another as an import does (its rows, their
 * check, its record), in one transaction committed only when all went well. 0 = imported. */
static int import_rows(struct db_conn *from, struct db_conn *to, const char *experiment_id) {
        struct bundle_rows_owner owner = { .read_definition = test_definition };
        snprintf(owner.experiment_id, sizeof owner.experiment_id, "%s", experiment_id);
        struct error err = { 0 };
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(to, &t);
        assert_int_equal(r, 0);
        for (size_t table = 0; r >= 0 && table < bundle_rows_tables(); table++) {
                int64_t offset = 0;
                for (int part = 0; r >= 0; part++) {
                        struct bundle_buf buf = { 0 };
                        size_t rows = 0;
                        assert_int_equal(bundle_rows_chunk(from, table, experiment_id, &offset, 1 << 20, &buf, &rows), 0);
                        if (rows > 0) {
                                char name[128];
                                snprintf(name, sizeof name, "tables/%s/%d", bundle_rows_table_name(table), part);
                                r = bundle_rows_load(to, name, buf.data, buf.len, &owner, &err);
                        }
                        bundle_buf_done(&buf);
                        if (rows == 0)
                                break;
                }
        }
        const struct import_origin origin = { .host = "elsewhere", .id = experiment_id, .bundle_sha256 = "00" };
        if (r >= 0)
                r = bundle_rows_check(to, &owner, &err);
        if (r >= 0)
                r = experiments_adopt_inserted(to, experiment_id);
        if (r >= 0)
                r = imports_record(to, experiment_id, &origin);
        if (r >= 0)
                r = db_txn_commit(&t);
        bundle_rows_owner_done(&owner);
        return r;
}

static void test_every_path_keeps_the_count(void **state) {
        char path[256], other_path[256];
        struct storage *s = test_store_new("paths.db", path, sizeof path);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        assert_counts_exact(c, "a new store");

        /* POSTs, and one refused past the queue's limit: nothing of it counted. */
        char a[ID_LEN + 1], b[ID_LEN + 1], refused[ID_LEN + 1], third[ID_LEN + 1];
        assert_int_equal(create(c, 2, 3, 12, a), 0);
        assert_int_equal(create(c, 2, 2, 12, b), 0);
        assert_int_equal(queued_runs(c), 10);
        assert_counts_exact(c, "two creates");
        assert_int_equal(create(c, 3, 1, 12, refused), -EBUSY);
        assert_int_equal(queued_runs(c), 10);
        assert_counts_exact(c, "a create refused with queue_full");
        assert_int_equal(create(c, 2, 1, 12, third), 0);
        assert_int_equal(queued_runs(c), 12);

        /* Transitions to each end; a transition to the state a run is in changes nothing. */
        run_to_end(c, a, 0, "succeeded", NULL);
        run_to_end(c, a, 1, "failed", "sut_exit");
        char run[ID_LEN + 1];
        run_at(c, a, 1, run);
        assert_int_equal(run_state_transition(c, run, "failed", NULL, NULL), 0);
        assert_counts_exact(c, "a transition to the same state");

        /* The restart's interruption of the runs in progress. */
        run_at(c, a, 2, run);
        assert_int_equal(runs_advance(c, run, a, "preparing", NULL, NULL), 0);
        int64_t interrupted = 0;
        assert_int_equal(runs_interrupt_unfinished(c, "restarted", &interrupted), 0);
        assert_int_equal(interrupted, 1);
        assert_counts_exact(c, "the restart's interruption");

        /* A cancel: the queued runs now, the one in progress when the loop stops it. */
        run_at(c, a, 3, run);
        assert_int_equal(runs_advance(c, run, a, "measuring", NULL, NULL), 0);
        int64_t cancelled = 0;
        cJSON *stopping = NULL;
        assert_int_equal(experiments_cancel(c, a, &cancelled, &stopping), 0);
        cJSON_Delete(stopping);
        assert_int_equal(cancelled, 2);
        assert_counts_exact(c, "a cancel");
        assert_int_equal(runs_finish(c, run, a, "cancelled", "cancelled", "stopped", NULL, NULL, NULL), 0);
        assert_counts_exact(c, "the cancelled run's end");

        /* Fail fast: two failures for the same reason cancel what is left queued. */
        run_to_end(c, b, 0, "failed", "sut_exit");
        run_to_end(c, b, 1, "failed", "sut_exit");
        char why[256];
        assert_int_equal(experiments_stop_after_failures(c, b, 2, &cancelled, why, sizeof why), 0);
        assert_int_equal(cancelled, 2);
        assert_counts_exact(c, "the fail-fast cancel");

        /* An UPDATE from outside the daemon (tests/bench/api-lib.sh's api_drop_queue). */
        test_store_exec(path, "UPDATE runs SET state = 'cancelled' WHERE state = 'queued'");
        assert_int_equal(queued_runs(c), 0);
        assert_counts_exact(c, "an UPDATE of many runs");

        /* Imports: a finished experiment of another store, and one that is not finished (refused,
         * rolled back). */
        struct storage *other = test_store_new("other.db", other_path, sizeof other_path);
        struct db_conn *o;
        assert_int_equal(storage_acquire(other, &o), 0);
        char finished[ID_LEN + 1], unfinished[ID_LEN + 1];
        assert_int_equal(create(o, 1, 2, 0, finished), 0);
        run_to_end(o, finished, 0, "succeeded", NULL);
        run_to_end(o, finished, 1, "failed", "sut_exit");
        assert_int_equal(create(o, 2, 1, 0, unfinished), 0);
        int64_t before = query_int(c, "SELECT count(*) FROM runs");
        assert_int_equal(import_rows(o, c, finished), 0);
        assert_int_equal(query_int(c, "SELECT count(*) FROM runs"), before + 2);
        assert_counts_exact(c, "an import");
        assert_true(import_rows(o, c, unfinished) < 0);
        assert_int_equal(query_int(c, "SELECT count(*) FROM runs"), before + 2);
        assert_counts_exact(c, "a refused import");
        storage_release(other, o);
        storage_close(other);

        /* A deleted experiment: its runs go by the foreign key's cascade. */
        before = query_int(c, "SELECT count(*) FROM runs");
        char sql[128];
        snprintf(sql, sizeof sql, "PRAGMA foreign_keys=ON; DELETE FROM experiments WHERE id = '%s'", a);
        test_store_exec(path, sql);
        assert_int_equal(query_int(c, "SELECT count(*) FROM runs"), before - 6);
        assert_counts_exact(c, "a deleted experiment");
        storage_release(s, c);
        storage_close(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_migration_counts_the_runs_stored),
                cmocka_unit_test(test_every_path_keeps_the_count),
        };
        return cmocka_run_group_tests(tests, tmp_group_setup, tmp_group_teardown);
}
