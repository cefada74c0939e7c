/* test-queue.c: the scheduler's two reads of the queue (storage/runs.c): runs_next_queued()'s
 * runs in the order they are due and runs_queued_cells()'s experiments with a bit per cell that
 * has queued runs, both limited to max and to the experiments after after_seq; and the head of
 * the queue costing the same (in SQLite's VM instructions, not time) with 10 000 runs queued as
 * with 10. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "storage/db.h"
#include "storage/runs.h"
#include "test-store.h"
#include "test-tmp.h"

/* Experiments (rowids 1, 2, 3): e1 running with cells 0-2, its first run done, its runs
 * at positions 1, 2 and 3 queued (cells 1, 2, 0); e2 queued, cells 0-1, runs at positions 0 and 1;
 * e3 succeeded, whose run left queued must not be read. */
static const char seed[] =
        "INSERT INTO experiments(id, name, status, definition, run_order, created_wall_ns) VALUES"
        " ('e1', 'e1', 'running', '{\"d\":1}', 'interleaved', 1),"
        " ('e2', 'e2', 'queued', '{\"d\":2}', 'interleaved', 2),"
        " ('e3', 'e3', 'succeeded', '{\"d\":3}', 'interleaved', 3);"
        "INSERT INTO cells(experiment_id, idx, name, definition) VALUES"
        " ('e1', 0, 'a', '{}'), ('e1', 1, 'b', '{}'), ('e1', 2, 'c', '{}'),"
        " ('e2', 0, 'a', '{}'), ('e2', 1, 'b', '{}'), ('e3', 0, 'a', '{}');"
        "INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state) VALUES"
        " ('r10', 'e1', 0, 0, 0, 'succeeded'), ('r11', 'e1', 1, 1, 0, 'queued'),"
        " ('r12', 'e1', 2, 2, 0, 'queued'), ('r13', 'e1', 3, 0, 1, 'queued'),"
        " ('r20', 'e2', 0, 0, 0, 'queued'), ('r21', 'e2', 1, 1, 0, 'queued'),"
        " ('r30', 'e3', 0, 0, 0, 'queued');"
        "UPDATE run_state_counts SET runs = (SELECT count(*) FROM runs WHERE state = run_state_counts.state);";

static struct storage *seeded_store(const char *name, char *path, size_t size) {
        struct storage *s = test_store_new(name, path, size);
        test_store_exec(path, seed);
        return s;
}

