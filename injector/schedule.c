/* schedule.c: arrival times of the open loop. */
#include "injector/schedule.h"

#include <math.h>

#include "basic/random.h"
#include "basic/time-util.h"

void schedule_rng_seed(struct rng *r, uint64_t seed) {
        for (int i = 0; i < 4; i++)
                r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

uint64_t schedule_rng_next(struct rng *r) {
        uint64_t *s = r->s;
        uint64_t result = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
}

double schedule_rng_uniform_pos(struct rng *r) {
        /* The top 53 bits as an integer in [0, 2^53), shifted to (0, 2^53]. */
        return (double) ((schedule_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

static double poisson_gap_ns(struct schedule *s) {
        return -log(schedule_rng_uniform_pos(&s->rng)) * (double) NSEC_PER_SEC / s->rate;
}

/* Uniform due times are computed from k rather than summed, so rounding never accumulates. */
static int64_t uniform_offset_ns(const struct schedule *s, uint64_t k) {
        return (int64_t) ((long double) k * (long double) NSEC_PER_SEC / (long double) s->rate);
}

void schedule_init(struct schedule *s, enum inject_arrival arrival, double rate, uint64_t seed,
                   int64_t t0) {
        *s = (struct schedule){ .arrival = arrival, .rate = rate, .t0 = t0 };
        schedule_rng_seed(&s->rng, seed);
        if (arrival == INJECT_ARRIVAL_POISSON) {
                s->poisson_ns = poisson_gap_ns(s);
                s->next_ns = t0 + (int64_t) s->poisson_ns;
        } else
                s->next_ns = t0;
}

void schedule_advance(struct schedule *s) {
        s->next_k++;
        if (s->arrival == INJECT_ARRIVAL_POISSON) {
                s->poisson_ns += poisson_gap_ns(s);
                s->next_ns = s->t0 + (int64_t) s->poisson_ns;
        } else
                s->next_ns = s->t0 + uniform_offset_ns(s, s->next_k);
}
