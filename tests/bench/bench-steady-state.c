/* bench-steady-state.c: the time to classify one run's series (basic/steady-state: outliers,
 * PELT, classes) of 100 000 intervals of several shapes (goal: at most 50 ms each). Prints
 * figures; asserts nothing. Usage: bench-steady-state [N] [REPEATS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "basic/steady-state.h"
#include "tests/lib/synthetic-series.h"

static double cpu_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
        size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
        int repeats = argc > 2 ? atoi(argv[2]) : 5;
        double *x = malloc(n * sizeof *x);
        if (!x || n < 100 || repeats < 1)
                return 1;
        const struct {
                const char *name;
                struct synthetic_shift shifts[3];
                size_t n_shifts;
        } cases[] = {
                { "flat", { { 0, 1 } }, 0 },
                { "warmup in two steps", { { n / 100, 0.7 }, { n / 20, 0.8 } }, 2 },
                { "slowdown at the middle", { { n / 2, 1.2 } }, 1 },
                { "a step every 5%", { { 0, 1 } }, 0 },
        };
        printf("classifying a series of %zu intervals (2%% CoV noise), best of %d, CPU time:\n", n, repeats);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
                synthetic_series(x, n, 10, 0.02, cases[c].shifts, cases[c].n_shifts, c + 1);
                if (c == 3)
                        for (size_t i = 0; i < n; i++)
                                x[i] *= 1 + 0.1 * (double) ((i / (n / 20)) % 2);
                double best = 1e18;
                struct steady_state r = { 0 };
                for (int k = 0; k < repeats; k++) {
                        steady_state_done(&r);
                        double t0 = cpu_ms();
                        if (steady_state_classify(x, n, false, 0, &r) < 0)
                                return 1;
                        double t = cpu_ms() - t0;
                        best = t < best ? t : best;
                }
                printf("  %-26s %8.1f ms  (%s, %zu segments, %zu outliers)\n", cases[c].name, best,
                       steady_state_class_name(r.class), r.n_segments, r.n_outliers);
                steady_state_done(&r);
        }
        free(x);
        return 0;
}
