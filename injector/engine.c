/* engine.c: the injector's event loops.
 *
 * Each loop (worker) owns a share of the connections, an epoll instance, a share of the schedule
 * and a timeline ring of its own; the main thread runs worker 0. Loops share nothing on the
 * request path (no lock, no common counter): in the open loop, loop i of N takes the global
 * schedule's arrivals i, i + N, i + 2N, ..., numbered locally; a worker with a free connection
 * claims its next arrival ahead of time (its "reservation"), sleeps until it is due and sends it.
 * While no connection is free, nothing is claimed, so due arrivals simply stay in the schedule:
 * that backlog is the queue, and the time an arrival spends there shows up as lag (submit -
 * scheduled). In the closed loop, a request is claimed and sent whenever a connection is free.
 * With N > 1 each loop writes its own file, merged in schedule order at the end
 * (basic/timeline-merge.h); with one loop the ring writes the run's timeline directly.
 *
 * What a connection is and what happens on its socket is in connection.h: a request costs one
 * send(), one recvmsg() and a share of one epoll_pwait2(); above 1/--batch requests per second
 * a loop ticks rather than waking for every answer (worker_wait). Timeouts need no timer
 * structure: every request has the same timeout, so the list of connections in order of their
 * start is in deadline order.
 *
 * With --warmup-until-signal a SIGUSR1 during the warmup moves the measure phase's start to that
 * instant (and its end to --duration after it): the loops read both on the request path, so they
 * are atomics, relaxed loads of cache lines that change at most once a run. */
#include "injector/engine.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "basic/time-util.h"
#include "basic/timeline-merge.h"
#include "injector/connection.h"
#include "injector/worker.h"
#include "injector/http-parser.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "injector/recv-stamp.h"
#include "injector/schedule.h"
#include "injector/timeline-ring.h"

#define EVENTS_MAX 256
#define STOP_DRAIN_MAX_NS NSEC_PER_SEC       /* after SIGTERM, answers get at most this long */
#define RING_FULL_RETRY_NS NSEC_PER_MSEC
#define RING_MAX_MODE_RECORDS (UINT64_C(1) << 18)
#define SPIN_TUNE_WINDOW_NS (NSEC_PER_SEC / 4)  /* a loop's requests per tuning window */
#define NO_CONN UINT32_MAX
#define SIGNAL_TOKEN UINT64_MAX
#define WAKE_TOKEN (UINT64_MAX - 1)
#define TIMER_TOKEN (UINT64_MAX - 2)
#define WARMUP_FLUSH_NS NSEC_PER_SEC         /* --warmup-until-signal: the daemon reads each second */

static void engine_stop(struct engine *e) {
        int_fast64_t expected = 0;
        if (atomic_compare_exchange_strong(&e->stop_ns, &expected, now_mono_ns()))
                (void) eventfd_write(e->wakefd, 1);
}

static void engine_fail(struct engine *e, int error) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&e->error, &expected, error))
                log_error_errno(error, "Stopping the run");
        engine_stop(e);
}

static void record_not_sent(struct worker *w, uint64_t k, int64_t at) {
        struct timeline_record *r = timeline_ring_slot(&w->ring, k);
        r->submit_ns = r->done_ns = MAX(at, r->scheduled_ns);
        r->status = 0;
        r->error = TIMELINE_ERR_NOT_SENT;
        timeline_ring_commit(&w->ring, k);
}

/* A request due at due belongs to the warmup or to the measure phase. A relaxed load, as on every
 * request: a loop other than the one that read a SIGUSR1 may see the new start a moment late,
 * which reflag_unwritten() makes up for. */
static uint32_t phase_flags(struct engine *e, int64_t due) {
        return due < worker_engine_measure_start(e) ? TIMELINE_WARMUP : 0;
}

/* The loop's next arrival in the global schedule: every n_workers-th. */
static void schedule_next_own(struct worker *w) {
        for (unsigned i = 0; i < w->e->n_workers; i++)
                schedule_advance(&w->sched);
}

/* A connection that can take a request now: an open idle one, else a closed one past its
 * backoff (it connects for the request). */