static void test_runs_in_order(void **state) {
        char path[4096];
        _cleanup_(storage_closep) struct storage *s = seeded_store("order.db", path, sizeof path);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);

        struct queued_run *q = NULL;
        size_t n = 0;
        assert_int_equal(runs_next_queued(c, 0, 10, &q, &n), 0);
        static const char *const due[] = { "r11", "r12", "r13", "r20", "r21" };
        assert_int_equal(n, 5);
        for (size_t i = 0; i < n; i++)
                assert_string_equal(q[i].id, due[i]);
        assert_string_equal(q[0].experiment_id, "e1");
        assert_int_equal(q[0].cell_idx, 1);
        assert_int_equal(q[0].experiment_seq, 1);
        assert_string_equal(q[0].definition, "{\"d\":1}");
        assert_string_equal(q[3].experiment_id, "e2");
        assert_int_equal(q[3].experiment_seq, 2);
        assert_string_equal(q[3].definition, "{\"d\":2}");
        queued_runs_free(q, n);

        assert_int_equal(runs_next_queued(c, 0, 1, &q, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(q[0].id, "r11");
        queued_runs_free(q, n);

        assert_int_equal(runs_next_queued(c, 1, 10, &q, &n), 0);
        assert_int_equal(n, 2);
        assert_string_equal(q[0].id, "r20");
        queued_runs_free(q, n);

        assert_int_equal(runs_next_queued(c, 2, 10, &q, &n), 0);
        assert_int_equal(n, 0);
        queued_runs_free(q, n);
        storage_release(s, c);
}

static void test_cells_of_the_queue(void **state) {
        char path[4096];
        _cleanup_(storage_closep) struct storage *s = seeded_store("cells.db", path, sizeof path);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);

        struct queued_cells *q = NULL;
        size_t n = 0;
        assert_int_equal(runs_queued_cells(c, 0, 10, &q, &n), 0);
        assert_int_equal(n, 2);
        assert_string_equal(q[0].experiment_id, "e1");
        assert_int_equal(q[0].experiment_seq, 1);
        assert_int_equal(q[0].cells, 0x7);     /* cells 1, 2 and 0 queued */
        assert_string_equal(q[0].definition, "{\"d\":1}");
        assert_string_equal(q[1].experiment_id, "e2");
        assert_int_equal(q[1].cells, 0x3);     /* a queued experiment: every cell */
        assert_string_equal(q[1].definition, "{\"d\":2}");
        queued_cells_free(q, n);

        /* Once e1's cell 0 has nothing queued, its bit goes. */
        test_store_exec(path, "UPDATE runs SET state = 'cancelled' WHERE id = 'r13'");
        assert_int_equal(runs_queued_cells(c, 0, 1, &q, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(q[0].cells, 0x6);
        queued_cells_free(q, n);

        assert_int_equal(runs_queued_cells(c, 1, 10, &q, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(q[0].experiment_id, "e2");
        queued_cells_free(q, n);
        storage_release(s, c);
}

static int count_step(void *arg) {
        ++*(unsigned long *) arg;
        return 0;
}

/* The VM instructions of reading the head of the queue (the schema loaded and the statement
 * prepared by a first read). */
static unsigned long head_cost(struct db_conn *c) {
        struct queued_run *q = NULL;
        size_t n = 0;
        assert_int_equal(runs_next_queued(c, 0, 1, &q, &n), 0);
        queued_runs_free(q, n);
        unsigned long steps = 0;
        sqlite3_progress_handler(db_handle(c), 1, count_step, &steps);
        assert_int_equal(runs_next_queued(c, 0, 1, &q, &n), 0);
        sqlite3_progress_handler(db_handle(c), 0, NULL, NULL);
        assert_int_equal(n, 1);
        assert_string_equal(q[0].id, "r11");
        queued_runs_free(q, n);
        return steps;
}

/* 10 000 more runs queued, in the running experiment and in a queued one behind it: the head
 * costs what it did (a sort of every queued run, as over runs_by_state, costs thousands of times
 * more). */
static void test_head_is_cheap(void **state) {
        char path[4096];
        _cleanup_(storage_closep) struct storage *s = seeded_store("head.db", path, sizeof path);
        struct db_conn *c;
        assert_int_equal(storage_acquire(s, &c), 0);
        unsigned long few = head_cost(c);
        storage_release(s, c);

        test_store_exec(path,
                "INSERT INTO experiments(id, name, status, definition, run_order, created_wall_ns)"
                " VALUES ('e4', 'e4', 'queued', '{}', 'interleaved', 4);"
                "INSERT INTO cells(experiment_id, idx, name, definition) VALUES ('e4', 0, 'a', '{}');"
                "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 4999)"
                " INSERT INTO runs(id, experiment_id, position, cell_idx, iteration, state)"
                " SELECT printf('r1x%d', i), 'e1', 10 + i, i % 3, 2 + i / 3, 'queued' FROM k"
                " UNION ALL SELECT printf('r4x%d', i), 'e4', i, 0, i, 'queued' FROM k;"
                "UPDATE run_state_counts SET runs = (SELECT count(*) FROM runs WHERE state = run_state_counts.state)");
        assert_int_equal(storage_acquire(s, &c), 0);
        unsigned long many = head_cost(c);
        storage_release(s, c);
        print_message("head of the queue: %lu VM instructions with 5 runs queued, %lu with 10 005\n", few, many);
        assert_true(many <= 2 * few);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_runs_in_order),
                cmocka_unit_test(test_cells_of_the_queue),
                cmocka_unit_test(test_head_is_cheap),
        };
        return cmocka_run_group_tests(tests, tmp_group_setup, tmp_group_teardown);
}
