/* slicelab-spin: the C control benchmark.
 *
 * N threads each complete fixed units of pure CPU work (no memory traffic, no syscalls, no
 * locks) for S seconds; the throughput in units per second is what a CPU limit leaves to a
 * program with no runtime of its own, the baseline a JVM's figures are compared with.
 *   slicelab-spin --threads N --seconds S [--iterations K] [--change-at T --change-factor F]
 * With --iterations K the run is K in-process iterations of S/K seconds, each printing its own
 * {"ops_per_s": N} line as it ends (the daemon's steady-state series, issue 36); --change-at T
 * makes every unit after T seconds F times the work (F 3: a slowdown to a third; F 0.5: twice
 * as fast, a warmup's shape), so tests have known shapes. The last stdout line is
 * {"ops_per_s": N, "threads": N, "seconds": S}, the whole run's. Exit 2 on bad flags. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_USAGE 2
#define MAX_THREADS 1024
#define MAX_SECONDS 86400.0
/* One unit: a dependent chain of xorshift rounds, under 0.1 ms (85 us on a loaded 2-CPU VM of
 * this project). Small enough that a thread notices the stop flag promptly, large enough that
 * reading the flag costs nothing measurable. */
#define UNIT_ROUNDS 20000

#define MAX_ITERATIONS 100000

struct worker {
        pthread_t thread;
        _Atomic uint64_t units;         /* read by the main thread at each iteration's end */
        uint64_t check;
} __attribute__((aligned(64)));   /* one cache line each: no false sharing between counters */

static atomic_bool stop_flag;
static _Atomic long unit_rounds = UNIT_ROUNDS;

static uint64_t unit_of_work(uint64_t x) {
        long rounds = atomic_load_explicit(&unit_rounds, memory_order_relaxed);
        for (long i = 0; i < rounds; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
        }
        return x;
}

static void *worker_main(void *arg) {
        struct worker *w = arg;
        uint64_t x = (uintptr_t) w | 1;
        uint64_t units = 0;

        while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
                x = unit_of_work(x);
                atomic_store_explicit(&w->units, ++units, memory_order_relaxed);
        }
        w->check = x;   /* the result is used, so the compiler cannot drop the work */
        return NULL;
}

static int64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void usage(FILE *f) {
        fprintf(f, "usage: slicelab-spin --threads N --seconds S [--iterations K] [--change-at T --change-factor F]\n"
                   "  --threads N        worker threads, 1..%d (default 1)\n"
                   "  --seconds S        duration, a decimal number of seconds in (0, %.0f] (default 10)\n"
                   "  --iterations K     K iterations of S/K seconds, each printing {\"ops_per_s\": N}, 1..%d (default 1)\n"
                   "  --change-at T      after T seconds each unit is F times the work (default: never)\n"
                   "  --change-factor F  in [0.01, 100] (default 1)\n",
                MAX_THREADS, MAX_SECONDS, MAX_ITERATIONS);
}

static int parse_count(const char *s, long max, int *ret) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || s[0] == '+' || v < 1 || v > max)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

static int parse_seconds(const char *s, double *ret) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || !(v > 0) || v > MAX_SECONDS)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_factor(const char *s, double *ret) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0.01 || v > 100)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int sleep_seconds(double seconds) {
        struct timespec ts = {
                .tv_sec = (time_t) seconds,
                .tv_nsec = (long) ((seconds - (double) (time_t) seconds) * 1e9),
        };
        int r;
        /* The duration is the measurement itself, not a wait for an event: sleep through EINTR. */
        while ((r = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) == EINTR)
                ;
        return -r;
}

static uint64_t units_so_far(struct worker *workers, int n) {
        uint64_t units = 0;
        for (int i = 0; i < n; i++)
                units += atomic_load_explicit(&workers[i].units, memory_order_relaxed);
        return units;
}

/* Sleeps to the end of each iteration (the duration is the measurement itself: no event to
 * wait for), printing its ops/s; makes each unit factor times the work from change_at on. */
