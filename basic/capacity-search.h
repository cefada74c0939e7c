/* capacity-search.h: the search behind `load.mode: "capacity"`: the highest request rate in
 * [rate_min, rate_max] at which a step "meets" (every SLA percentile from scheduled within its
 * bound, the injector not saturated, errors under 0.1%), to a relative precision, in few steps.
 * Pure: it is told each step's outcome and answers the next rate, so it is tested without a
 * server and the daemon only runs steps.
 *
 * The search, in log-rate (capacity questions are relative: 5% of 100 req/s and 5% of 10000):
 * - bisection of the bracket [lo, hi], starting from lo = rate_min and hi = rate_max, neither
 *   tested: the next rate is the geometric middle sqrt(lo * hi); a step that meets raises lo to
 *   its rate, one that misses lowers hi.
 * - when hi <= lo * (1 + precision) the bracket is narrow enough. An end of the range that was
 *   never tested is tested then: rate_min, when every step missed (missing it too ends the
 *   search with "rate_min_missed"), or rate_max, when every step met (meeting it too ends it with
 *   "rate_max_met"). Otherwise the answer is lo, met, with hi, missed, within the precision
 *   above it ("found").
 * - at most capacity_search_max_steps() steps: ceil(log2(ln(rate_max/rate_min) /
 *   ln(1 + precision))) bisections plus one end. For precision 0.05 that is 7 steps when
 *   rate_max/rate_min <= 22.7 and 8 up to 516; definitions needing more than
 *   CAPACITY_STEPS_MAX are refused.
 * - the SUT dying ends the search from outside (the daemon's "sut_died"). */
#pragma once

#include <stdbool.h>

#define CAPACITY_STEPS_MAX 8

enum capacity_outcome {
        CAPACITY_SEARCHING,
        CAPACITY_FOUND,                 /* max_rps met, the rate just above it (within precision) missed */
        CAPACITY_RATE_MAX_MET,          /* even rate_max met: the capacity is at least rate_max */
        CAPACITY_RATE_MIN_MISSED,       /* even rate_min missed: the capacity is below rate_min */
        CAPACITY_SUT_DIED,              /* set by the daemon: the search could not go on */
        _CAPACITY_OUTCOME_MAX,
};

struct capacity_search {
        double rate_min, rate_max, precision;
        double lo, hi;                  /* lo met (or rate_min untested), hi missed (or rate_max untested) */
        bool lo_met, hi_missed;         /* whether lo and hi were tested */
        unsigned steps;
        enum capacity_outcome outcome;
        double max_rps;                 /* valid for FOUND and RATE_MAX_MET */
};

/* 0 < rate_min < rate_max, 0 < precision. */
void capacity_search_init(struct capacity_search *s, double rate_min, double rate_max, double precision);
/* The rate of the next step; false once the search has ended (s->outcome says how). */
bool capacity_search_next(const struct capacity_search *s, double *ret_rate);
/* The outcome of the step at rate (the one capacity_search_next() answered). */
void capacity_search_record(struct capacity_search *s, double rate, bool met);
/* The most steps the search can take for these bounds. */
unsigned capacity_search_max_steps(double rate_min, double rate_max, double precision);

/* "searching", "found", "rate_max_met", "rate_min_missed", "sut_died" */
const char *capacity_outcome_to_string(enum capacity_outcome o);
