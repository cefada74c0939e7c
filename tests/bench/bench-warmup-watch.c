/* bench-warmup-watch.c: what load.warmup_s "auto"'s check (daemon/warmup-watch) costs the daemon
 * during a warmup (goal: at most 1% of one CPU). Per request rate, a writer thread appends
 * records to a real timeline.bin in a scratch directory as slicelab-inject --warmup-until-signal
 * does: the header at t0 with the longest warmup, then once a second on a grid from t0 the
 * records scheduled before then, all flagged TIMELINE_WARMUP, their latencies falling from 8 to 2
 * ms over the first seconds (a JIT warming) with lognormal noise, 1 in 200 ten times slower and 1
 * in 1000 a timeout. Meanwhile this thread runs a real sd-event loop with the watch on it, as the
 * daemon's run does, in median latency mode (max mode's throughput skips one selection). The
 * run is a JVM whose samples say the JIT compiles 100 ms/s throughout, so the watch never ends
 * the warmup and does its whole work every tick: the timeline read on, each interval's median,
 * the segmentation of the last 120 intervals; the samples are filled beforehand and the JIT check
 * reads at most a few of them per tick, as it does live. Prints per rate the seconds watched,
 * the loop thread's CPU time (CLOCK_THREAD_CPUTIME_ID: the watch, its reads and sd-event's own
 * wakeups), that as a share of one CPU and per tick (mean and worst), and where the watch stood;
 * then, since the runs are shorter than the watch's window of 120 intervals, the segmentation of a
 * full window timed alone, which a warmup that long adds to every tick. Asserts nothing. Usage: bench-warmup-watch [SECONDS] [RATE...] (default 20 s at 100, 1000,
 * 10000 and 50000 req/s). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/timeline-format.h"
#include "daemon/samples.h"
#include "daemon/warmup-watch.h"
#include "tests/lib/synthetic-series.h"

DEFINE_POINTER_CLEANUP(struct warmup_watch, warmup_watch_free)

struct writer {
        int fd;
        unsigned rate;
        int64_t t0, end;                /* the schedule's start; no flush after end */
        uint64_t rng;
        struct timeline_record *buf;    /* one second's records, allocated once */
        size_t cap;
        uint64_t next;                  /* the next request's index in the schedule */
        int error;                      /* negative errno */
};

struct steady {
        int64_t at_ns;                  /* when the watch said steady; 0 if it did not */
};

static void on_steady(void *userdata, const char *message) {
        struct steady *s = userdata;
        s->at_ns = now_mono_ns();
        printf("  the watch said steady (it should not, the JIT is compiling): %s\n", message);
}

/* Request i's record: due on the schedule, answered after the warmup's latency of the moment. */
static void make_record(struct writer *w, uint64_t i, struct timeline_record *r) {
        int64_t due = w->t0 + (int64_t) (i * (uint64_t) NSEC_PER_SEC / w->rate);
        double t = seconds_from_ns(due - w->t0);
        double ms = 2.0 * (1 + 3 * exp(-t / 4)) * exp(0.25 * synthetic_normal(&w->rng));
        uint64_t u = splitmix64(&w->rng);
        if (u % 200 == 0)
                ms *= 10;
        *r = (struct timeline_record){
                .scheduled_ns = due,
                .submit_ns = due + 20 * NSEC_PER_USEC,
                .done_ns = due + (int64_t) (ms * NSEC_PER_MSEC),
                .status = 200,
                .bytes = 512,
                .conn = (uint32_t) (i % 64),
                .flags = TIMELINE_WARMUP,
        };
        if (u % 1000 == 1) {
                r->status = 0;
                r->error = TIMELINE_ERR_TIMEOUT;
                r->done_ns = due + 2 * NSEC_PER_SEC;
        }
}

/* Once a second from t0, the records due before then, in one write, as the injector flushes. */
static void *writer_run(void *userdata) {
        struct writer *w = userdata;
        for (int64_t at = w->t0 + NSEC_PER_SEC; at <= w->end; at += NSEC_PER_SEC) {
                struct timespec ts = timespec_from_ns(at);
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
                size_t n = 0;
                for (;; n++) {
                        if (n == w->cap) {
                                w->error = -ENOBUFS;
                                return NULL;
                        }
                        make_record(w, w->next, &w->buf[n]);
                        if (w->buf[n].scheduled_ns >= at)
                                break;
                        w->next++;
                }
                int r = write_full(w->fd, w->buf, n * sizeof *w->buf);
                if (r < 0) {
                        w->error = r;
                        return NULL;
                }
        }
        return NULL;
}

static double thread_cpu_ms(void) {
        return (double) clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e6;
}

/* dir and its timeline, gone at the end of the scope. */
static void scratch_remove(char **dir) {
        if (!*dir)
                return;
        char path[4096];
        snprintf(path, sizeof path, "%s/timeline.bin", *dir);
        (void) unlink(path);
        (void) rmdir(*dir);
        free(*dir);
}

