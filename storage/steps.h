/* steps.h: the steps of a capacity search in the store: per run and step its rate, whether it
 * met the SLAs, its figures (JSON), and its own per-request records (blocks as in requests),
 * each step stored in one transaction. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/timeline-format.h"
#include "storage/db.h"

struct cJSON;

struct step_row {
        unsigned step;                  /* 0-based, in the order they ran */
        double rate;
        bool met;
        int64_t measure_start_ns;       /* the step timeline's clock; 0 = unknown */
        const char *data_json;          /* the step's figures and verdict (daemon/capacity) */
};

/* Replaces what the run had for that step. */
int steps_store(struct db_conn *c, const char *run_id, const struct step_row *row,
                const struct timeline_record *records, size_t n);

/* The run's steps in order, each {"step", "rate", "met", "measure_start_ns", ...data}; -ENOENT for
 * no such run (a run that is not a capacity search has none: an empty array). */
int steps_json(struct db_conn *c, const char *run_id, struct cJSON **ret);

/* A step's measure start: -ENOENT for no such run or step, -ENODATA when unknown. */
int steps_measure_start(struct db_conn *c, const char *run_id, unsigned step, int64_t *ret);
