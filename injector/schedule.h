/* schedule.h: the open loop's one global schedule. Request k is due at t0 + k/R (uniform) or
 * after k exponential gaps of mean 1/R (Poisson, from a seeded generator, so a seed gives the
 * same schedule every run). The schedule only says when; who sends is the engine's business. */
#pragma once

#include <stdint.h>

#include "injector/options.h"

struct rng {
        uint64_t s[4];
};

/* xoshiro256** seeded through splitmix64: fast, 2^256-1 period, good enough for arrival gaps. */
void schedule_rng_seed(struct rng *r, uint64_t seed);
uint64_t schedule_rng_next(struct rng *r);
/* Uniform in (0, 1]: never 0, so -log(u) is finite. */
double schedule_rng_uniform_pos(struct rng *r);

struct schedule {
        enum inject_arrival arrival;
        double rate;
        int64_t t0;
        uint64_t next_k;        /* index of the next request */
        int64_t next_ns;        /* its due time */
        double poisson_ns;      /* Poisson: offset of next_k from t0, not rounded */
        struct rng rng;
};

void schedule_init(struct schedule *s, enum inject_arrival arrival, double rate, uint64_t seed,
                   int64_t t0);
/* Move on to request next_k + 1. */
void schedule_advance(struct schedule *s);