static int bench_rate(unsigned rate, int seconds) {
        _cleanup_(scratch_remove) char *dir = strdup("/tmp/bench-warmup-watch.XXXXXX");
        if (!dir)
                return -ENOMEM;
        if (!mkdtemp(dir)) {
                int r = negative_errno();
                free(TAKE_PTR(dir));
                return r;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/timeline.bin", dir);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
                return negative_errno();

        /* One record more than a second holds: the one due after the flush that ends each batch. */
        _cleanup_free_ struct timeline_record *buf = calloc((size_t) rate + 2, sizeof *buf);
        _cleanup_free_ struct sample_point *points = calloc((size_t) seconds + 10, sizeof *points);
        if (!buf || !points)
                return -ENOMEM;

        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        int r = sd_event_new(&event);
        if (r < 0)
                return r;
        uint64_t now_us;
        if ((r = sd_event_now(event, CLOCK_MONOTONIC, &now_us)) < 0)
                return r;
        int64_t t0 = (int64_t) now_us * NSEC_PER_USEC, end = t0 + (int64_t) seconds * NSEC_PER_SEC;

        /* The header at t0 with the longest warmup (warmup_max_s), as the injector writes it. */
        struct timeline_header h = timeline_header_make(t0, end + 60 * NSEC_PER_SEC);
        if ((r = write_full(fd, &h, sizeof h)) < 0)
                return r;

        /* The JVM's 1 s samples: the JIT compiles 100 ms/s throughout, so the run stays in warmup. */
        struct samples samples = { .points = points, .n = (size_t) seconds + 10, .cap = (size_t) seconds + 10 };
        for (size_t i = 0; i < samples.n; i++)
                points[i] = (struct sample_point){ .t_ns = t0 + (int64_t) i * NSEC_PER_SEC, .has_compile = true,
                                                   .compile_ns = (int64_t) i * 100 * NSEC_PER_MSEC };

        struct steady steady = { 0 };
        _cleanup_(warmup_watch_freep) struct warmup_watch *watch = NULL;
        if ((r = warmup_watch_new(event, path, false, true, &samples, on_steady, &steady, &watch)) < 0)
                return r;

        struct writer w = { .fd = fd, .rate = rate, .t0 = t0, .end = end, .rng = rate, .buf = buf, .cap = (size_t) rate + 2 };
        pthread_t thread;
        if ((r = -pthread_create(&thread, NULL, writer_run, &w)) < 0)
                return r;

        /* One dispatch per sd_event_run: the watch's tick, its CPU time measured around it. */
        double cpu_start = thread_cpu_ms(), tick_sum = 0, tick_max = 0;
        unsigned ticks = 0;
        int loop_r = 0;
        for (int64_t now = now_mono_ns(); now < end; now = now_mono_ns()) {
                double before = thread_cpu_ms();
                loop_r = sd_event_run(event, (uint64_t) ((end - now) / NSEC_PER_USEC) + 1);
                if (loop_r < 0)
                        break;
                if (loop_r > 0) {
                        double t = thread_cpu_ms() - before;
                        tick_sum += t;
                        tick_max = MAX(tick_max, t);
                        ticks++;
                }
        }
        double cpu = thread_cpu_ms() - cpu_start;
        double wall = seconds_from_ns(now_mono_ns() - t0);
        pthread_join(thread, NULL);
        if (loop_r < 0)
                return loop_r;
        if (w.error < 0)
                return w.error;

        char where[512];
        warmup_watch_describe(watch, where, sizeof where);
        printf("%8u %9.1f %10llu %9.1f %9.3f%% %9.3f %9.3f\n", rate, wall, (unsigned long long) w.next, cpu,
               100 * cpu / (wall * 1e3), ticks ? tick_sum / ticks : 0.0, tick_max);
        printf("         %u ticks; where it stood: %s\n", ticks, where);
        fflush(stdout);
        return 0;
}

/* The runs above are shorter than WARMUP_WINDOW seconds: the segmentation of a full window, which
 * a warmup longer than that pays every tick, timed alone on the same warmup's medians. */
static int bench_full_window(void) {
        double x[WARMUP_WINDOW];
        uint64_t rng = 1;
        for (size_t k = 0; k < ELEMENTSOF(x); k++)
                x[k] = 2000 * (1 + 3 * exp(-((double) k + 0.5) / 4)) * (1 + 0.02 * synthetic_normal(&rng));
        double sum = 0, worst = 0;
        const int repeats = 100;
        for (int i = 0; i < repeats; i++) {
                size_t last;
                double before = thread_cpu_ms();
                int r = warmup_last_segment(x, ELEMENTSOF(x), false, &last);
                if (r < 0)
                        return r;
                double t = thread_cpu_ms() - before;
                sum += t;
                worst = MAX(worst, t);
        }
        printf("the segmentation of a full window of %d intervals (each tick once a warmup is that long): "
               "%.3f ms mean, %.3f worst of %d\n", WARMUP_WINDOW, sum / repeats, worst, repeats);
        return 0;
}

int main(int argc, char **argv) {
        int seconds = argc > 1 ? atoi(argv[1]) : 20;
        unsigned default_rates[] = { 100, 1000, 10000, 50000 };
        if (seconds < 2) {
                fprintf(stderr, "usage: bench-warmup-watch [SECONDS] [RATE...]\n");
                return 1;
        }
        printf("the warmup watch (daemon/warmup-watch) on a timeline written at each rate for %d s, the loop\n"
               "thread's CPU time (goal: at most 1%% of one CPU):\n", seconds);
        printf("%8s %9s %10s %9s %10s %9s %9s\n", "req/s", "watched s", "records", "CPU ms", "of 1 CPU", "ms/tick",
               "worst ms");
        size_t n = argc > 2 ? (size_t) argc - 2 : ELEMENTSOF(default_rates);
        for (size_t i = 0; i < n; i++) {
                unsigned rate = argc > 2 ? (unsigned) strtoul(argv[i + 2], NULL, 10) : default_rates[i];
                if (rate == 0) {
                        fprintf(stderr, "bench-warmup-watch: bad rate %s\n", argv[i + 2]);
                        return 1;
                }
                int r = bench_rate(rate, seconds);
                if (r < 0) {
                        fprintf(stderr, "bench-warmup-watch: %u req/s: %s\n", rate, strerror(-r));
                        return 1;
                }
        }
        int r = bench_full_window();
        if (r < 0) {
                fprintf(stderr, "bench-warmup-watch: the full window: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}