static struct conn *free_conn(struct worker *w, int64_t now) {
        if (w->idle.head)
                return w->idle.head;
        for (struct conn *c = w->down.head; c; c = c->next)
                if (c->retry_ns <= now)
                        return c;
        return NULL;
}

/* When the next closed connection comes out of its backoff. */
static int64_t next_retry(struct worker *w, int64_t now) {
        int64_t t = INT64_MAX;
        for (struct conn *c = w->down.head; c; c = c->next)
                if (c->retry_ns > now)
                        t = MIN(t, c->retry_ns);
        return t;
}

/* Take this loop's next request number (and, in the open loop, its due time): no lock, as each
 * loop has its own share of the schedule and its own numbers. */
static bool claim(struct worker *w) {
        struct engine *e = w->e;
        uint64_t k = w->next_k;
        int64_t due;
        if (e->o->mode == INJECT_MODE_MAX) {
                due = now_mono_ns();
                if (due >= worker_engine_cutoff(e))
                        return false;
        } else {
                due = w->sched.next_ns;
                if (due >= atomic_load_explicit(&e->end, memory_order_relaxed) ||
                    atomic_load_explicit(&e->stop_ns, memory_order_relaxed) != 0)
                        return false;
        }
        bool room = timeline_ring_has_room(&w->ring, k);
        w->ring_full = !room;
        if (!room) {
                w->ring_full_count++;
                return false;
        }
        w->next_k++;
        if (e->o->mode == INJECT_MODE_RATE)
                schedule_next_own(w);
        *timeline_ring_slot(&w->ring, k) = (struct timeline_record){
                .scheduled_ns = due,
                .conn = NO_CONN,
                .flags = phase_flags(e, due),
        };
        w->has_res = true;
        w->res_k = k;
        w->res_ns = due;
        return true;
}

static void request_start(struct worker *w, struct conn *c, int64_t now) {
        if (now - w->last_send_wake >= w->e->batch_ns)
                w->last_send_wake = now;
        /* By due time, not send time: a loop behind schedule sends the warmup's last requests
         * after the measure phase began, and they belong to the warmup's windows all the same.
         * A loop sends in schedule order, so the spin is settled before the first request due
         * in the measure phase goes out. Decided again now, as a SIGUSR1 may have moved the
         * measure phase's start to before a reservation claimed in the warmup. */
        uint32_t flags = phase_flags(w->e, w->res_ns);
        timeline_ring_slot(&w->ring, w->res_k)->flags = flags;
        if (flags & TIMELINE_WARMUP)
                spin_tuner_add(&w->tuner, now - w->res_ns);
        conn_list_remove(c);
        c->k = w->res_k;
        w->has_res = false;
        w->busy++;
        c->start_ns = c->received_ns = now;
        c->sent = 0;
        http_parser_reset(&c->parser, w->e->cfg->request->head);
        c->state = CONN_BUSY;
        conn_list_append(&w->timed, c);
        if (c->fd < 0) {
                if (connection_open(w, c) < 0) {
                        connection_request_fail(w, c, now, TIMELINE_ERR_CONNECT);
                        return;
                }
                if (!c->connected)
                        return;   /* written once connected */
        }
        connection_write(w, c, now);
}

/* Send every due request a connection can take. */
static void dispatch(struct worker *w) {
        for (;;) {
                int64_t now = now_mono_ns();
                struct conn *c = free_conn(w, now);
                if (!c)
                        return;
                if (!w->has_res && !claim(w))
                        return;
                now = now_mono_ns();
                if (w->res_ns > now)
                        return;
                request_start(w, c, now);
        }
}

static void expire(struct worker *w, int64_t now) {
        int64_t timeout = w->e->o->timeout_ns;
        while (w->timed.head && w->timed.head->start_ns + timeout <= now) {
                struct conn *c = w->timed.head;
                if (c->state == CONN_BUSY)
                        connection_request_fail(w, c, now, TIMELINE_ERR_TIMEOUT);
                else
                        connection_connect_failed(w, c, now);
        }
}

/* The stop's grace period is over: what is still in flight gets no more time. */
static void abort_in_flight(struct worker *w, int64_t now) {
        while (w->timed.head) {
                struct conn *c = w->timed.head;
                if (c->state == CONN_BUSY)
                        connection_record_finish(w, c, now, 0, TIMELINE_ERR_TIMEOUT);
                connection_down(w, c, now);
        }
}

