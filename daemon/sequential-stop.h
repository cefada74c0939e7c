/* sequential-stop.h: the scheduler's side of a definition's stop rule (issue 37). */
#pragma once

#include "storage/db.h"
#include "storage/runs.h"

enum sequential_gate {
        SEQUENTIAL_GATE_WAIT,           /* an earlier round of its experiment has not ended */
        SEQUENTIAL_GATE_START,
        SEQUENTIAL_GATE_DROPPED,        /* decided: the experiment's queued runs, q's too, are gone */
};

/* Whether the head of the queue q may start. A run of round k waits until rounds 0..k-1 have
 * ended; from iterations.min on, at the start of a round (none of its runs begun), those rounds
 * are read and, when they decide every comparison, the runs not needed are dropped. Read from the store at the head of the queue, so a daemon
 * restarted between rounds decides as it would have. Any run of an experiment without stop
 * starts. */
int sequential_gate(struct db_conn *db, const struct queued_run *q);