static int run_iterations(struct worker *workers, int n, double seconds, int iterations, double change_at, double factor,
                          int64_t t0) {
        uint64_t before = 0;
        int64_t last = t0;
        bool changed = change_at < 0;
        for (int k = 1; k <= iterations; k++) {
                double end_s = seconds * k / iterations;
                if (!changed && change_at < end_s) {
                        double wait = change_at - (double) (now_ns() - t0) / 1e9;
                        int r = wait > 0 ? sleep_seconds(wait) : 0;
                        if (r < 0)
                                return r;
                        atomic_store(&unit_rounds, (long) (UNIT_ROUNDS * factor));
                        changed = true;
                }
                double left = end_s - (double) (now_ns() - t0) / 1e9;
                int r = left > 0 ? sleep_seconds(left) : 0;
                if (r < 0)
                        return r;
                if (iterations == 1)
                        break;
                uint64_t units = units_so_far(workers, n);
                int64_t now = now_ns();
                printf("{\"ops_per_s\": %.1f}\n", (double) (units - before) / ((double) (now - last) / 1e9));
                fflush(stdout);
                before = units;
                last = now;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "threads", required_argument, NULL, 't' },
                { "seconds", required_argument, NULL, 's' },
                { "iterations", required_argument, NULL, 'i' },
                { "change-at", required_argument, NULL, 'a' },
                { "change-factor", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        int nthreads = 1, iterations = 1;
        double seconds = 10, change_at = -1, factor = 1;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
                switch (c) {
                case 't':
                        if (parse_count(optarg, MAX_THREADS, &nthreads) < 0) {
                                fprintf(stderr, "slicelab-spin: --threads must be an integer in 1..%d, got '%s'\n",
                                        MAX_THREADS, optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 's':
                        if (parse_seconds(optarg, &seconds) < 0) {
                                fprintf(stderr, "slicelab-spin: --seconds must be a number in (0, %.0f], got '%s'\n",
                                        MAX_SECONDS, optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'i':
                        if (parse_count(optarg, MAX_ITERATIONS, &iterations) < 0) {
                                fprintf(stderr, "slicelab-spin: --iterations must be an integer in 1..%d, got '%s'\n",
                                        MAX_ITERATIONS, optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'a':
                        if (parse_seconds(optarg, &change_at) < 0) {
                                fprintf(stderr, "slicelab-spin: --change-at must be a number in (0, %.0f], got '%s'\n",
                                        MAX_SECONDS, optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'f':
                        if (parse_factor(optarg, &factor) < 0) {
                                fprintf(stderr, "slicelab-spin: --change-factor must be a number in [0.01, 100], got '%s'\n",
                                        optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'h':
                        usage(stdout);
                        return EXIT_SUCCESS;
                default:
                        usage(stderr);
                        return EXIT_USAGE;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "slicelab-spin: unexpected argument '%s'\n", argv[optind]);
                usage(stderr);
                return EXIT_USAGE;
        }

        struct worker *workers = calloc((size_t) nthreads, sizeof *workers);
        if (!workers) {
                fprintf(stderr, "slicelab-spin: out of memory\n");
                return EXIT_FAILURE;
        }

        int64_t t0 = now_ns();
        int started = 0, r = 0;
        for (; started < nthreads; started++) {
                r = pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]);
                if (r != 0)
                        break;
        }
        if (r == 0)
                r = run_iterations(workers, started, seconds, iterations, change_at, factor, t0);
        atomic_store(&stop_flag, true);

        uint64_t units = 0, check = 0;
        for (int i = 0; i < started; i++) {
                pthread_join(workers[i].thread, NULL);
                units += atomic_load(&workers[i].units);
                check ^= workers[i].check;
        }
        int64_t elapsed = now_ns() - t0;
        free(workers);
        if (r != 0) {
                fprintf(stderr, "slicelab-spin: %s\n", strerror(r > 0 ? r : -r));
                return EXIT_FAILURE;
        }

        /* Units finished after the stop flag was raised count too, so divide by the time until
         * the last thread stopped, not by the requested duration. */
        double secs = (double) elapsed / 1e9;
        fprintf(stderr, "slicelab-spin: %" PRIu64 " units in %.3f s (check %016" PRIx64 ")\n", units, secs, check);
        printf("{\"ops_per_s\": %.1f, \"threads\": %d, \"seconds\": %.3f}\n", (double) units / secs, nthreads, secs);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
