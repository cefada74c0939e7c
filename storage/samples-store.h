/* samples-store.h: a run's 1 s series in the store (one JSON row per interval) and as
 * GET /v1/runs/{id}/samples serves them: columnar, one array per series. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "storage/db.h"

struct cJSON;

/* Replaces the run's series with n intervals (t_ms relative to the measure start, rows JSON). */
int samples_save(struct db_conn *c, const char *run_id, const int64_t *t_ms, char *const *rows, size_t n);
/* -ENOENT when there is no such run; a run without samples gives empty series. */
int samples_json(struct db_conn *c, const char *run_id, struct cJSON **ret);
