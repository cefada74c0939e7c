/* warmup-watch.c: whether a warming run is steady, once a second (see warmup-watch.h). */
#include "daemon/warmup-watch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/stats.h"
#include "basic/steady-state.h"
#include "basic/time-util.h"
#include "basic/timeline-format.h"
#include "daemon/run-files.h"
#include "daemon/samples.h"
#include "daemon/timeline-series.h"

#define CHECK_INTERVAL_US (1000 * 1000)
#define READ_RECORDS 1024

/* The timeline as far as the injector has flushed it, turned into the series' values. */
struct series_reader {
        char *dir;              /* the run's directory: the run user's, read as run-files.h reads */
        const char *name;       /* the timeline's name in it */
        int fd;                 /* -1 until the injector made the file */
        char unreadable[256];   /* why it cannot be read, once it could not */
        bool have_header;
        int64_t t0;             /* the schedule's start */
        off_t offset;           /* where the next whole record begins */
        bool rate_metric;
        int64_t interval;       /* the interval being filled; -1 before the first record */
        int64_t *latency_ns;    /* its answered requests' latencies (kept between intervals) */
        size_t n_latency, cap_latency;
        double *values;         /* the complete intervals' values, as timeline-series.c makes them */
        size_t n_values, cap_values;
        struct timeline_record buf[READ_RECORDS];
};

struct warmup_watch {
        sd_event_source *timer;
        bool jvm;
        const struct samples *samples;
        warmup_watch_fn on_steady;
        void *userdata;
        bool have_jit_rate;
        double jit_ms_per_s;
        size_t last_segment;
        bool trend_flat;
        double trend;           /* the fitted change across the last segment, a share of its mean */
        struct series_reader series;
};

static int grow(void **p, size_t *cap, size_t need, size_t size) {
        if (need <= *cap)
                return 0;
        size_t cap2 = MAX(*cap * 2, (size_t) 256);
        void *q = reallocarray(*p, cap2, size);
        if (!q)
                return -ENOMEM;
        *p = q;
        *cap = cap2;
        return 0;
}

/* The interval that ended: its value joins the series when it has one (> 0). */
static int close_interval(struct series_reader *s) {
        size_t n = s->n_latency;
        s->n_latency = 0;
        if (n == 0)
                return 0;
        double v = s->rate_metric ? (double) n / seconds_from_ns(TIMELINE_SERIES_INTERVAL_NS)
                                  : (double) stats_select_i64(s->latency_ns, n, (n - 1) / 2) / 1000.0;
        if (!(v > 0))
                return 0;
        int r = grow((void **) &s->values, &s->cap_values, s->n_values + 1, sizeof *s->values);
        if (r < 0)
                return r;
        s->values[s->n_values++] = v;
        return 0;
}

/* Records come in schedule order: one past an interval's end completes it. */
static int take_record(struct series_reader *s, const struct timeline_record *rec) {
        if (rec->scheduled_ns < s->t0)
                return 0;
        int64_t k = (rec->scheduled_ns - s->t0) / TIMELINE_SERIES_INTERVAL_NS;
        int r;
        if (k > s->interval) {
                if (s->interval >= 0 && (r = close_interval(s)) < 0)
                        return r;
                s->interval = k;
        }
        if (rec->status == 0)
                return 0;
        if ((r = grow((void **) &s->latency_ns, &s->cap_latency, s->n_latency + 1, sizeof *s->latency_ns)) < 0)
                return r;
        s->latency_ns[s->n_latency++] = rec->done_ns - rec->scheduled_ns;
        return 0;
}

static int read_header(struct series_reader *s) {
        if (s->fd < 0) {
                /* Not open(): a FIFO the run user put there would block the daemon's loop. */
                int r = run_file_open(s->dir, s->name, RUN_FILE_CAP_TIMELINE, &s->fd, s->unreadable, sizeof s->unreadable);
                if (r == -ENOENT)
                        s->unreadable[0] = '\0';
                if (r < 0)
                        return r == -ENOENT ? 0 : r;
        }
        struct timeline_header h;
        ssize_t n = pread(s->fd, &h, sizeof h, 0);
        if (n < 0)
                return negative_errno();
        if (n < (ssize_t) sizeof h)
                return 0;       /* not written yet */
        if (memcmp(h.magic, "SLTL", 4) != 0 || h.record_size != sizeof(struct timeline_record)) {
                snprintf(s->unreadable, sizeof s->unreadable, "%s is not a timeline", s->name);
                return -EBADMSG;
        }
        s->t0 = h.start_ns;
        s->offset = sizeof h;
        s->have_header = true;
        return 0;
}