/* SIGUSR1: the daemon saw the run steady. With --warmup-until-signal, during the warmup, the
 * measure phase begins now and lasts --duration from here; otherwise (no flag, before t0, after
 * the warmup or a stop) it changes nothing and must not end the injector either. */
static void end_warmup(struct engine *e) {
        int64_t now = now_mono_ns();
        if (!e->o->warmup_until_signal || now >= atomic_load(&e->measure_start) || atomic_load(&e->stop_ns) != 0)
                return;
        /* Two SIGUSR1 read by two loops at once: the first one's instant holds, whole. */
        if (atomic_exchange(&e->warmup_signalled, true))
                return;
        /* The end first: it only comes earlier, never before now, so a loop that reads the new
         * one with the old start still sends all it should; the start then makes the requests
         * due from now on measured ones. */
        atomic_store(&e->end, now + e->o->duration_ns);
        atomic_store(&e->measure_start, now);
        /* Loops sleeping towards the old end, or the next warmup flush, reread both. */
        (void) eventfd_write(e->wakefd, 1);
}

static void on_signal(struct engine *e) {
        /* Edge-triggered: every pending signal is read now, or one behind another (a SIGTERM
         * after a SIGUSR1) would wait for the next edge. Whichever worker reads a stop signal
         * first records which it was. */
        struct signalfd_siginfo si;
        while (read(e->sigfd, &si, sizeof si) == (ssize_t) sizeof si) {
                if (si.ssi_signo == SIGUSR1) {
                        end_warmup(e);
                        continue;
                }
                engine_stop(e);
                int expected = 0;
                atomic_compare_exchange_strong(&e->stop_signal, &expected, (int) si.ssi_signo);
        }
}


/* Arm the worker's timerfd (made and added to its epoll set on first use) to fire after timeout. */
static int timer_arm(struct worker *w, const struct timespec *timeout) {
        if (w->timerfd < 0) {
                _cleanup_close_ int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
                if (fd < 0)
                        return negative_errno();
                struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = TIMER_TOKEN };
                if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
                        return negative_errno();
                w->timerfd = TAKE_FD(fd);
        }
        struct itimerspec its = { .it_value = *timeout };
        return timerfd_settime(w->timerfd, 0, &its, NULL) < 0 ? negative_errno() : 0;
}

/* epoll_pwait2() without it: the deadline goes to a timerfd in the epoll set (ns precision,
 * one more syscall per wait), and the wait itself has no timeout. Events, or a negative errno. */
static int epoll_wait_timerfd(struct worker *w, struct epoll_event *events, const struct timespec *timeout) {
        int wait_ms = -1;
        if (timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0)
                wait_ms = 0;    /* a zero it_value would disarm the timer, not fire it */
        else if (timeout) {
                int r = timer_arm(w, timeout);
                if (r < 0)
                        return r;
        }
        int n = epoll_wait(w->epfd, events, EVENTS_MAX, wait_ms);
        return n < 0 ? negative_errno() : n;
}

/* epoll_pwait2(), or the same through a timerfd where the kernel lacks it. Events, or a
 * negative errno. */
static int wait_events(struct worker *w, struct epoll_event *events, const struct timespec *timeout) {
        if (!atomic_load_explicit(&w->e->no_epoll_pwait2, memory_order_relaxed)) {
                int n = epoll_pwait2(w->epfd, events, EVENTS_MAX, timeout, NULL);
                if (n >= 0)
                        return n;
                if (errno != ENOSYS)
                        return negative_errno();
                atomic_store_explicit(&w->e->no_epoll_pwait2, true, memory_order_relaxed);
        }
        return epoll_wait_timerfd(w, events, timeout);
}

/* Wait for events until deadline (a send deadline is approached by polling for the last
 * --spin, for accuracy) and handle them. While sending, a connection an answer frees takes the
 * next due request at once, as the server's queue would otherwise drain while the rest of the
 * batch is handled. When batching, the loop ticks instead: it sleeps without being woken by each
 * answer, then handles everything that came at once. On this kind of machine a wakeup from sleep
 * costs more than the send and receive of a request together, so at high rates the ticks halve the
 * injector's CPU per request and leave it free to keep up; answers keep the times the kernel
 * stamped on them (recv-stamp.h), so reading them late does not make them late. */
