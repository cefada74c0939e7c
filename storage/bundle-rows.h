/* bundle-rows.h: an experiment's rows in the store as bundle entries, and back. Every table that
 * holds something of an experiment (the experiment, its cells, runs, transitions, metrics,
 * timeline blocks, GC events, samples, host facts, capacity steps) is dumped as entries named
 * "tables/<table>/<n>" of this encoding:
 *
 *   u16 number of columns, then per column: u8 name length, name
 *   rows until the entry ends, per value: u8 type (0 NULL, 1 integer: i64, 2 real: IEEE double,
 *   3 text: u32 length + UTF-8, 4 blob: u32 length + bytes)
 *
 * so that an import stores exactly what the origin stored and every read answers the same. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/bundle-format.h"
#include "basic/error.h"
#include "basic/id.h"
#include "storage/bundle-owner.h"
#include "storage/db.h"

/* The tables in the order an import must insert them (a run's rows after the run). */
size_t bundle_rows_tables(void);
const char *bundle_rows_table_name(size_t table);

/* Appends to out the rows of the experiment in table from *offset on, with the column header,
 * until out holds at least max bytes or the rows end; *offset moves past them. *ret_rows: how
 * many were added (0: none left, out untouched). */
int bundle_rows_chunk(struct db_conn *c, size_t table, const char *experiment_id, int64_t *offset, size_t max,
                      struct bundle_buf *out, size_t *ret_rows);


/* Inserts an entry's rows into the table it names, inside the caller's transaction, each checked
 * first (storage/bundle-check.h). 400 with err naming the entry, row, column and rule for a table
 * or column set this version does not know, an entry out of the tables' order, a value cut short,
 * of the wrong type, out of its range or not what the daemon writes, a row of another experiment
 * or run, a row that repeats another's key, a row at odds with the rows before it; 409 when the
 * experiment's or a run's id is taken here by another experiment. */
int bundle_rows_load(struct db_conn *c, const char *entry_name, const uint8_t *data, size_t len,
                     struct bundle_rows_owner *o, struct error *err);

/* After every entry: the experiment is there with all its cells and runs (it is finished, each of
 * its runs ended: the rows' own rules), each run's last transition to the state it is in. */
int bundle_rows_check(struct db_conn *c, const struct bundle_rows_owner *o, struct error *err);
