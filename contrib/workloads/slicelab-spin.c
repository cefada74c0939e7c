/* slicelab-spin: the C control benchmark.
 *
 * N threads each complete fixed units of pure CPU work (no memory traffic, no syscalls, no
 * locks) for S seconds; the throughput in units per second is what a CPU limit leaves to a
 * program with no runtime of its own, the baseline a JVM's figures are compared with.
 *   slicelab-spin --threads N --seconds S
 * The last stdout line is {"ops_per_s": N, "threads": N, "seconds": S}. Exit 2 on bad flags. */
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

struct worker {
        pthread_t thread;
        uint64_t units;
        uint64_t check;
} __attribute__((aligned(64)));   /* one cache line each: no false sharing between counters */

static atomic_bool stop_flag;

static uint64_t unit_of_work(uint64_t x) {
        for (int i = 0; i < UNIT_ROUNDS; i++) {
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
                units++;
        }
        w->units = units;
        w->check = x;   /* the result is used, so the compiler cannot drop the work */
        return NULL;
}

static int64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void usage(FILE *f) {
        fprintf(f, "usage: slicelab-spin --threads N --seconds S\n"
                   "  --threads N   worker threads, 1..%d (default 1)\n"
                   "  --seconds S   duration, a decimal number of seconds in (0, %.0f] (default 10)\n",
                MAX_THREADS, MAX_SECONDS);
}

static int parse_threads(const char *s, int *ret) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || s[0] == '+' || v < 1 || v > MAX_THREADS)
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

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "threads", required_argument, NULL, 't' },
                { "seconds", required_argument, NULL, 's' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        int nthreads = 1;
        double seconds = 10;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
                switch (c) {
                case 't':
                        if (parse_threads(optarg, &nthreads) < 0) {
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
                r = sleep_seconds(seconds);
        atomic_store(&stop_flag, true);

        uint64_t units = 0, check = 0;
        for (int i = 0; i < started; i++) {
                pthread_join(workers[i].thread, NULL);
                units += workers[i].units;
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
