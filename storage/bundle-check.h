/* bundle-check.h: the rules an imported bundle's rows meet before any is stored, for
 * bundle-rows.c: each value's type, range, size, UTF-8 and JSON (the columns' rules, declared
 * with the tables in bundle-rows.c), and the rules between rows: one experiment whose definition
 * the caller reads, its cells as the definition names them, its runs each a cell's iteration at
 * one position, the blocks of a run's timeline contiguous from 0 with the records they say.
 * The rules are the daemon's own writes' (what a bundle exported by any slicelabd holds), so
 * that every read of an imported experiment works as it does where it ran. Each refusal is a 400
 * naming the entry, the row, the column and the rule. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "storage/bundle-owner.h"
#include "storage/db.h"

/* Times in ns (CLOCK_MONOTONIC or since 1970) are below 2^62 (146 years): a difference of two,
 * or one plus a duration or a clock's offset, cannot overflow. */
#define BUNDLE_NS_MAX ((INT64_C(1) << 62) - 1)
/* JSON of the rows: as deep and as large as the daemon writes with room to spare, small enough
 * that no reader's recursion or parse of it is a risk. */
#define BUNDLE_JSON_DEPTH_MAX 64
#define BUNDLE_JSON_VALUES_MAX 262144
#define BUNDLE_JSON_MAX (1024 * 1024)           /* bytes */
#define BUNDLE_TEXT_MAX 65536                   /* bytes of a message */
#define BUNDLE_SHORT_MAX 4096                   /* bytes of a slice's path, a reason, a kind */

enum { BUNDLE_VALUE_NULL, BUNDLE_VALUE_INTEGER, BUNDLE_VALUE_REAL, BUNDLE_VALUE_TEXT, BUNDLE_VALUE_BLOB };

/* One value of a row as the entry encodes it. */
struct bundle_value {
        uint8_t type;                   /* BUNDLE_VALUE_* */
        int64_t i;
        double d;
        const uint8_t *p;               /* text, blob */
        size_t len;
};

enum bundle_kind {
        BUNDLE_INTEGER,                 /* an integer in [min, max] */
        BUNDLE_REAL,                    /* a finite number (an integer too) in [min, max] */
        BUNDLE_ID,                      /* an id (basic/id.h) */
        BUNDLE_TEXT,                    /* UTF-8 of min (0 or 1) to max bytes without NUL; line breaks are text */
        BUNDLE_NAME,                    /* the same without control characters */
        BUNDLE_ENUM,                    /* one of values */
        BUNDLE_JSON_OBJECT,             /* strict JSON (basic/json-check.h) of at most max bytes */
        BUNDLE_JSON_ARRAY,
        BUNDLE_BLOB,                    /* min to max bytes */
};

/* A column of a table in the bundle: its name in the entry's header and its rule. */
struct bundle_column {
        const char *name;
        enum bundle_kind kind;
        int64_t min, max;
        const char *const *values;      /* BUNDLE_ENUM: NULL-terminated */
        const char *why;                /* why the rule, said with a refusal; may be NULL */
        bool nullable;
};

/* Where a row is, for the messages. */
struct bundle_row_at {
        const char *entry, *table;
        size_t row;                     /* 1-based in its entry */
};

/* 400 "entry E, row N, column C: <rule>" (field "table.column"); column NULL for the row. */
int bundle_row_error(struct error *err, const struct bundle_row_at *at, const char *column, const char *fmt, ...)
        _printf_(4, 5);

/* v is the text s. */
bool bundle_value_is(const struct bundle_value *v, const char *s);

int bundle_check_value(const struct bundle_column *col, const struct bundle_value *v, const struct bundle_row_at *at,
                       struct error *err);

/* The columns the rules between rows read, by position in their table. */
enum {
        COL_EXPERIMENT_ID, COL_EXPERIMENT_NAME, COL_EXPERIMENT_STATUS, COL_EXPERIMENT_DEFINITION, COL_EXPERIMENT_RUN_ORDER,
        COL_EXPERIMENT_SEED, COL_EXPERIMENT_WARNINGS, COL_EXPERIMENT_CANCEL_REQUESTED, COL_EXPERIMENT_CREATED,
        COL_EXPERIMENT_FINISHED, _COL_EXPERIMENT_MAX,
};
enum { COL_CELL_EXPERIMENT_ID, COL_CELL_IDX, COL_CELL_NAME, COL_CELL_DEFINITION, _COL_CELL_MAX };
enum {
        COL_RUN_ID, COL_RUN_EXPERIMENT_ID, COL_RUN_POSITION, COL_RUN_CELL_IDX, COL_RUN_ITERATION, COL_RUN_STATE,
        COL_RUN_REASON, COL_RUN_MESSAGE, COL_RUN_SUT_SLICE, COL_RUN_LOAD_SLICE, COL_RUN_EXIT_STATUS, COL_RUN_METRICS,
        COL_RUN_WARNINGS, COL_RUN_MEASURE_START, _COL_RUN_MAX,
};
/* A block of timeline records (requests; step_requests after its step column). */
enum { COL_BLOCK_FIRST_SEQ, COL_BLOCK_COUNT, COL_BLOCK_FIRST_SCHEDULED, COL_BLOCK_LAST_SCHEDULED, COL_BLOCK_RECORDS, _COL_BLOCK_MAX };
enum { COL_EVENT_RUN_ID, COL_EVENT_SEQ, COL_EVENT_STATE, COL_EVENT_WALL, COL_EVENT_MONO, COL_EVENT_MESSAGE, _COL_EVENT_MAX };
enum { COL_SAMPLE_RUN_ID, COL_SAMPLE_T_MS, COL_SAMPLE_DATA, _COL_SAMPLE_MAX };

/* The rules between rows, each called with a row whose values passed their columns' rules and
 * whose owner (the experiment, a run of the bundle) is the bundle's. */
typedef int bundle_row_check_fn(struct db_conn *c, struct bundle_rows_owner *o, const struct bundle_value *v,
                                const struct bundle_row_at *at, struct error *err);
bundle_row_check_fn bundle_check_experiment, bundle_check_cell, bundle_check_run, bundle_check_event,
        bundle_check_requests, bundle_check_step_requests, bundle_check_sample;

/* After every entry: the experiment, its cells and its runs are all there, each run's last
 * transition to its state. */
int bundle_check_complete(struct db_conn *c, const struct bundle_rows_owner *o, struct error *err);
