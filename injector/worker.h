/* worker.h: the state the engine's loops (engine.c) and their connections
 * (connection.c) share: one engine per run, one worker per event loop (--threads), each owning
 * the connections i with i % n_workers == its id, its share of the schedule and its own timeline
 * ring. A worker and what it owns are touched by that worker's thread only: nothing on the request
 * path is shared between loops (the engine's fields are read-only while running, but the stop and,
 * with --warmup-until-signal, the measure phase's start and end). */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "injector/calibrate.h"
#include "injector/conn.h"
#include "injector/schedule.h"
#include "injector/spin-tuner.h"
#include "injector/timeline-ring.h"

#define RECV_BUFFER (64u << 10)

struct engine;
struct engine_config;
struct inject_options;

struct worker {
        struct engine *e;
        unsigned id;
        int epfd;
        int timerfd;            /* deadlines where epoll_pwait2() is missing, else -1 */
        struct conn_list idle, timed, down;
        unsigned busy;
        bool has_res;
        uint64_t res_k;
        int64_t res_ns;
        bool ring_full;
        /* Shared with no other loop: this loop's share of the schedule (every n_workers-th
         * arrival, from the id-th), its request numbers and its timeline block. */
        struct schedule sched;
        uint64_t next_k;
        struct timeline_ring ring;
        int part_fd;            /* its own file with --threads > 1, else -1 (the run's timeline) */
        int64_t last_send_wake; /* batching: when this loop last woke to send */
        int64_t next_flush_ns;  /* --warmup-until-signal: the next flush of the warmup's records */
        int64_t stamp_offset;   /* recv_stamp_offset() at the last wakeup */
        uint64_t connects, connect_failures, server_closes, ring_full_count;
        int64_t spun_ns;        /* time spent polling through the spin before due requests */
        struct spin_tuner tuner; /* its spin, tuned during warmup */
        pthread_t thread;
        bool started;
        char rbuf[RECV_BUFFER];
};

struct engine {
        const struct engine_config *cfg;
        const struct inject_options *o;
        struct conn *conns;
        struct worker *workers;
        unsigned n_workers;
        int64_t t0;
        /* Set at t0; a SIGUSR1 that ends a --warmup-until-signal warmup moves both earlier while
         * the loops run (end first). end stays 0 until t0: nothing is sent before. */
        atomic_int_fast64_t measure_start, end;
        atomic_bool warmup_signalled;   /* a SIGUSR1 ended the warmup: later ones change nothing */
        int64_t batch_ns;               /* 0, or the open loop's wakeup interval at high rates */
        int64_t spin_ns;                /* --spin, or calibrated (before the warmup tunes it) */
        uint64_t records;               /* in the run's timeline, once the loops are done */
        struct calibration calibration;
        atomic_int_fast64_t stop_ns;    /* 0 while running */
        atomic_int stop_signal;
        atomic_int error;
        atomic_bool no_epoll_pwait2;    /* kernel before 5.11, or a sandbox that refuses it */
        int sigfd;
        int wakefd;                     /* eventfd: written on stop or warmup's end, wakes every loop */
};

/* When sending ends: the end of the schedule, or the stop if that came first. */
static inline int64_t worker_engine_cutoff(struct engine *e) {
        int64_t stop = atomic_load_explicit(&e->stop_ns, memory_order_relaxed);
        int64_t end = atomic_load_explicit(&e->end, memory_order_relaxed);
        return stop != 0 ? MIN(stop, end) : end;
}

static inline int64_t worker_engine_measure_start(struct engine *e) {
        return atomic_load_explicit(&e->measure_start, memory_order_relaxed);
}