static int worker_wait(struct worker *w, int64_t deadline, bool send_deadline, bool sending) {
        struct epoll_event events[EVENTS_MAX];
        struct timespec ts, *tp = NULL;
        int64_t spin_from = 0;
        if (sending && w->e->batch_ns > 0) {
                deadline = MIN(deadline, now_mono_ns() + w->e->batch_ns);
                ts = timespec_from_ns(deadline);
                int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                if (r != 0 && r != EINTR)
                        return -r;
                ts = (struct timespec){ 0 };
                tp = &ts;
        } else if (deadline != INT64_MAX) {
                int64_t wait = deadline - now_mono_ns() - (send_deadline ? w->tuner.spin_ns : 0);
                spin_from = wait <= 0 && send_deadline ? now_mono_ns() : 0;
                ts = timespec_from_ns(wait);
                tp = &ts;
        }
        int n = wait_events(w, events, tp);
        if (spin_from != 0)
                w->spun_ns += now_mono_ns() - spin_from;
        if (n < 0)
                return n == -EINTR ? 0 : n;
        w->stamp_offset = recv_stamp_offset();
        for (int i = 0; i < n; i++) {
                uint64_t token = events[i].data.u64;
                if (token == SIGNAL_TOKEN) {
                        on_signal(w->e);
                        continue;
                }
                if (token == WAKE_TOKEN)
                        continue;   /* the loop rereads the stop time */
                if (token == TIMER_TOKEN) {
                        uint64_t expirations;
                        (void) !read(w->timerfd, &expirations, sizeof expirations);
                        continue;
                }
                struct conn *c = &w->e->conns[(uint32_t) token];
                if (c->gen != (uint32_t) (token >> 32) || c->fd < 0)
                        continue;
                connection_event(w, c, events[i].events, now_mono_ns());
                if (sending && w->idle.head)
                        dispatch(w);
        }
        return 0;
}

static void worker_close_all(struct worker *w) {
        struct engine *e = w->e;
        for (unsigned i = w->id; i < e->o->connections; i += e->n_workers) {
                struct conn *c = &e->conns[i];
                conn_list_remove(c);
                if (c->fd >= 0)
                        close(c->fd);
                c->fd = -1;
        }
}

/* --warmup-until-signal: the daemon reads the timeline during the warmup to see each second's
 * latency, so the ready records go to the file once a second (on a grid from t0) instead of once
 * a block, which could take minutes at low rates. The next instant the loop must wake for, or
 * INT64_MAX when there is none (no flag, or the warmup is over). */
static int64_t warmup_flush(struct worker *w, int64_t now) {
        struct engine *e = w->e;
        if (!e->o->warmup_until_signal || now >= worker_engine_measure_start(e))
                return INT64_MAX;
        if (now >= w->next_flush_ns) {
                int r = timeline_ring_try_flush(&w->ring, true);
                if (r < 0)
                        engine_fail(e, r);
                while (w->next_flush_ns <= now)
                        w->next_flush_ns += WARMUP_FLUSH_NS;
        }
        return w->next_flush_ns;
}

