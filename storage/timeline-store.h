/* timeline-store.h: a run's raw data in the store: per-request records in blocks (see the
 * requests table) and GC/safepoint events. Each call is one transaction. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "storage/db.h"
#include "basic/timeline-format.h"

#define REQUESTS_BLOCK_RECORDS 4096

/* records sorted by scheduled_ns; replaces what the run had. */
int requests_store(struct db_conn *c, const char *run_id, const struct timeline_record *records, size_t n);

struct gc_event_row {
        int64_t start_ns, duration_ns;
        const char *kind, *cause, *collector;   /* collector NULL = unknown */
        int64_t heap_before, heap_after, heap_capacity, gc_id; /* -1 = unknown */
};
int gc_events_store(struct db_conn *c, const char *run_id, const struct gc_event_row *events, size_t n);

/* Bind the blocks of records to insert's parameters first_param.. (first_seq, count,
 * first_scheduled_ns, last_scheduled_ns, records) and step it per block; the parameters before
 * first_param stay bound. For requests_store() and a capacity step's records (storage/steps). */
int requests_insert_blocks(sqlite3_stmt *insert, int first_param, const struct timeline_record *records, size_t n);

/* The block holding the first record at or after seq whose block may contain a scheduled time
 * >= min_scheduled_ns, of the run's timeline (step < 0) or of a capacity step's. Copies up to
 * REQUESTS_BLOCK_RECORDS records into buf; 0 = no more. Returns the number of records copied,
 * *ret_first_seq the seq of buf[0]; the block ends after seq (*ret_first_seq + n > seq, no
 * overflow), so a reader that goes on from its end always moves forward. -EUCLEAN (logged) for
 * a block no daemon writes: see block_read() in timeline-store.c for the rules. */
int requests_block_at(struct db_conn *c, const char *run_id, int step, int64_t seq, int64_t min_scheduled_ns,
                      struct timeline_record buf[REQUESTS_BLOCK_RECORDS], int64_t *ret_first_seq);

/* -EUCLEAN (logged) when a block of the run's timeline (step < 0) or of a capacity step's has a
 * first_seq or count that requests_block_at() would pass over without reading it (negative,
 * not 1..REQUESTS_BLOCK_RECORDS, or a sum that overflows), so that a reader does not serve a
 * timeline with records missing as if it were whole; 0 otherwise. */
int requests_check_blocks(struct db_conn *c, const char *run_id, int step);

/* The first and last scheduled_ns of the run's stored records (of every phase); -ENODATA when
 * it has none. Read from the blocks' bounds, not the records. */
int requests_span(struct db_conn *c, const char *run_id, int64_t *ret_first_ns, int64_t *ret_last_ns);

/* Every stored record of the run in seq order, one block at a time copied into buf and handed
 * to fn (one query for the whole run: a reader that wants all of it, as findings do, pays no
 * per-block lookup). Stops at fn's first negative return, which it returns; 0 at the end;
 * -EUCLEAN at an inconsistent block, as requests_block_at(). */
int requests_stream(struct db_conn *c, const char *run_id, struct timeline_record buf[REQUESTS_BLOCK_RECORDS],
                    int (*fn)(const struct timeline_record *records, size_t n, void *userdata), void *userdata);

/* The run's GC pauses and safepoints in start order, each handed to fn as start and duration;
 * stops at fn's first negative return. */
int gc_pauses_foreach(struct db_conn *c, const char *run_id, int (*fn)(int64_t start_ns, int64_t duration_ns, void *userdata),
                      void *userdata);

struct cJSON;
/* Where a page of GC events ends: the last event's start and sequence number. */
struct gc_key {
        int64_t start_ns;
        int64_t seq;
};
/* Up to limit GC and safepoint events of a run after *after (NULL: from the first), in start
 * order, as {"start_ns","duration_ns","kind","cause","gc_id","heap_before","heap_after",
 * "heap_capacity","collector"}; *ret_more says whether events follow, from *ret_next on. */
int gc_events_page_json(struct db_conn *c, const char *run_id, const struct gc_key *after, size_t limit,
                        struct cJSON **ret, struct gc_key *ret_next, bool *ret_more);
