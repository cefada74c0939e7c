/* random.h: splitmix64, the one seedable generator step shared by the run plan's shuffles, the
 * injector's seeding of its arrival generator and the statistics' resampling. Its output for a
 * seed is fixed forever: stored seeds (order random, Poisson schedules) replay their sequence. */
#pragma once

#include <stdint.h>

/* SplitMix64 (Steele, Lea, Flood 2014): advances *state and returns the next value; any state,
 * 0 included, is a good seed. */
static inline uint64_t splitmix64(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}