static void worker_run(struct worker *w) {
        struct engine *e = w->e;
        const int64_t timeout = e->o->timeout_ns;
        for (;;) {
                int64_t now = now_mono_ns();
                int64_t stop = atomic_load_explicit(&e->stop_ns, memory_order_relaxed);
                int64_t cutoff = worker_engine_cutoff(e);
                int64_t deadline = INT64_MAX;
                bool send_deadline = false;
                expire(w, now);
                if (now < cutoff) {
                        dispatch(w);
                        now = now_mono_ns();
                        if (w->has_res && free_conn(w, now)) {
                                /* At high rates, one wakeup per batch interval sends all that
                                 * is due by then, instead of one wakeup (and one of the
                                 * server) per request; the delay is recorded as lag. */
                                deadline = MAX(w->res_ns, w->last_send_wake + e->batch_ns);
                                send_deadline = e->batch_ns == 0 || deadline == w->res_ns;
                        }
                        if (w->down.head)
                                deadline = MIN(deadline, next_retry(w, now));
                        if (w->ring_full)
                                deadline = MIN(deadline, now + RING_FULL_RETRY_NS);
                        deadline = MIN(deadline, cutoff);
                } else {
                        if (w->has_res) {
                                /* Claimed ahead of time: due before the cutoff, it was not
                                 * sent; due after (a stop came first), it is not in the run. */
                                if (w->res_ns < cutoff) {
                                        timeline_ring_slot(&w->ring, w->res_k)->flags = phase_flags(e, w->res_ns);
                                        record_not_sent(w, w->res_k, cutoff);
                                } else
                                        timeline_ring_discard(&w->ring, w->res_k);
                                w->has_res = false;
                        }
                        int64_t drain_end = stop != 0 ? stop + MIN(timeout, STOP_DRAIN_MAX_NS) : INT64_MAX;
                        if (now >= drain_end)
                                abort_in_flight(w, now);
                        if (w->busy == 0)
                                break;
                        deadline = drain_end;
                }
                if (w->timed.head)
                        deadline = MIN(deadline, w->timed.head->start_ns + timeout);
                int r = timeline_ring_try_flush(&w->ring, false);
                if (r < 0)
                        engine_fail(e, r);
                int64_t flush_at = warmup_flush(w, now);
                if (flush_at < deadline) {
                        deadline = flush_at;
                        send_deadline = false;   /* no request is due then: nothing to spin for */
                }
                r = worker_wait(w, deadline, send_deadline, now < cutoff);
                if (r < 0)
                        engine_fail(e, r);
        }
        worker_close_all(w);
}

static void *worker_thread(void *userdata) {
        worker_run(userdata);
        return NULL;
}

/* Before t0: open every connection and wait until each is open or has failed. */
static void worker_settle(struct worker *w) {
        struct engine *e = w->e;
        int64_t now = now_mono_ns();
        for (unsigned i = w->id; i < e->o->connections; i += e->n_workers)
                connection_prepare(w, &e->conns[i], now);
        while (w->timed.head && atomic_load(&w->e->stop_ns) == 0) {
                now = now_mono_ns();
                expire(w, now);
                if (!w->timed.head)
                        break;
                int r = worker_wait(w, w->timed.head->start_ns + w->e->o->timeout_ns, false, false);
                if (r < 0) {
                        engine_fail(w->e, r);
                        break;
                }
        }
        /* Failed ones may be retried as soon as the run starts. */
        for (struct conn *c = w->down.head; c; c = c->next)
                c->retry_ns = now;
}

/* After the run (rate mode): the loop's arrivals due before the cutoff that were never sent. */
static int fill_not_sent(struct worker *w, int64_t cutoff) {
        struct engine *e = w->e;
        if (e->o->mode != INJECT_MODE_RATE)
                return 0;
        while (w->sched.next_ns < cutoff) {
                uint64_t k = w->next_k;
                if (!timeline_ring_has_room(&w->ring, k)) {
                        /* Every claimed record is complete now, so this frees whole blocks. */
                        int r = timeline_ring_try_flush(&w->ring, false);
                        if (r < 0)
                                return r;
                        if (!timeline_ring_has_room(&w->ring, k))
                                return -EIO;
                }
                *timeline_ring_slot(&w->ring, k) = (struct timeline_record){
                        .scheduled_ns = w->sched.next_ns,
                        .conn = NO_CONN,
                        .flags = phase_flags(e, w->sched.next_ns),
                };
                record_not_sent(w, k, cutoff);
                w->next_k++;
                schedule_next_own(w);
        }
        return 0;
}

/* Once the loops are done and a SIGUSR1 moved the measure phase's start: the records still in
 * the ring decided against the final start, in case a loop read the old one in the instant the
 * signal was handled (those already written were answered by then, so due well before). */
static void reflag_unwritten(struct worker *w) {
        for (uint64_t k = atomic_load(&w->ring.flushed); k < w->next_k; k++) {
                struct timeline_record *r = timeline_ring_slot(&w->ring, k);
                r->flags = (r->flags & ~(uint32_t) TIMELINE_WARMUP) | phase_flags(w->e, r->scheduled_ns);
        }
}

