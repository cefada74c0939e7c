/* definition-plan.c: the run plan of a definition: cells x iterations in its order (the random
 * order a seeded randomized block design). */
#include <string.h>

#include "basic/random.h"
#include "definition/definition-internal.h"

/* Uniform in [0, range) without modulo bias. */
static uint64_t random_below(uint64_t *state, uint64_t range) {
        uint64_t limit = UINT64_MAX - UINT64_MAX % range, x;
        do
                x = splitmix64(state);
        while (x >= limit);
        return x % range;
}

int definition_plan_runs(const struct definition *d, uint64_t seed, struct planned_run **ret,
                         size_t *n) {
        size_t cells = d->n_cells, total = cells * d->iterations, k = 0;
        struct planned_run *runs;

        if (total == 0)
                return -EINVAL;
        runs = calloc(total, sizeof *runs);
        if (!runs)
                return -ENOMEM;
        if (d->order == DEFINITION_ORDER_SEQUENTIAL) {
                for (size_t c = 0; c < cells; c++)
                        for (unsigned it = 0; it < d->iterations; it++)
                                runs[k++] = (struct planned_run){ .cell = c, .iteration = it };
        } else {
                /* interleaved: round after round of every cell; random shuffles each round */
                uint64_t state = seed;
                for (unsigned it = 0; it < d->iterations; it++) {
                        struct planned_run *round = runs + k;
                        for (size_t c = 0; c < cells; c++)
                                runs[k++] = (struct planned_run){ .cell = c, .iteration = it };
                        if (d->order != DEFINITION_ORDER_RANDOM)
                                continue;
                        for (size_t i = cells - 1; i > 0; i--) {
                                size_t j = (size_t) random_below(&state, i + 1);
                                struct planned_run t = round[i];
                                round[i] = round[j];
                                round[j] = t;
                        }
                }
        }
        *ret = runs;
        *n = total;
        return 0;
}