/* Reads on from the last whole record; a record half written is read next time. */
static int series_read(struct series_reader *s) {
        int r;
        if (!s->have_header && ((r = read_header(s)) < 0 || !s->have_header))
                return r;
        for (;;) {
                ssize_t n = pread(s->fd, s->buf, sizeof s->buf, s->offset);
                if (n < 0)
                        return negative_errno();
                size_t records = (size_t) n / sizeof *s->buf;
                for (size_t i = 0; i < records; i++)
                        if ((r = take_record(s, &s->buf[i])) < 0)
                                return r;
                s->offset += (off_t) (records * sizeof *s->buf);
                if (records < READ_RECORDS)
                        return 0;
        }
}

bool warmup_jit_rate(const struct sample_point *points, size_t n, double *ret_ms_per_s) {
        size_t last = n;
        while (last > 0 && !points[last - 1].has_compile)
                last--;
        if (last == 0)
                return false;
        const struct sample_point *b = &points[last - 1];
        int64_t from = b->t_ns - (int64_t) WARMUP_JIT_QUIET_S * NSEC_PER_SEC;
        const struct sample_point *a = NULL;
        /* the latest point at or before the window's start: the rate covers the whole window */
        for (size_t i = last - 1; i-- > 0;)
                if (points[i].has_compile && points[i].t_ns <= from) {
                        a = &points[i];
                        break;
                }
        if (!a)
                return false;
        *ret_ms_per_s = (double) (b->compile_ns - a->compile_ns) / 1e6 / seconds_from_ns(b->t_ns - a->t_ns);
        return true;
}

int warmup_last_segment(const double *x, size_t n, bool higher_is_faster, size_t *ret) {
        if (n < WARMUP_STEADY_INTERVALS) {
                *ret = 0;
                return 0;
        }
        size_t w = MIN(n, (size_t) WARMUP_WINDOW);
        struct steady_state ss;
        int r = steady_state_classify(x + (n - w), w, higher_is_faster, 0, &ss);
        if (r < 0)
                return r;
        *ret = ss.n_segments > 0 ? w - ss.segments[ss.n_segments - 1].start : 0;
        steady_state_done(&ss);
        return 0;
}

bool warmup_trend_flat(const double *x, size_t n, double *ret_change) {
        if (n < 3)
                return false;
        double mean_i = (double) (n - 1) / 2.0, mean_x = 0, sxx = 0, sxy = 0, ssr = 0;
        for (size_t i = 0; i < n; i++)
                mean_x += x[i] / (double) n;
        for (size_t i = 0; i < n; i++) {
                sxx += ((double) i - mean_i) * ((double) i - mean_i);
                sxy += ((double) i - mean_i) * (x[i] - mean_x);
        }
        double slope = sxy / sxx;
        for (size_t i = 0; i < n; i++) {
                double e = x[i] - (mean_x + slope * ((double) i - mean_i));
                ssr += e * e;
        }
        double se = sqrt(ssr / (double) (n - 2) / sxx);
        *ret_change = mean_x > 0 ? slope * (double) (n - 1) / mean_x : 0;
        return fabs(*ret_change) <= WARMUP_TREND_MAX || fabs(slope) <= stats_t_quantile(0.975, (double) (n - 2)) * se;
}

/* The last segment long enough and without a trend: the segmentation alone calls a smooth
 * warmup one segment until enough of it is in (2(1 + 3e^(-t/4)) ms was one segment for 18 s). */
static bool series_steady(struct warmup_watch *w) {
        w->trend_flat = false;
        if (w->last_segment < WARMUP_STEADY_INTERVALS)
                return false;
        w->trend_flat = warmup_trend_flat(w->series.values + w->series.n_values - w->last_segment, w->last_segment, &w->trend);
        return w->trend_flat;
}

