/* runs.h: queries about runs that the API and the scheduler share. */
#pragma once

#include <stdint.h>

#include "db.h"

/* Runs waiting to start, and runs between preparing and collecting. */
int runs_count_queue(struct db_conn *c, int64_t *ret_queued, int64_t *ret_active);
