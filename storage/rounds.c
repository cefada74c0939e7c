/* rounds.c: an experiment's rounds for its stop rule (see rounds.h): read from the runs table,
 * values by json_extract() from the runs' stored metrics (an imported bundle's too: every index
 * is checked before use). */
#include "storage/rounds.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "storage/run-state.h"

int rounds_ended(struct db_conn *c, const char *experiment_id, unsigned *ret) {
        /* A round whose runs were all cancelled was not run (the experiment was cancelled). */
        static const char sql[] = "SELECT iteration, sum(state IN " RUN_STATES_UNFINISHED_SQL "), sum(state <> 'cancelled')"
                                  " FROM runs WHERE experiment_id = ? GROUP BY iteration ORDER BY iteration";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, experiment_id, &s);
        if (r < 0)
                return r;
        unsigned ended = 0;
        bool open = false;
        while ((r = db_step(s)) > 0)
                if (!open && sqlite3_column_int64(s, 0) == (int64_t) ended && sqlite3_column_int64(s, 1) == 0 &&
                    sqlite3_column_int64(s, 2) > 0)
                        ended++;
                else
                        open = true;
        if (r < 0)
                return r;
        *ret = ended;
        return 0;
}

int rounds_begun(struct db_conn *c, const char *experiment_id, unsigned round, bool *ret) {
        static const char sql[] = "SELECT EXISTS (SELECT 1 FROM runs WHERE experiment_id = ?1 AND iteration = ?2 AND state <> 'queued')";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, experiment_id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, round);
        if ((r = db_step(s)) < 0)
                return r;
        if (r == 0)
                return -EBADMSG;
        *ret = sqlite3_column_int64(s, 0) != 0;
        return 0;
}

int rounds_of_run(struct db_conn *c, const char *run_id, unsigned *ret) {
        static const char sql[] = "SELECT iteration FROM runs WHERE id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, run_id, &s);
        if (r < 0)
                return r;
        int64_t it = sqlite3_column_int64(s, 0);
        if (it < 0 || it > UINT32_MAX)
                return -EBADMSG;
        *ret = (unsigned) it;
        return 0;
}

/* values[cell * rounds + round] of one metric, NaN where a run has none. */
static int read_values(struct db_conn *c, const char *experiment_id, const char *metric, size_t n_cells, unsigned rounds,
                       double *values) {
        static const char sql[] = "SELECT cell_idx, iteration, json_extract(metrics, '$.' || ?2) FROM runs"
                                  " WHERE experiment_id = ?1 AND state = 'succeeded' AND iteration < ?3 AND json_valid(metrics)";
        for (size_t i = 0; i < n_cells * rounds; i++)
                values[i] = NAN;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, experiment_id, &s);
        if (r < 0 || (r = db_bind_text(s, 2, metric)) < 0)
                return r;
        sqlite3_bind_int64(s, 3, rounds);
        while ((r = db_step(s)) > 0) {
                int64_t cell = sqlite3_column_int64(s, 0), it = sqlite3_column_int64(s, 1);
                int type = sqlite3_column_type(s, 2);
                if (cell < 0 || (uint64_t) cell >= n_cells || it < 0 || it >= rounds ||
                    (type != SQLITE_FLOAT && type != SQLITE_INTEGER))
                        continue;
                values[(size_t) cell * rounds + (size_t) it] = sqlite3_column_double(s, 2);
        }
        return r < 0 ? r : 0;
}

int rounds_evaluate(struct db_conn *c, const char *experiment_id, const struct sequential_plan *plan, unsigned rounds,
                    struct sequential_outcome *out) {
        if (plan->baseline >= plan->n_cells)
                return -EINVAL;
        _cleanup_free_ double *values = calloc(MAX(plan->n_cells * rounds, (size_t) 1), sizeof *values);
        if (!values)
                return -ENOMEM;
        double alpha = sequential_plan_alpha(plan);
        for (size_t m = 0; m < plan->n_metrics; m++) {
                int r = read_values(c, experiment_id, plan->metrics[m], plan->n_cells, rounds, values);
                if (r < 0)
                        return r;
                const double *base = values + plan->baseline * rounds;
                for (size_t cell = 0, k = 0; cell < plan->n_cells; cell++) {
                        if (cell == plan->baseline)
                                continue;
                        sequential_follow(values + cell * rounds, base, rounds, plan->min_rounds, alpha, plan->margin,
                                          &out[k++ * plan->n_metrics + m]);
                }
        }
        return 0;
}

int rounds_drop_queued(struct db_conn *c, const char *experiment_id, int64_t *ret_dropped) {
        static const char sql[] = "DELETE FROM runs WHERE experiment_id = ? AND state = 'queued'";
        struct db_txn t _cleanup_txn_ = { 0 };
        int r = db_txn_begin(c, &t);
        if (r < 0)
                return r;
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        if ((r = db_stmt_text(c, sql, experiment_id, &s)) < 0 || (r = db_step(s)) < 0)
                return r;
        int64_t dropped = sqlite3_changes(db_handle(c));
        db_stmt_resetp(&s);
        if ((r = run_state_refresh_experiment(c, experiment_id)) < 0 || (r = db_txn_commit(&t)) < 0)
                return r;
        *ret_dropped = dropped;
        return 0;
}