/* Per loop: each holds its share of the requests. */
static uint64_t ring_capacity(const struct inject_options *o) {
        if (o->mode == INJECT_MODE_MAX)
                return RING_MAX_MODE_RECORDS / o->threads;
        /* Between the oldest unfinished request and the newest claim lie at most about a
         * timeout's worth of requests; twice that, with a second to spare. */
        double secs = (double) o->timeout_ns / (double) NSEC_PER_SEC + 1.0;
        return (uint64_t) MIN(o->rate * secs * 2.0 / o->threads, (double) (UINT64_C(1) << 26));
}

/* The stop signals, and SIGUSR1 (the end of a --warmup-until-signal warmup, else ignored):
 * blocked, and read from the signalfd. */
static void engine_signals(sigset_t *mask) {
        sigemptyset(mask);
        sigaddset(mask, SIGTERM);
        sigaddset(mask, SIGINT);
        sigaddset(mask, SIGUSR1);
}

static void engine_free(struct engine *e) {
        if (e->workers)
                for (unsigned i = 0; i < e->n_workers; i++) {
                        if (e->workers[i].epfd >= 0)
                                close(e->workers[i].epfd);
                        if (e->workers[i].timerfd >= 0)
                                close(e->workers[i].timerfd);
                        if (e->workers[i].part_fd >= 0)
                                close(e->workers[i].part_fd);
                        timeline_ring_done(&e->workers[i].ring);
                }
        if (e->conns)
                for (unsigned i = 0; i < e->o->connections; i++)
                        if (e->conns[i].fd >= 0)
                                close(e->conns[i].fd);
        free(e->workers);
        free(e->conns);
        if (e->sigfd >= 0)
                close(e->sigfd);
        if (e->wakefd >= 0)
                close(e->wakefd);
}

static int engine_setup(struct engine *e) {
        const struct inject_options *o = e->o;
        e->conns = calloc(o->connections, sizeof *e->conns);
        e->workers = calloc(e->n_workers, sizeof *e->workers);
        if (!e->conns || !e->workers)
                return -ENOMEM;
        for (unsigned i = 0; i < e->n_workers; i++)
                e->workers[i] = (struct worker){ .e = e, .id = i, .epfd = -1, .timerfd = -1, .part_fd = -1 };
        for (unsigned i = 0; i < o->connections; i++) {
                e->conns[i] = (struct conn){ .fd = -1, .index = i, .state = CONN_DOWN };
                conn_list_append(&e->workers[i % e->n_workers].down, &e->conns[i]);
        }
        for (unsigned i = 0; i < e->n_workers; i++) {
                struct worker *w = &e->workers[i];
                int fd = e->cfg->timeline_fd;
                if (e->n_workers > 1) {
                        fd = w->part_fd = timeline_merge_part_open(e->cfg->timeline_fd);
                        if (fd < 0)
                                return fd;
                }
                int r = timeline_ring_init(&w->ring, fd, ring_capacity(o));
                if (r < 0)
                        return r;
        }
        sigset_t mask;
        engine_signals(&mask);
        e->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (e->sigfd < 0)
                return negative_errno();
        e->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (e->wakefd < 0)
                return negative_errno();
        for (unsigned i = 0; i < e->n_workers; i++) {
                struct worker *w = &e->workers[i];
                w->epfd = epoll_create1(EPOLL_CLOEXEC);
                if (w->epfd < 0)
                        return negative_errno();
                /* Edge-triggered in every loop: one signal or stop wakes them all. */
                struct epoll_event sig = { .events = EPOLLIN | EPOLLET, .data.u64 = SIGNAL_TOKEN };
                struct epoll_event wake = { .events = EPOLLIN | EPOLLET, .data.u64 = WAKE_TOKEN };
                if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, e->sigfd, &sig) < 0 ||
                    epoll_ctl(w->epfd, EPOLL_CTL_ADD, e->wakefd, &wake) < 0)
                        return negative_errno();
        }
        return 0;
}

