/* synthetic-series.h: series with known shifts for the change point tests and bench: a level
 * times (1 + noise) with normal noise of a given CoV, the level multiplied at given positions. */
#pragma once

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/random.h"

struct synthetic_shift {
        size_t at;      /* the first value at the new level */
        double factor;  /* the new level / the old one */
};

static inline double synthetic_uniform(uint64_t *state) {
        return ((double) (splitmix64(state) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

/* Box-Muller: one standard normal value per call (the second one is dropped for simplicity). */
static inline double synthetic_normal(uint64_t *state) {
        double u = synthetic_uniform(state), v = synthetic_uniform(state);
        return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static inline void synthetic_series(double *x, size_t n, double level, double cov, const struct synthetic_shift *shifts,
                                    size_t n_shifts, uint64_t seed) {
        uint64_t state = seed * UINT64_C(0x2545f4914f6cdd1d) + 7;
        for (size_t i = 0; i < n; i++) {
                double l = level;
                for (size_t k = 0; k < n_shifts; k++)
                        if (i >= shifts[k].at)
                                l *= shifts[k].factor;
                x[i] = l * (1 + cov * synthetic_normal(&state));
        }
}
