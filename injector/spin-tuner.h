/* spin-tuner.h: the spin, tuned during warmup from the lag the loop really gets. Calibration
 * before the run (calibrate.h) times sleeps alone for a fraction of a second; a VM's host that
 * preempts the vCPU or wakes it late a few times a second slips through so short a sample, and
 * the measure phase then shows it as lag. So each loop keeps the lag of every request due in
 * the warmup in a fixed histogram, and after each window (a quarter second of its
 * requests) whose lag p99 is above the goal it spins longer by the excess, up to the budget. It
 * never shortens the spin: one quiet window says little about the next second of a VM. From the
 * measure phase on the spin stays as tuned. Nothing is allocated; a request costs an increment. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define SPIN_TUNER_BUCKET_NS (10 * INT64_C(1000))
#define SPIN_TUNER_BUCKETS 256          /* 0 to 2.55 ms by 10 us; the last holds all above */
#define SPIN_TUNER_WINDOW_MIN 200       /* requests: a p99 of fewer would be the maximum */

struct spin_tuner {
        bool active;                    /* calibration ran and there is a warmup */
        int64_t spin_ns;                /* what the loop spins before a due request */
        int64_t budget_ns;
        int64_t goal_ns;
        uint32_t window, n;
        uint32_t hist[SPIN_TUNER_BUCKETS];
        unsigned windows, raises;
        int64_t last_p99_ns;            /* of the last whole window, -1 before one */
};

/* window: requests per window (at least SPIN_TUNER_WINDOW_MIN is used). */
void spin_tuner_init(struct spin_tuner *t, bool active, int64_t spin_ns, int64_t budget_ns, int64_t goal_ns,
                     uint32_t window);

/* A request sent during warmup, lag_ns after it was due. */
void spin_tuner_add(struct spin_tuner *t, int64_t lag_ns);