/* The spin: given by hand, or calibrated where the open loop sleeps between requests. Before t0,
 * with every connection open, so the schedule loses nothing to it. */
static int engine_calibrate(struct engine *e, double gap_ns) {
        const struct inject_options *o = e->o;
        e->spin_ns = o->spin_ns;
        e->calibration = (struct calibration){ .spin_ns = o->spin_ns, .gap_ns = (int64_t) gap_ns };
        if (o->spin_given)
                e->calibration.outcome = CALIBRATE_SPIN_GIVEN;
        else if (o->mode != INJECT_MODE_RATE)
                e->calibration.outcome = CALIBRATE_NOT_OPEN_LOOP;
        else if (e->batch_ns > 0)
                e->calibration.outcome = CALIBRATE_TICKING;
        else {
                int r = calibrate_wakeups((int64_t) gap_ns, o->spin_budget, &e->calibration);
                if (r < 0)
                        return r;
                e->spin_ns = e->calibration.spin_ns;
        }
        return 0;
}

/* --start-at: worker 0 waits for the instant (a stop signal ends the wait; the other loops'
 * connections wait in their own epoll sets, a server's close is seen when they start). */
static void engine_wait_start_at(struct engine *e) {
        int64_t at = e->o->start_at_ns;
        while (at > 0 && now_mono_ns() < at && atomic_load(&e->stop_ns) == 0) {
                int r = worker_wait(&e->workers[0], at, false, false);
                if (r < 0) {
                        engine_fail(e, r);
                        return;
                }
        }
}

static int engine_start(struct engine *e) {
        for (unsigned i = 0; i < e->n_workers; i++)
                worker_settle(&e->workers[i]);
        double gap_ns = e->o->mode == INJECT_MODE_RATE ? (double) NSEC_PER_SEC * e->n_workers / e->o->rate : 0;
        if (e->o->mode == INJECT_MODE_RATE && gap_ns < (double) e->o->batch_ns)
                e->batch_ns = e->o->batch_ns;
        int r = engine_calibrate(e, gap_ns);
        if (r < 0)
                return r;
        engine_wait_start_at(e);
        e->t0 = e->o->start_at_ns > 0 ? e->o->start_at_ns : now_mono_ns();
        int64_t measure_start = e->t0 + e->o->warmup_ns;
        atomic_store(&e->end, measure_start + e->o->duration_ns);
        atomic_store(&e->measure_start, measure_start);
        r = timeline_ring_write_header(e->cfg->timeline_fd, e->t0, measure_start);
        if (r < 0)
                return r;
        bool tune = e->calibration.outcome == CALIBRATE_RAN && e->o->warmup_ns > 0;
        uint32_t window = gap_ns > 0 ? (uint32_t) MIN((double) SPIN_TUNE_WINDOW_NS / gap_ns, (double) UINT32_MAX) : 0;
        for (unsigned i = 0; i < e->n_workers; i++) {
                struct worker *w = &e->workers[i];
                w->next_flush_ns = e->t0 + WARMUP_FLUSH_NS;
                spin_tuner_init(&w->tuner, tune, e->spin_ns, e->calibration.budget_spin_ns, CALIBRATE_LAG_GOAL_NS, window);
                if (e->o->mode != INJECT_MODE_RATE)
                        continue;
                schedule_init(&w->sched, e->o->arrival, e->o->rate, e->o->seed, e->t0 + e->o->phase_ns);
                for (unsigned j = 0; j < i; j++)
                        schedule_advance(&w->sched);
        }
        return 0;
}

/* With several loops: their files joined in schedule order after the run's header. */
static int merge_parts(struct engine *e) {
        _cleanup_free_ struct timeline_merge_input *in = calloc(e->n_workers, sizeof *in);
        if (!in)
                return -ENOMEM;
        for (unsigned i = 0; i < e->n_workers; i++)
                in[i] = (struct timeline_merge_input){ .fd = e->workers[i].part_fd };
        return timeline_merge(e->cfg->timeline_fd, in, e->n_workers, &e->records);
}

