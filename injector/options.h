/* options.h: the command line of slicelab-inject, parsed and validated into one struct.
 * Everything here comes from a user (or from a definition the daemon turned into argv), so every
 * value is bounded and a bad one is a usage error (exit status 2), never a surprise at run time. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/time-util.h"

#define INJECT_MAX_HEADERS 64
#define INJECT_MAX_CONNECTIONS 100000
#define INJECT_MAX_THREADS 256
#define INJECT_MAX_RATE 10000000.0
#define INJECT_MAX_DURATION_NS (INT64_C(30) * 24 * 3600 * NSEC_PER_SEC)

enum inject_mode {
        INJECT_MODE_RATE,       /* open loop: one global schedule at --rate */
        INJECT_MODE_MAX,        /* closed loop: every connection always has a request in flight */
};

enum inject_arrival {
        INJECT_ARRIVAL_UNIFORM,
        INJECT_ARRIVAL_POISSON,
};

struct inject_options {
        const char *url;
        enum inject_mode mode;
        double rate;
        enum inject_arrival arrival;
        uint64_t seed;
        int64_t start_at_ns;    /* CLOCK_MONOTONIC instant the schedule starts; 0: at once */
        int64_t phase_ns;       /* uniform arrivals shifted by this much, below one gap */
        unsigned connections;
        unsigned threads;
        int64_t warmup_ns;
        bool warmup_until_signal; /* SIGUSR1 may end the warmup early (at most warmup_ns) */
        int64_t duration_ns;
        int64_t timeout_ns;
        int64_t spin_ns;
        bool spin_given;        /* else calibrated (injector/calibrate.h) */
        double spin_budget;     /* share of the CPU calibration may spend spinning */
        int64_t batch_ns;
        const char *method;
        const char *body_path;
        const char *headers[INJECT_MAX_HEADERS];
        unsigned n_headers;
        const char *timeline_path;
        const char *summary_path;
        const char *hlog_path;
        int64_t hlog_interval_ns;
        const char *convert_csv;
        bool help;
        bool version;
};

/* Parse argv into *ret. On a usage error, say what is wrong on stderr and return -EINVAL (*ret
 * is then unspecified); the caller prints the usage and exits 2. */
int options_parse(int argc, char **argv, struct inject_options *ret);
void options_usage(FILE *f);

/* "60", "60s", "1.5s", "250ms", "100us", "2m", "1h" -> ns. Rejects signs, spaces, empty
 * strings, more than 9 fractional digits and anything above INJECT_MAX_DURATION_NS. */
int options_parse_duration_ns(const char *s, int64_t *ret);

/* How far in the past --start-at may be when the injector starts (the schedule then begins
 * late, its requests' lag says by how much); further is refused. */
#define INJECT_START_AT_PAST_MAX_NS NSEC_PER_SEC
/* 0 when --start-at is absent, in the future or within INJECT_START_AT_PAST_MAX_NS of now;
 * else says so on stderr and returns -ERANGE. */
int options_check_start_at(const struct inject_options *o, int64_t now_ns);

const char *options_mode_name(enum inject_mode m);
const char *options_arrival_name(enum inject_arrival a);
