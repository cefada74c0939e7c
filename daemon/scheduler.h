/* scheduler.h: which run goes next. The queue is the store (oldest experiment first, then run
 * position); up to --max-parallel runs at once, and a run only starts beside others when its
 * CPUs (SUT and load) are disjoint from theirs. Cancels are honoured when the loop is woken. */
#pragma once

#include "daemon/run.h"

struct scheduler;

int scheduler_new(const struct run_context *ctx, unsigned max_parallel, struct scheduler **ret);
/* At start: runs caught mid-way by a previous daemon become interrupted, and the slices no run
 * owns any more are emptied and removed. */
int scheduler_recover(struct scheduler *s);
/* Something changed (new work, a cancel, a run ended): act on it. */
void scheduler_kick(struct scheduler *s);
/* Called at the end of each scheduling pass (the bisections' driver, which queues experiments
 * as steps end): a positive return, experiments it queued, makes another pass. */
typedef int (*scheduler_settled_fn)(void *userdata);
void scheduler_on_settled(struct scheduler *s, scheduler_settled_fn fn, void *userdata);
/* Stop every run as interrupted (the daemon is stopping); synchronous. */
void scheduler_shutdown(struct scheduler *s);
void scheduler_free(struct scheduler *s);
/* Runs in progress. */
size_t scheduler_active(const struct scheduler *s);
