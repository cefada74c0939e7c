/* collect-worker.h: collect_run() on a thread of its own, so that a run's timeline (up to
 * hundreds of millions of records read, sorted and stored) never holds the event loop: the loop
 * keeps pinging the watchdog and serving other runs. The worker stores through a connection of
 * its own (the scheduler's, or one the thread takes from the pool) and reports back through an
 * eventfd watched by the loop. */
#pragma once

#include <systemd/sd-event.h>

#include "daemon/collect.h"

struct cJSON;
struct storage;
struct db_conn;
struct collect_worker;

/* Called on the loop once the worker has finished (its thread joined): read the result with
 * collect_worker_result(), then free the worker. */
typedef void (*collect_worker_done_fn)(struct collect_worker *w, void *userdata);

/* Starts collect_run(in) on a new thread. in is copied, but what it points to (definition,
 * slices, samples, strings) must stay unchanged until done() is called or collect_worker_wait()
 * returns; in->db is ignored: the worker uses db, a connection no other thread uses meanwhile,
 * or when NULL takes one from storage on its thread. *ret untouched on failure. */
int collect_worker_start(sd_event *e, struct storage *storage, struct db_conn *db, const struct collect_input *in,
                         collect_worker_done_fn done, void *userdata, struct collect_worker **ret);
/* Asks the worker to stop soon: a flag checked between phases and by SQLite's progress handler,
 * so a statement in flight or to come is interrupted (the ingest's transaction rolls back:
 * nothing half-written). done() still follows. */
void collect_worker_cancel(struct collect_worker *w);
/* Joins the worker now, on the loop (daemon shutdown); done() is not called. */
void collect_worker_wait(struct collect_worker *w);
/* collect_run()'s result: its return value, the metrics (the caller owns them), its warnings
 * (moved into warnings) and why. Only after done() or collect_worker_wait(). */
int collect_worker_result(struct collect_worker *w, struct cJSON **ret_metrics, struct cJSON *warnings, char *why,
                          size_t why_size);
struct collect_worker *collect_worker_free(struct collect_worker *w);
