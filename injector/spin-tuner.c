/* spin-tuner.c: a window's lag p99 from its histogram, and the raise (spin-tuner.h). */
#include "injector/spin-tuner.h"

#include <string.h>

#include "basic/latency.h"
#include "basic/macro.h"

void spin_tuner_init(struct spin_tuner *t, bool active, int64_t spin_ns, int64_t budget_ns, int64_t goal_ns,
                     uint32_t window) {
        *t = (struct spin_tuner){
                .active = active,
                .spin_ns = spin_ns,
                .budget_ns = budget_ns,
                .goal_ns = goal_ns,
                .window = MAX(window, (uint32_t) SPIN_TUNER_WINDOW_MIN),
                .last_p99_ns = -1,
        };
}

/* The upper edge of the bucket holding the window's 99th percentile (nearest rank): never
 * below the true value, so a raise is never too small by the histogram's grain. */
static int64_t window_p99(const struct spin_tuner *t) {
        uint64_t rank = percentile_rank(PCT_P99, t->n), seen = 0;
        for (unsigned b = 0; b < SPIN_TUNER_BUCKETS; b++) {
                seen += t->hist[b];
                if (seen >= rank)
                        return (int64_t) (b + 1) * SPIN_TUNER_BUCKET_NS;
        }
        return SPIN_TUNER_BUCKETS * SPIN_TUNER_BUCKET_NS;
}

static void window_end(struct spin_tuner *t) {
        int64_t p99 = window_p99(t);
        t->last_p99_ns = p99;
        t->windows++;
        if (p99 > t->goal_ns && t->spin_ns < t->budget_ns) {
                /* Aim halfway below the goal, as the next window's p99 is no better known. */
                t->spin_ns = MIN(t->spin_ns + p99 - t->goal_ns / 2, t->budget_ns);
                t->raises++;
        }
        memset(t->hist, 0, sizeof t->hist);
        t->n = 0;
}

void spin_tuner_add(struct spin_tuner *t, int64_t lag_ns) {
        if (!t->active)
                return;
        uint64_t b = (uint64_t) MAX(lag_ns, INT64_C(0)) / SPIN_TUNER_BUCKET_NS;
        t->hist[MIN(b, (uint64_t) SPIN_TUNER_BUCKETS - 1)]++;
        if (++t->n == t->window)
                window_end(t);
}
