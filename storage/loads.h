/* loads.h: loads this daemon runs for another host's experiment (issue 25, POST /v1/loads), one
 * row each. States: queued -> running -> succeeded | failed | cancelled | expired | interrupted
 * (a queued load may also end cancelled, expired or interrupted). The lease is a CLOCK_MONOTONIC
 * instant of this host that the coordinator pushes forward; the event loop's load runner stops a
 * load whose lease lapsed. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpulist.h"
#include "basic/error.h"
#include "basic/id.h"
#include "storage/db.h"

#define LOAD_STATES_FINISHED_SQL "('succeeded','failed','cancelled','expired','interrupted')"
#define LOAD_STATES_HOLDING_SQL "('queued','running')"

struct load_new {
        char id[ID_LEN + 1];
        const char *coordinator, *coordinator_run, *host;
        struct cpulist cpus;
        const char *definition;         /* canonical JSON of the wrapped definition */
        int64_t phase_ns;
        uint64_t seed;
        int64_t start_at_ns;
        unsigned lease_s;
        int64_t now_ns;                 /* CLOCK_MONOTONIC: the lease runs from here */
};

/* Insert as queued, in one write transaction with the checks that the CPUs are free: a run in
 * progress (-EBUSY, err 409 naming it) or a queued or running load whose CPUs meet these
 * (-EBUSY, err 409 naming it) refuse it. */
int loads_insert(struct db_conn *c, const struct load_new *l, struct error *err);

/* The GET /v1/loads/{id} object; -ENOENT. */
struct cJSON;
int loads_get_json(struct db_conn *c, const char *id, struct cJSON **ret);
/* Whether it is finished (*ret_finished), for the timeline's 409 and ETag; -ENOENT. */
int loads_is_finished(struct db_conn *c, const char *id, bool *ret_finished);

/* The loop's view of one queued load. */
struct queued_load {
        char id[ID_LEN + 1];
        struct cpulist cpus;
        char *definition;
        int64_t phase_ns;
        uint64_t seed;
        int64_t start_at_ns;
};
void queued_loads_free(struct queued_load *l, size_t n);
int loads_next_queued(struct db_conn *c, size_t max, struct queued_load **ret, size_t *ret_n);
/* The CPUs of every queued or running load, for the scheduler's check before a run starts. */
int loads_holding_cpus(struct db_conn *c, struct cpulist *ret);

/* queued -> running with its slice; -ESTALE when it is no longer queued (cancelled meanwhile). */
int loads_set_running(struct db_conn *c, const char *id, const char *slice);
/* To a final state, unless it is in one already (then 0, nothing changes). summary may be NULL. */
int loads_finish(struct db_conn *c, const char *id, const char *state, const char *reason, const char *message,
                 const char *summary);
/* DELETE: the cancel is asked for (the loop acts on it when woken). -ENOENT; -EALREADY when it
 * is finished. */
int loads_request_cancel(struct db_conn *c, const char *id);
/* The lease's end and whether a cancel was asked; -ENOENT. */
int loads_lease(struct db_conn *c, const char *id, int64_t *ret_expires_ns, bool *ret_cancel);
/* Renew the lease to now + lease_s: *ret_expires_ns. -ENOENT; -EALREADY when finished. */
int loads_renew(struct db_conn *c, const char *id, int64_t now_ns, int64_t *ret_expires_ns);
/* At start: every queued or running load of a previous daemon becomes interrupted. */
int loads_interrupt_unfinished(struct db_conn *c, const char *message, int64_t *ret_count);
int loads_known(struct db_conn *c, const char *id, bool *ret);
