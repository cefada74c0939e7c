/* rounds.h: an experiment's rounds as a stop rule reads them (issue 37): how many have ended,
 * the comparisons they decide, and dropping the runs no longer needed. A round is one iteration
 * of every cell. */
#pragma once

#include <stdbool.h>

#include "basic/sequential.h"
#include "storage/db.h"

/* The rounds from the first on whose runs have all ended (any end state), up to the first
 * whose runs were all cancelled (not run). */
int rounds_ended(struct db_conn *c, const char *experiment_id, unsigned *ret);
/* Whether a run of round (0-based) has left the queue: the round is under way. */
int rounds_begun(struct db_conn *c, const char *experiment_id, unsigned round, bool *ret);
/* The round (0-based iteration) of a run. */
int rounds_of_run(struct db_conn *c, const char *run_id, unsigned *ret);
/* The comparisons of plan over the first `rounds` rounds, each cell but the baseline (in cell
 * order) for each of its metrics: sequential_plan_comparisons(plan) entries into out. Values
 * are the succeeded runs' metrics; a round without one on either side is left out. */
int rounds_evaluate(struct db_conn *c, const char *experiment_id, const struct sequential_plan *plan, unsigned rounds,
                    struct sequential_outcome *out);
/* Deletes the experiment's queued runs (never started: nothing of them is lost) and refreshes
 * its status, in one transaction; *ret_dropped their number. */
int rounds_drop_queued(struct db_conn *c, const char *experiment_id, int64_t *ret_dropped);
