/* loop-thread.h: a worker thread that reports to the daemon's sd-event loop through an eventfd,
 * so that what blocks (a run's collection, the load hosts' HTTP calls) never holds the loop and
 * its watchdog. The thread posts events (bits) as it goes; the loop hears them in one call per
 * wakeup, and once the thread has returned, joined first, with finished set. Flags the loop sets
 * for the thread (go, stop) are read under the thread's lock, and the thread can sleep until
 * one is set. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

struct loop_thread;

/* On the thread. */
typedef void (*loop_thread_main_fn)(struct loop_thread *t, void *userdata);
/* On the loop: the events posted since the last call (bit i: event i), and whether the thread
 * has returned (then joined; the callee may free t). */
typedef void (*loop_thread_report_fn)(struct loop_thread *t, unsigned events, bool finished, void *userdata);

/* Its eventfd on the loop, no thread yet; *ret untouched on failure. */
int loop_thread_new(sd_event *e, loop_thread_report_fn report, void *userdata, struct loop_thread **ret);
/* Starts main(t, userdata) on a new thread (once). */
int loop_thread_start(struct loop_thread *t, loop_thread_main_fn main);
/* On the thread: report event (0..31) to the loop. */
void loop_thread_post(struct loop_thread *t, unsigned event);
/* On the loop: set a flag the thread reads, and wake it if it sleeps on one. */
void loop_thread_set(struct loop_thread *t, bool *flag);
/* On the thread: a flag's value, under the lock. */
bool loop_thread_get(struct loop_thread *t, const bool *flag);
/* On the thread: a flag's value, cleared under the lock, for a request the loop makes again and
 * again (a capacity search's next step). */
bool loop_thread_take(struct loop_thread *t, bool *flag);
/* On the thread: sleep until *flag is set or until_ns (CLOCK_MONOTONIC; negative: no limit)
 * passes; returns *flag. */
bool loop_thread_wait(struct loop_thread *t, const bool *flag, int64_t until_ns);
/* On the loop: join the thread now (daemon shutdown, or a thread that finished); report is not
 * called any more. */
void loop_thread_join(struct loop_thread *t);
/* Joins the thread first when it still runs: set what makes it return before. */
struct loop_thread *loop_thread_free(struct loop_thread *t);