static bool jit_quiet(struct warmup_watch *w) {
        if (!w->jvm)
                return true;
        w->have_jit_rate = warmup_jit_rate(w->samples->points, w->samples->n, &w->jit_ms_per_s);
        /* Counters that cannot be read do not hold the run in warmup to its bound: the series
         * decides alone, and the message says so. */
        if (!w->have_jit_rate)
                return w->samples->n > WARMUP_JIT_QUIET_S && !w->samples->points[w->samples->n - 1].has_compile;
        return w->jit_ms_per_s <= WARMUP_JIT_QUIET_MS_PER_S;
}

void warmup_watch_describe(const struct warmup_watch *w, char *buf, size_t size) {
        char jit[128];
        if (!w->jvm)
                snprintf(jit, sizeof jit, "no JIT to wait for (not a JVM)");
        else if (w->have_jit_rate)
                snprintf(jit, sizeof jit, "the JIT compiled %.1f ms/s over the last %d s (quiet: at most %.0f)",
                         w->jit_ms_per_s, WARMUP_JIT_QUIET_S, WARMUP_JIT_QUIET_MS_PER_S);
        else
                snprintf(jit, sizeof jit, "the JIT's compile time could not be read");
        if (w->series.unreadable[0])
                snprintf(buf, size, "%s; the series could not be read: %s", jit, w->series.unreadable);
        else if (w->last_segment < WARMUP_STEADY_INTERVALS)
                snprintf(buf, size, "%s; the series' last segment holds %zu of its last %zu intervals (steady: at least %d)",
                         jit, w->last_segment, MIN(w->series.n_values, (size_t) WARMUP_WINDOW), WARMUP_STEADY_INTERVALS);
        else
                snprintf(buf, size,
                         "%s; the series' last segment holds %zu of its last %zu intervals (steady: at least %d), its "
                         "fitted trend %+.1f%% across it (%s)",
                         jit, w->last_segment, MIN(w->series.n_values, (size_t) WARMUP_WINDOW), WARMUP_STEADY_INTERVALS,
                         w->trend * 100,
                         w->trend_flat ? "flat: within 2% or no trend at 95%" : "still moving: over 2% and a trend at 95%");
}

static int on_check(sd_event_source *s, uint64_t usec, void *userdata) {
        struct warmup_watch *w = userdata;
        int r = series_read(&w->series);
        if (r >= 0)
                r = warmup_last_segment(w->series.values, w->series.n_values, w->series.rate_metric, &w->last_segment);
        bool quiet = jit_quiet(w);
        bool steady = r >= 0 && series_steady(w);
        if (quiet && steady) {
                char why[384];
                warmup_watch_describe(w, why, sizeof why);
                w->timer = sd_event_source_disable_unref(w->timer);
                w->on_steady(w->userdata, why);
                return 0;
        }
        /* A timeline that cannot be read leaves the run to warmup_max_s, which says where it stood. */
        sd_event_source_set_time(s, usec + CHECK_INTERVAL_US);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* dir holds the whole path: cut at its last slash into the directory and the name. */
static int split_path(struct series_reader *s) {
        char *slash = strrchr(s->dir, '/');
        if (!slash || slash == s->dir || !slash[1])
                return -EINVAL;
        *slash = '\0';
        s->name = slash + 1;
        return 0;
}

int warmup_watch_new(sd_event *event, const char *timeline_path, bool rate_metric, bool jvm,
                     const struct samples *samples, warmup_watch_fn on_steady, void *userdata,
                     struct warmup_watch **ret) {
        struct warmup_watch *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        *w = (struct warmup_watch){ .jvm = jvm, .samples = samples, .on_steady = on_steady, .userdata = userdata };
        w->series = (struct series_reader){ .dir = strdup(timeline_path), .fd = -1, .rate_metric = rate_metric,
                                            .interval = -1 };
        uint64_t now;
        int r = w->series.dir ? split_path(&w->series) : -ENOMEM;
        if (r >= 0)
                r = sd_event_now(event, CLOCK_MONOTONIC, &now);
        if (r >= 0)
                r = sd_event_add_time(event, &w->timer, CLOCK_MONOTONIC, now + CHECK_INTERVAL_US, 1000, on_check, w);
        if (r < 0) {
                warmup_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

struct warmup_watch *warmup_watch_free(struct warmup_watch *w) {
        if (!w)
                return NULL;
        w->timer = sd_event_source_disable_unref(w->timer);
        if (w->series.fd >= 0)
                close(w->series.fd);
        free(w->series.dir);
        free(w->series.latency_ns);
        free(w->series.values);
        free(w);
        return NULL;
}
