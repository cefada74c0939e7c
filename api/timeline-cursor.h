/* timeline-cursor.h: reading a run's stored timeline record by record, block by block, within a
 * scheduled-time window and phases: what the timeline pages, streams and buckets share. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "api/server.h"
#include "basic/id.h"
#include "storage/db.h"
#include "storage/timeline-store.h"

enum { PHASE_MEASURE = 1, PHASE_WARMUP = 2 };

struct timeline_cursor {
        struct db_lease lease;
        char run_id[ID_LEN + 1];
        int step;                       /* a capacity search's step (?step=N), or -1: the run's timeline */
        int64_t measure_start_ns;
        int64_t next_seq;
        int64_t from_ns, to_ns;         /* absolute scheduled window [from, to) */
        unsigned phases;
        struct timeline_record block[REQUESTS_BLOCK_RECORDS];
        size_t block_n, block_pos;
        int64_t block_first_seq;
        bool done;
        bool finished;                  /* the run ended: its timeline no longer changes */
};

/* The run of the path's {id} (the router checked it) with the request's lease, which the cursor
 * takes over (the caller releases c->lease). */
void timeline_cursor_attach(struct api_request *req, struct timeline_cursor *c);
/* timeline_cursor_attach(), then the run's measure start and whether it finished, and
 * timeline_cursor_check(); 0, or -1 with err set (404 unknown run or no timeline yet, 500). */
int timeline_cursor_open(struct api_request *req, struct timeline_cursor *c, struct error *err);

/* The next record that passes the filters; 1 with *ret, 0 at the end, -errno. */
int timeline_cursor_next(struct timeline_cursor *c, const struct timeline_record **ret, int64_t *ret_seq);

/* The run's blocks that a read by seq would pass over (requests_check_blocks()): 0, or -1 with
 * err set (500 stored_data_inconsistent, 500). Part of timeline_cursor_open(). */
int timeline_cursor_check(struct timeline_cursor *c, struct error *err);
/* 500 stored_data_inconsistent naming the cursor's run: -EUCLEAN. */
int timeline_cursor_inconsistent(const struct timeline_cursor *c, struct error *err);
/* api_reply_errno() for a failed read through the cursor, naming its run. */
enum MHD_Result timeline_cursor_reply_errno(struct api_request *req, const struct timeline_cursor *c, int r);

/* start_ns + ms milliseconds into *ret; -EUCLEAN (no *ret) when that does not fit in int64: the
 * queries bound ms, so only a stored time no clock gives gets there. */
int timeline_ns_at(int64_t start_ns, int64_t ms, int64_t *ret);
/* a - b nanoseconds in whole milliseconds, rounded down; -EUCLEAN as above. */
int timeline_ms_between(int64_t a_ns, int64_t b_ns, int64_t *ret);

/* ?phase=measure (the default), warmup or all, as PHASE_* bits. */
int timeline_query_phase(struct api_request *req, unsigned *ret, struct error *err);
