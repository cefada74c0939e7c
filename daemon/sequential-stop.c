/* sequential-stop.c: a stop rule at the head of the queue (see sequential-stop.h): wait for the
 * round before, read the rounds ended, drop the rest once every comparison is decided. */
#include "daemon/sequential-stop.h"

#include <string.h>

#include "basic/error.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "definition/definition.h"
#include "storage/rounds.h"

static bool all_decided(const struct sequential_outcome *o, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (o[i].decision == SEQUENTIAL_UNDECIDED)
                        return false;
        return n > 0;
}

static int drop_decided(struct db_conn *db, const struct queued_run *q, unsigned rounds, unsigned max_rounds) {
        int64_t dropped = 0;
        int r = rounds_drop_queued(db, q->experiment_id, &dropped);
        if (r < 0)
                return r;
        log_full(LOG_INFO, 0, q->experiment_id, NULL,
                 "experiment %s: every comparison of its stop rule is decided after round %u of at most %u: "
                 "%lld queued run(s) not needed, dropped",
                 q->experiment_id, rounds, max_rounds, (long long) dropped);
        return SEQUENTIAL_GATE_DROPPED;
}

int sequential_gate(struct db_conn *db, const struct queued_run *q) {
        _cleanup_(definition_freep) struct definition *d = NULL;
        struct error err = { 0 };
        int r = definition_parse(q->definition, strlen(q->definition), NULL, &d, &err);
        if (r < 0)
                return r;
        if (!d->stop.enabled)
                return SEQUENTIAL_GATE_START;
        unsigned round, ended;
        if ((r = rounds_of_run(db, q->id, &round)) < 0 || (r = rounds_ended(db, q->experiment_id, &ended)) < 0)
                return r;
        if (round > ended)
                return SEQUENTIAL_GATE_WAIT;
        bool begun;
        if ((r = rounds_begun(db, q->experiment_id, round, &begun)) < 0)
                return r;
        /* decided only between rounds: a round under way (its other cells' runs in parallel) is
         * run whole, so that an experiment keeps whole rounds */
        if (begun || ended < d->stop.min_rounds)
                return SEQUENTIAL_GATE_START;
        struct sequential_plan plan;
        definition_stop_plan(d, &plan);
        size_t n = sequential_plan_comparisons(&plan);
        _cleanup_free_ struct sequential_outcome *o = calloc(MAX(n, (size_t) 1), sizeof *o);
        if (!o)
                return -ENOMEM;
        if ((r = rounds_evaluate(db, q->experiment_id, &plan, ended, o)) < 0)
                return r;
        return all_decided(o, n) ? drop_decided(db, q, ended, d->iterations) : SEQUENTIAL_GATE_START;
}
