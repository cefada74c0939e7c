/* timeline-ring.h: the injector's timeline writer. Requests are numbered in schedule order and
 * finish in any order; each record is filled in its slot of a ring and marked ready, and the
 * ring is written to the file in blocks (80 KiB) once a whole block is ready, so the file is in
 * schedule order and costs one write() per 2048 records. Blocks are kept this small because the
 * loop waits for the write: 640 KiB took 1-1.5 ms here, a stall that showed up as lag. The ring
 * belongs to one event loop (with --threads, each loop has its own, written to a file of its own
 * and merged at the end, basic/timeline-merge.h); the flush lock is uncontended then. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/timeline-format.h"

#define TIMELINE_BLOCK_RECORDS 2048u

enum {
        RING_EMPTY = 0,
        RING_READY = 1,
        RING_DISCARDED = 2,
};

struct timeline_ring {
        struct timeline_record *records;
        atomic_uchar *ready;            /* per slot: RING_READY or RING_DISCARDED once settled */
        uint64_t capacity;              /* records; a power of two, whole blocks */
        uint64_t mask;
        atomic_uint_fast64_t flushed;   /* records [0, flushed) are written; their slots are free */
        uint64_t scanned;               /* records [0, scanned) are ready (flusher's own) */
        uint64_t written;               /* records in the file (discarded ones are not) */
        atomic_uint discarded;          /* slots discarded so far: writes must skip them */
        int fd;
        int error;                      /* first write error, sticky */
        pthread_mutex_t flush_lock;
};

/* capacity is rounded up to a power of two of at least 2 blocks. The ring writes to fd at its
 * current offset: write the header first. */
int timeline_ring_init(struct timeline_ring *r, int fd, uint64_t capacity);
void timeline_ring_done(struct timeline_ring *r);

int timeline_ring_write_header(int fd, int64_t start_ns, int64_t measure_start_ns);
/* Put a header at the start of fd again (the measure phase began earlier than the one written
 * said), without moving the file position, O_APPEND or not. 0 or a negative errno. */
int timeline_ring_rewrite_header(int fd, int64_t start_ns, int64_t measure_start_ns);

/* May record k be claimed now (is its slot free)? */
static inline bool timeline_ring_has_room(struct timeline_ring *r, uint64_t k) {
        return k < atomic_load_explicit(&r->flushed, memory_order_acquire) + r->capacity;
}

static inline struct timeline_record *timeline_ring_slot(struct timeline_ring *r, uint64_t k) {
        return &r->records[k & r->mask];
}

/* The record in slot k is complete. */
static inline void timeline_ring_commit(struct timeline_ring *r, uint64_t k) {
        atomic_store_explicit(&r->ready[k & r->mask], RING_READY, memory_order_release);
}

/* Slot k was claimed for a request that turned out not to belong to the run (it was due after
 * the stop): it leaves no record. */
void timeline_ring_discard(struct timeline_ring *r, uint64_t k);

/* Write every whole block that is ready (with all, also the ready part of the last one), if no
 * other loop is doing so right now. Returns the sticky write error, if any. */
int timeline_ring_try_flush(struct timeline_ring *r, bool all);

/* Records written so far (once the loops are done). */
static inline uint64_t timeline_ring_written(struct timeline_ring *r) {
        return r->written;
}
