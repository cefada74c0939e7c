/* engine.h: the injector's run: event loops (one per --threads) over keep-alive connections,
 * fed by one global schedule (open loop) or keeping every connection busy (closed loop), with
 * every request's scheduled, submit and done times recorded into the timeline. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "injector/calibrate.h"
#include "injector/engine-config.h"

struct engine_result {
        int64_t start_ns;               /* t0: start of the schedule and of the warmup */
        int64_t measure_start_ns;       /* as it was: earlier than t0 + --warmup if a SIGUSR1 said so */
        int64_t end_ns;                 /* when sending ended: end of the schedule, or the stop */
        bool stopped;                   /* ended early by SIGTERM or SIGINT */
        int stop_signal;
        uint64_t records;               /* written to the timeline */
        uint64_t connects;              /* connections opened */
        uint64_t connect_failures;      /* of those, refused, unreachable or timed out */
        uint64_t server_closes;         /* keep-alive connections the server ended */
        uint64_t ring_full;             /* times a due request had to wait for timeline room */
        uint64_t ring_capacity;         /* records the reorder ring holds */
        struct calibration calibration; /* of waking (calibrate.h) */
        int64_t spun_ns;                /* all loops' time spent spinning before due requests */
        bool deadlines_timerfd;         /* the kernel refused epoll_pwait2(): waits ran through a timerfd */
};

/* Run the whole load. SIGTERM, SIGINT and SIGUSR1 must be blocked (engine_block_signals() at the
 * start of main, so a signal that comes early is kept): the engine reads them from a signalfd.
 * SIGTERM and SIGINT end the run early but cleanly, the one pending before the run included;
 * SIGUSR1 ends a --warmup-until-signal warmup early and is otherwise ignored. Returns 0 when the run took place (whatever the requests'
 * fate), or a negative errno when it could not (out of memory or fds, the timeline cannot be
 * written): then the timeline holds only whole records and *ret is untouched. */
int engine_run(const struct engine_config *cfg, struct engine_result *ret);

/* Block SIGTERM, SIGINT and SIGUSR1 in the calling thread (and threads it starts later). */
void engine_block_signals(void);
