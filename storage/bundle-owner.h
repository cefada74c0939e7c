/* bundle-owner.h: what an import's rows so far are and may touch, and what their definition says
 * they are: kept by bundle-rows.c as it inserts, read by bundle-check.c's rules between rows.
 * Its own file so that neither of the two includes the other. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/id.h"

/* What the experiment's definition says its other rows are. storage/ does not read definitions
 * (definition/ is beside it, not below): the importer's read_definition fills this. */
struct bundle_rows_definition {
        char *name;                     /* the experiment's name */
        const char *order;              /* its run_order: "interleaved", "sequential" or "random" (static) */
        bool has_seed;                  /* the definition names its random order's seed */
        uint64_t seed;
        char **cell_names;              /* n_cells, in the definition's order */
        size_t n_cells;
        unsigned iterations;
        /* iterations.min of a definition with stop, else 0: such an experiment keeps the runs
         * of its first min_rounds..iterations rounds (those not needed were never run) */
        unsigned min_rounds;
};
void bundle_rows_definition_done(struct bundle_rows_definition *d);

/* An import's rows so far: what they may touch (rows of the bundle's experiment, and of the runs
 * its runs table brought: a bundle cannot write into another experiment's rows) and what the
 * rules between rows need (storage/bundle-check.h). Zero it, set experiment_id and
 * read_definition; bundle_rows_load() fills the rest. */
struct bundle_rows_owner {
        char experiment_id[ID_LEN + 1];
        /* The experiments row's definition (UTF-8, strict JSON) read: 0 with *ret filled, or a
         * negative errno with err filled (400 naming the definition's field and rule). */
        int (*read_definition)(const char *json, size_t len, struct bundle_rows_definition *ret, struct error *err);
        char (*run_ids)[ID_LEN + 1];    /* sorted once the runs' rows are in */
        size_t n_runs;
        bool runs_sorted;
        size_t next_table;              /* entries come in the tables' order */
        bool have_experiment;
        struct bundle_rows_definition def;
        size_t n_cells;                 /* cells so far: they come in idx order */
        uint8_t *positions, *cell_runs; /* def.n_cells x def.iterations each: taken by a run */
};
void bundle_rows_owner_done(struct bundle_rows_owner *o);
