/* bench-change-points.c: figures for E-Divisive means (basic/change-points) on synthetic series
 * with 2% CoV noise: per case how often every known shift is found within one experiment with no
 * other change point, how often a flat series gets one, and the time for series of 1000
 * experiments with change points (goal: at most 200 ms), elapsed and of CPU (which a busy machine
 * inflates less). Prints figures; asserts nothing.
 * Usage: bench-change-points [SEEDS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "basic/change-points.h"
#include "basic/macro.h"
#include "tests/lib/synthetic-series.h"

#define SERIES_MAX 1000

struct bench_case {
        const char *name;
        size_t n;
        struct synthetic_shift shifts[3];
        size_t n_shifts;
};

static const struct bench_case cases[] = {
        { "flat, 50 experiments", 50, { { 0, 1 } }, 0 },
        { "flat, 200 experiments", 200, { { 0, 1 } }, 0 },
        { "+5% at 25 of 50", 50, { { 25, 1.05 } }, 1 },
        { "+10% at 25 of 50", 50, { { 25, 1.10 } }, 1 },
        { "-5% at 12 of 30", 30, { { 12, 0.95 } }, 1 },
        { "+10% at 20, +5% at 40 of 60", 60, { { 20, 1.10 }, { 40, 1.05 } }, 2 },
        { "+10% over 15-24 of 40 (comes back)", 40, { { 15, 1.10 }, { 25, 1 / 1.10 } }, 2 },
        { "+5% at 250, -10% at 500, +10% at 750 of 1000", 1000, { { 250, 1.05 }, { 500, 0.90 }, { 750, 1.10 } }, 3 },
};

static double now_ms(clockid_t clock) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Every shift found within one experiment, nothing else. */
static bool exact(const struct bench_case *c, const struct change_point *cp, size_t n_cp) {
        if (n_cp != c->n_shifts)
                return false;
        for (size_t k = 0; k < n_cp; k++)
                if (cp[k].index + 1 < c->shifts[k].at || cp[k].index > c->shifts[k].at + 1)
                        return false;
        return true;
}

static void run_case(const struct bench_case *c, const struct change_points_params *p, unsigned seeds) {
        static double x[SERIES_MAX];
        unsigned ok = 0, any = 0;
        double worst = 0, total = 0, cpu_worst = 0, cpu_total = 0;
        for (unsigned seed = 1; seed <= seeds; seed++) {
                synthetic_series(x, c->n, 1000, 0.02, c->shifts, c->n_shifts, seed);
                struct change_point *cp = NULL;
                size_t n_cp = 0;
                double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
                if (change_points_find(x, c->n, p, &cp, &n_cp) < 0) {
                        fprintf(stderr, "change_points_find failed\n");
                        exit(1);
                }
                double ms = now_ms(CLOCK_MONOTONIC) - t0, cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
                total += ms;
                worst = MAX(worst, ms);
                cpu_total += cpu;
                cpu_worst = MAX(cpu_worst, cpu);
                ok += exact(c, cp, n_cp);
                any += n_cp > 0;
                free(cp);
        }
        if (c->n_shifts == 0)
                printf("  %-46s no change point in %u of %u seeds", c->name, seeds - any, seeds);
        else
                printf("  %-46s all shifts found within 1, nothing else, in %u of %u seeds", c->name, ok, seeds);
        printf("; %.2f ms mean, %.2f ms worst (CPU %.2f ms mean, %.2f ms worst)\n", total / seeds, worst,
               cpu_total / seeds, cpu_worst);
}

int main(int argc, char **argv) {
        unsigned seeds = argc > 1 ? (unsigned) atoi(argv[1]) : 100;
        const double alphas[] = { CHANGE_POINTS_SIGNIFICANCE_DEFAULT, 0.05 };
        for (size_t a = 0; a < ELEMENTSOF(alphas); a++) {
                struct change_points_params p = CHANGE_POINTS_PARAMS_DEFAULT;
                p.significance = alphas[a];
                printf("significance %g, min segment %zu, %u permutations, 2%% CoV noise, %u seeds:\n", p.significance,
                       p.min_segment, p.permutations, seeds);
                for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                        run_case(&cases[i], &p, cases[i].n >= SERIES_MAX ? MIN(seeds, 20u) : seeds);
        }
        return 0;
}
