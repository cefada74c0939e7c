/* calibrate.h: self-calibration of waking. Before the schedule starts, the open loop measures how
 * late its sleeps end on its CPU (a VM may take milliseconds to wake an idle vCPU) and picks the
 * shortest --spin that keeps the expected lag p99 within CALIBRATE_LAG_GOAL_NS, within a CPU
 * budget: spinning S before each of rate/threads requests a second costs S * rate/threads of the
 * CPU, so S <= budget * gap. The warmup then tunes it from the lag the loop really gets
 * (spin-tuner.h). A --spin given by hand wins, and so does ticking (--batch at high rates, where
 * the loop does not sleep between requests). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define CALIBRATE_LAG_GOAL_NS (200 * INT64_C(1000))
#define CALIBRATE_MIN_SPIN_NS (20 * INT64_C(1000))     /* the spin without calibration */

enum calibrate_outcome {
        CALIBRATE_RAN,
        CALIBRATE_SPIN_GIVEN,           /* --spin on the command line */
        CALIBRATE_NOT_OPEN_LOOP,        /* --mode max never waits for a due time */
        CALIBRATE_TICKING,              /* requests due closer than --batch: the loop ticks */
};

struct calibration {
        enum calibrate_outcome outcome;
        int64_t gap_ns;                 /* a loop's mean time between requests */
        int64_t late_p50_ns, late_p99_ns;       /* wakeup lateness of a sleep of the whole gap */
        int64_t spin_ns;                /* chosen (or given) */
        int64_t expected_lag_p99_ns;    /* measured with the chosen spin: lateness beyond it */
        int64_t budget_spin_ns;         /* the most the budget allows */
        bool bounded;                   /* no spin within the budget meets the goal */
        unsigned samples;
        /* Tuned during warmup (spin-tuner.h), all loops together: spin_ns above is the spin
         * of the measure phase (the longest of the loops'), this the one before the warmup. */
        int64_t spin_before_warmup_ns;
        unsigned warmup_windows, warmup_raises;
        int64_t warmup_lag_p99_ns;      /* the last window's (the worst loop's), -1 without one */
};

/* Measure and choose for a loop sending a request every gap_ns, spinning at most budget (0-1)
 * of its CPU. 0 or a negative errno (an epoll instance could not be made). Takes a few hundred
 * ms at most. */
int calibrate_wakeups(int64_t gap_ns, double budget, struct calibration *ret);

const char *calibrate_outcome_name(enum calibrate_outcome o);
