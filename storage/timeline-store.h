/* timeline-store.h: a run's raw data in the store: per-request records in blocks (see the
 * requests table) and GC/safepoint events. Each call is one transaction. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "timeline-format.h"

#define REQUESTS_BLOCK_RECORDS 4096

/* records sorted by scheduled_ns; replaces what the run had. */
int requests_store(struct db_conn *c, const char *run_id, const struct timeline_record *records, size_t n);

struct gc_event_row {
        int64_t start_ns, duration_ns;
        const char *kind, *cause;
        int64_t heap_before, heap_after;        /* -1 = unknown */
};
int gc_events_store(struct db_conn *c, const char *run_id, const struct gc_event_row *events, size_t n);