static int engine_loop(struct engine *e) {
        for (unsigned i = 1; i < e->n_workers; i++) {
                int r = -pthread_create(&e->workers[i].thread, NULL, worker_thread, &e->workers[i]);
                if (r < 0) {
                        engine_fail(e, r);
                        break;
                }
                e->workers[i].started = true;
        }
        worker_run(&e->workers[0]);
        for (unsigned i = 1; i < e->n_workers; i++)
                if (e->workers[i].started)
                        pthread_join(e->workers[i].thread, NULL);
        bool moved = atomic_load(&e->warmup_signalled);
        for (unsigned i = 0; i < e->n_workers; i++) {
                if (moved)
                        reflag_unwritten(&e->workers[i]);
                int r = fill_not_sent(&e->workers[i], worker_engine_cutoff(e));
                if (r >= 0)
                        r = timeline_ring_try_flush(&e->workers[i].ring, true);
                if (r < 0)
                        return r;
        }
        int r = atomic_load(&e->error);
        if (r < 0 || e->n_workers == 1) {
                e->records = e->workers[0].ring.written;
                if (r < 0)
                        return r;
        } else {
                r = merge_parts(e);
                if (r < 0)
                        return r;
        }
        /* The header went out at t0 with the longest warmup; a SIGUSR1 ended it earlier. */
        if (!moved)
                return 0;
        return timeline_ring_rewrite_header(e->cfg->timeline_fd, e->t0, atomic_load(&e->measure_start));
}

/* What the warmup made of the spin, over all loops. */
static void calibration_add_tuning(struct engine *e, struct calibration *c) {
        c->spin_before_warmup_ns = e->spin_ns;
        c->warmup_lag_p99_ns = -1;
        for (unsigned i = 0; i < e->n_workers; i++) {
                const struct spin_tuner *t = &e->workers[i].tuner;
                c->spin_ns = i == 0 ? t->spin_ns : MAX(c->spin_ns, t->spin_ns);
                c->warmup_windows += t->windows;
                c->warmup_raises += t->raises;
                c->warmup_lag_p99_ns = MAX(c->warmup_lag_p99_ns, t->last_p99_ns);
        }
}

static void engine_result(struct engine *e, struct engine_result *ret) {
        int64_t stop = atomic_load(&e->stop_ns);
        *ret = (struct engine_result){
                .start_ns = e->t0,
                .measure_start_ns = atomic_load(&e->measure_start),
                .end_ns = worker_engine_cutoff(e),
                .stopped = stop != 0,
                .stop_signal = atomic_load(&e->stop_signal),
                .records = e->records,
                .deadlines_timerfd = atomic_load(&e->no_epoll_pwait2),
        };
        for (unsigned i = 0; i < e->n_workers; i++) {
                struct worker *w = &e->workers[i];
                ret->connects += w->connects;
                ret->connect_failures += w->connect_failures;
                ret->server_closes += w->server_closes;
                ret->ring_full += w->ring_full_count;
                ret->spun_ns += w->spun_ns;
                ret->ring_capacity += w->ring.capacity;
        }
        ret->calibration = e->calibration;
        calibration_add_tuning(e, &ret->calibration);
}

int engine_run(const struct engine_config *cfg, struct engine_result *ret) {
        struct engine e = {
                .cfg = cfg,
                .o = cfg->opts,
                .n_workers = cfg->opts->threads,
                .sigfd = -1,
                .wakefd = -1,
        };
        atomic_init(&e.stop_ns, 0);
        atomic_init(&e.measure_start, 0);
        atomic_init(&e.end, 0);
        atomic_init(&e.warmup_signalled, false);
        atomic_init(&e.stop_signal, 0);
        atomic_init(&e.error, 0);
        atomic_init(&e.no_epoll_pwait2, false);

        /* Sleeps end within a microsecond of their deadline instead of the default 50 us slack;
         * inherited by the worker threads. */
        (void) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

        int r = engine_setup(&e);
        if (r >= 0)
                r = engine_start(&e);
        if (r >= 0)
                r = engine_loop(&e);
        if (r >= 0)
                engine_result(&e, ret);
        engine_free(&e);
        return r;
}

void engine_block_signals(void) {
        sigset_t mask;
        engine_signals(&mask);
        pthread_sigmask(SIG_BLOCK, &mask, NULL);
}
