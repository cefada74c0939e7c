/* options.c: slicelab-inject's command line. */
#include "injector/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basic/hlog.h"
#include "basic/time-util.h"
#include "basic/macro.h"

const char *options_mode_name(enum inject_mode m) {
        return m == INJECT_MODE_MAX ? "max" : "rate";
}

const char *options_arrival_name(enum inject_arrival a) {
        return a == INJECT_ARRIVAL_POISSON ? "poisson" : "uniform";
}

void options_usage(FILE *f) {
        fputs("Usage: slicelab-inject --url URL (--rate R | --mode max) [options]\n"
              "       slicelab-inject --convert-csv IN --timeline OUT [--warmup D]\n"
              "\n"
              "Sends HTTP/1.1 requests over keep-alive connections and records, for every request,\n"
              "when it was scheduled, when its first byte was sent and when its answer was complete.\n"
              "\n"
              "Load:\n"
              "  --url URL                  http://host[:port]/path; host is an IPv4 literal, an IPv6\n"
              "                             literal in brackets or a name (resolved once, at start)\n"
              "  --mode rate|max            open loop at --rate (default), or closed loop with one\n"
              "                             request in flight on every connection\n"
              "  --rate R                   requests per second of the open loop\n"
              "  --arrival uniform|poisson  gaps between scheduled requests (default uniform)\n"
              "  --seed N                   seed of the Poisson schedule (default 1)\n"
              "  --phase NS                 shift the uniform schedule by NS nanoseconds, less than\n"
              "                             one gap (1e9/R); with --start-at, lets several injectors\n"
              "                             interleave their arrivals into one uniform schedule\n"
              "  --connections N            keep-alive connections (default 16)\n"
              "  --threads N                event loops the connections are spread over (default 1),\n"
              "                             sharing nothing: each its connections, every N-th arrival\n"
              "                             and its own timeline block, merged at the end\n"
              "  --timeout D                per request, from its first byte (default 5s)\n"
              "  --spin D                   busy-wait this long before a due request instead of\n"
              "                             sleeping, for send-time accuracy (default: calibrated\n"
              "                             before the run from how late this CPU's wakeups are,\n"
              "                             for a lag p99 within 200us, and raised during --warmup\n"
              "                             while the lag it gets is above that; 20us where not\n"
              "                             calibrated)\n"
              "  --spin-budget PCT          most of the CPU calibration may spend spinning (default 50)\n"
              "  --batch D                  when requests are due less than D apart on average\n"
              "                             (per thread), tick: wake every D, send what is due and\n"
              "                             read every answer that came (their times are the\n"
              "                             kernel's); fewer wakeups at high rates, lag up to D\n"
              "                             (default 100us; 0 wakes for every request)\n",
              f);
        /* Two strings: one would pass the 4095 characters -Woverlength-strings allows. */
        fputs("Requests:\n"
              "  --method M                 (default GET)\n"
              "  --body FILE                request body, at most 16 MiB\n"
              "  --header 'Name: value'     extra request header, repeatable\n"
              "Phases:\n"
              "  --start-at NS              start the schedule (the warmup) at this CLOCK_MONOTONIC\n"
              "                             instant in nanoseconds, connections open and calibrated\n"
              "                             before it (default: as soon as they are); refused when\n"
              "                             more than 1s in the past\n"
              "  --warmup D                 first phase; its records carry the warmup flag (default 0)\n"
              "  --warmup-until-signal      the warmup lasts at most --warmup D (above 0): SIGUSR1\n"
              "                             during it starts the measure phase at once, for\n"
              "                             --duration from there; meanwhile the timeline's ready\n"
              "                             records reach the file once a second\n"
              "  --duration D               the measure phase (default 10s)\n"
              "Output:\n"
              "  --timeline FILE            one 40-byte record per request (slicelab timeline format)\n"
              "  --summary FILE             JSON summary (default: standard output)\n"
              "  --hlog FILE                HdrHistogram interval log (format 1.3, V2 histograms) of the\n"
              "                             measure phase: tags 'scheduled' (corrected) and 'submit',\n"
              "                             microseconds, intervals of the scheduled time\n"
              "  --hlog-interval D          its interval, 1ms to 1h (default 1s)\n"
              "  --convert-csv IN           turn a CSV with the columns scheduled_ns,submit_ns,done_ns,\n"
              "                             status (--warmup: its first records' span), or slicelab's own\n"
              "                             export (`slicelab timeline`, known by its header line), into\n"
              "                             the timeline format, written to --timeline\n"
              "  --help, --version\n"
              "\n"
              "Durations are plain seconds or carry a suffix: 90, 1.5s, 250ms, 100us, 2m, 1h.\n"
              "Exit status: 0 when the run took place (failed requests are data, recorded in the\n"
              "timeline), 1 when it could not run, 2 on a usage error. SIGTERM ends the run early and\n"
              "cleanly: the files are complete and the summary says \"stopped\": true. SIGUSR1 ends\n"
              "a --warmup-until-signal warmup; otherwise it is ignored.\n",
              f);
}

static int usage_error(const char *fmt, ...) _printf_(1, 2);
static int usage_error(const char *fmt, ...) {
        va_list ap;
        fputs("slicelab-inject: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return -EINVAL;
}

int options_parse_duration_ns(const char *s, int64_t *ret) {
        static const struct {
                const char *suffix;
                int64_t unit;
        } units[] = {
                { "", NSEC_PER_SEC },      { "s", NSEC_PER_SEC },    { "ms", NSEC_PER_MSEC },
                { "us", NSEC_PER_USEC },   { "ns", 1 },              { "m", 60 * NSEC_PER_SEC },
                { "h", 3600 * NSEC_PER_SEC },
        };
        if (!s)
                return -EINVAL;
        const char *p = s;
        uint64_t whole = 0, frac = 0, frac_scale = 1;
        size_t ndigits = 0;
        for (; isdigit((unsigned char) *p); p++, ndigits++) {
                if (ndigits >= 15)
                        return -ERANGE;
                whole = whole * 10 + (uint64_t) (*p - '0');
        }
        if (*p == '.') {
                p++;
                size_t nfrac = 0;
                for (; isdigit((unsigned char) *p); p++, nfrac++) {
                        if (nfrac >= 9)
                                return -EINVAL;
                        frac = frac * 10 + (uint64_t) (*p - '0');
                        frac_scale *= 10;
                }
                if (nfrac == 0)
                        return -EINVAL;
        }
        if (ndigits == 0)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (strcmp(p, units[i].suffix) != 0)
                        continue;
                uint64_t unit = (uint64_t) units[i].unit, ns;
                if (__builtin_mul_overflow(whole, unit, &ns))
                        return -ERANGE;
                /* frac < frac_scale <= 1e9 and unit <= 3.6e12, so the product fits in 64 bits. */
                if (__builtin_add_overflow(ns, frac * unit / frac_scale, &ns))
                        return -ERANGE;
                if (ns > (uint64_t) INJECT_MAX_DURATION_NS)
                        return -ERANGE;
                *ret = (int64_t) ns;
                return 0;
        }
        return -EINVAL;
}

static int parse_unsigned(const char *s, unsigned long long max, unsigned long long *ret) {
        if (!s || !isdigit((unsigned char) s[0]))
                return -EINVAL;
        errno = 0;
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno == ERANGE || v > max)
                return -ERANGE;
        if (*end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_rate(const char *s, double *ret) {
        if (!s || !(isdigit((unsigned char) s[0]) || s[0] == '.'))
                return -EINVAL;
        errno = 0;
        char *end;
        double v = strtod(s, &end);
        if (*end != '\0' || errno == ERANGE || !isfinite(v))
                return -EINVAL;
        if (v <= 0 || v > INJECT_MAX_RATE)
                return -ERANGE;
        *ret = v;
        return 0;
}

enum {
        OPT_URL = 0x100, OPT_MODE, OPT_RATE, OPT_ARRIVAL, OPT_SEED, OPT_CONNECTIONS, OPT_THREADS,
        OPT_TIMEOUT, OPT_SPIN, OPT_SPIN_BUDGET, OPT_BATCH, OPT_METHOD, OPT_BODY, OPT_HEADER, OPT_WARMUP, OPT_DURATION,
        OPT_TIMELINE, OPT_SUMMARY, OPT_HLOG, OPT_HLOG_INTERVAL, OPT_CONVERT_CSV, OPT_HELP, OPT_VERSION,
        OPT_START_AT, OPT_PHASE, OPT_WARMUP_UNTIL_SIGNAL,
};

static const struct option long_options[] = {
        { "url", required_argument, NULL, OPT_URL },
        { "mode", required_argument, NULL, OPT_MODE },
        { "rate", required_argument, NULL, OPT_RATE },
        { "arrival", required_argument, NULL, OPT_ARRIVAL },
        { "seed", required_argument, NULL, OPT_SEED },
        { "phase", required_argument, NULL, OPT_PHASE },
        { "start-at", required_argument, NULL, OPT_START_AT },
        { "connections", required_argument, NULL, OPT_CONNECTIONS },
        { "threads", required_argument, NULL, OPT_THREADS },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "spin", required_argument, NULL, OPT_SPIN },
        { "spin-budget", required_argument, NULL, OPT_SPIN_BUDGET },
        { "batch", required_argument, NULL, OPT_BATCH },
        { "method", required_argument, NULL, OPT_METHOD },
        { "body", required_argument, NULL, OPT_BODY },
        { "header", required_argument, NULL, OPT_HEADER },
        { "warmup", required_argument, NULL, OPT_WARMUP },
        { "warmup-until-signal", no_argument, NULL, OPT_WARMUP_UNTIL_SIGNAL },
        { "duration", required_argument, NULL, OPT_DURATION },
        { "timeline", required_argument, NULL, OPT_TIMELINE },
        { "summary", required_argument, NULL, OPT_SUMMARY },
        { "hlog", required_argument, NULL, OPT_HLOG },
        { "hlog-interval", required_argument, NULL, OPT_HLOG_INTERVAL },
        { "convert-csv", required_argument, NULL, OPT_CONVERT_CSV },
        { "help", no_argument, NULL, OPT_HELP },
        { "version", no_argument, NULL, OPT_VERSION },
        { NULL, 0, NULL, 0 },
};

static int parse_duration_option(const char *name, const char *arg, int64_t *ret) {
        int r = options_parse_duration_ns(arg, ret);
        if (r == -ERANGE)
                return usage_error("--%s: '%s' is longer than 30 days", name, arg);
        if (r < 0)
                return usage_error("--%s: '%s' is not a duration (like 90, 1.5s, 250ms, 2m)", name, arg);
        return 0;
}

static int parse_count_option(const char *name, const char *arg, unsigned max, unsigned *ret) {
        unsigned long long v;
        if (parse_unsigned(arg, max, &v) < 0 || v == 0)
                return usage_error("--%s: '%s' is not a whole number in [1, %u]", name, arg, max);
        *ret = (unsigned) v;
        return 0;
}

/* Options that only make sense together, and required ones, once every flag is known. */
static int check_combination(const struct inject_options *o, bool rate_given, bool load_given) {
        if (o->help || o->version)
                return 0;
        if (o->convert_csv) {
                if (o->url || load_given)
                        return usage_error("--convert-csv takes only --timeline and --warmup");
                if (!o->timeline_path)
                        return usage_error("--convert-csv needs --timeline OUT");
                return 0;
        }
        if (!o->url)
                return usage_error("--url is required");
        if (o->mode == INJECT_MODE_RATE && !rate_given)
                return usage_error("--rate is required in the open loop (or use --mode max)");
        if (o->mode == INJECT_MODE_MAX && rate_given)
                return usage_error("--rate does not apply to --mode max");
        if (o->threads > o->connections)
                return usage_error("--threads %u is more than --connections %u", o->threads, o->connections);
        if (o->duration_ns == 0)
                return usage_error("--duration must be above 0");
        /* The signal shortens the warmup; with none to shorten, it would have nothing to end. */
        if (o->warmup_until_signal && o->warmup_ns == 0)
                return usage_error("--warmup-until-signal needs --warmup D above 0 (the longest the warmup may last)");
        if (o->timeout_ns == 0)
                return usage_error("--timeout must be above 0");
        if (o->spin_ns > NSEC_PER_MSEC)
                return usage_error("--spin must be at most 1ms");
        if (o->batch_ns > NSEC_PER_MSEC)
                return usage_error("--batch must be at most 1ms");
        if (o->phase_ns > 0 && (o->mode != INJECT_MODE_RATE || o->arrival != INJECT_ARRIVAL_UNIFORM))
                return usage_error("--phase applies to the uniform open loop only (--rate, --arrival uniform)");
        if ((double) o->phase_ns >= (double) NSEC_PER_SEC / o->rate && o->phase_ns > 0)
                return usage_error("--phase %lld is not less than one gap of the schedule (%.0f ns at --rate %g)",
                                   (long long) o->phase_ns, (double) NSEC_PER_SEC / o->rate, o->rate);
        if (o->hlog_interval_ns < HLOG_INTERVAL_MIN_NS || o->hlog_interval_ns > HLOG_INTERVAL_MAX_NS)
                return usage_error("--hlog-interval must be between 1ms and 1h");
        if (o->hlog_path && o->duration_ns / o->hlog_interval_ns >= HLOG_INTERVALS_MAX)
                return usage_error("--hlog-interval cuts --duration into more than %lld intervals: make it longer",
                                   (long long) HLOG_INTERVALS_MAX);
        return 0;
}

static int parse_one(int opt, const char *arg, struct inject_options *o, bool *rate_given,
                     bool *load_given) {
        unsigned long long v;
        if (opt != OPT_TIMELINE && opt != OPT_WARMUP && opt != OPT_CONVERT_CSV && opt != OPT_HELP &&
            opt != OPT_VERSION && opt != OPT_URL)
                *load_given = true;
        switch (opt) {
        case OPT_URL:
                o->url = arg;
                return 0;
        case OPT_MODE:
                if (strcmp(arg, "rate") == 0)
                        o->mode = INJECT_MODE_RATE;
                else if (strcmp(arg, "max") == 0)
                        o->mode = INJECT_MODE_MAX;
                else
                        return usage_error("--mode: '%s' is neither 'rate' nor 'max'", arg);
                return 0;
        case OPT_RATE:
                if (parse_rate(arg, &o->rate) < 0)
                        return usage_error("--rate: '%s' is not a number of requests per second in (0, %.0f]",
                                           arg, INJECT_MAX_RATE);
                *rate_given = true;
                return 0;
        case OPT_ARRIVAL:
                if (strcmp(arg, "uniform") == 0)
                        o->arrival = INJECT_ARRIVAL_UNIFORM;
                else if (strcmp(arg, "poisson") == 0)
                        o->arrival = INJECT_ARRIVAL_POISSON;
                else
                        return usage_error("--arrival: '%s' is neither 'uniform' nor 'poisson'", arg);
                return 0;
        case OPT_SEED:
                if (parse_unsigned(arg, UINT64_MAX, &v) < 0)
                        return usage_error("--seed: '%s' is not an unsigned 64-bit number", arg);
                o->seed = v;
                return 0;
        case OPT_START_AT:
                if (parse_unsigned(arg, INT64_MAX, &v) < 0 || v == 0)
                        return usage_error("--start-at: '%s' is not a CLOCK_MONOTONIC time in nanoseconds above 0", arg);
                o->start_at_ns = (int64_t) v;
                return 0;
        case OPT_PHASE:
                if (parse_unsigned(arg, INT64_MAX, &v) < 0)
                        return usage_error("--phase: '%s' is not a whole number of nanoseconds", arg);
                o->phase_ns = (int64_t) v;
                return 0;
        case OPT_CONNECTIONS:
                return parse_count_option("connections", arg, INJECT_MAX_CONNECTIONS, &o->connections);
        case OPT_THREADS:
                return parse_count_option("threads", arg, INJECT_MAX_THREADS, &o->threads);
        case OPT_TIMEOUT:
                return parse_duration_option("timeout", arg, &o->timeout_ns);
        case OPT_SPIN:
                o->spin_given = true;
                return parse_duration_option("spin", arg, &o->spin_ns);
        case OPT_SPIN_BUDGET:
                if (parse_unsigned(arg, 100, &v) < 0)
                        return usage_error("--spin-budget: '%s' is not a whole percentage in [0, 100]", arg);
                o->spin_budget = (double) v / 100.0;
                return 0;
        case OPT_BATCH:
                return parse_duration_option("batch", arg, &o->batch_ns);
        case OPT_METHOD:
                o->method = arg;
                return 0;
        case OPT_BODY:
                o->body_path = arg;
                return 0;
        case OPT_HEADER:
                if (o->n_headers >= INJECT_MAX_HEADERS)
                        return usage_error("--header: at most %d headers", INJECT_MAX_HEADERS);
                o->headers[o->n_headers++] = arg;
                return 0;
        case OPT_WARMUP:
                return parse_duration_option("warmup", arg, &o->warmup_ns);
        case OPT_WARMUP_UNTIL_SIGNAL:
                o->warmup_until_signal = true;
                return 0;
        case OPT_DURATION:
                return parse_duration_option("duration", arg, &o->duration_ns);
        case OPT_TIMELINE:
                o->timeline_path = arg;
                return 0;
        case OPT_SUMMARY:
                o->summary_path = arg;
                return 0;
        case OPT_HLOG:
                o->hlog_path = arg;
                return 0;
        case OPT_HLOG_INTERVAL:
                return parse_duration_option("hlog-interval", arg, &o->hlog_interval_ns);
        case OPT_CONVERT_CSV:
                o->convert_csv = arg;
                return 0;
        case OPT_HELP:
                o->help = true;
                return 0;
        case OPT_VERSION:
                o->version = true;
                return 0;
        }
        return -EINVAL;
}

int options_check_start_at(const struct inject_options *o, int64_t now_ns) {
        if (o->start_at_ns == 0 || o->start_at_ns >= now_ns - INJECT_START_AT_PAST_MAX_NS)
                return 0;
        usage_error("--start-at %lld is %.3f s in the past (CLOCK_MONOTONIC is now %lld); at most 1 s is allowed",
                    (long long) o->start_at_ns, (double) (now_ns - o->start_at_ns) / (double) NSEC_PER_SEC,
                    (long long) now_ns);
        return -ERANGE;
}

int options_parse(int argc, char **argv, struct inject_options *ret) {
        struct inject_options o = {
                .mode = INJECT_MODE_RATE,
                .arrival = INJECT_ARRIVAL_UNIFORM,
                .seed = 1,
                .connections = 16,
                .threads = 1,
                .duration_ns = 10 * NSEC_PER_SEC,
                .timeout_ns = 5 * NSEC_PER_SEC,
                .spin_ns = 20 * NSEC_PER_USEC,
                .spin_budget = 0.5,
                .batch_ns = 100 * NSEC_PER_USEC,
                .hlog_interval_ns = NSEC_PER_SEC,
                .method = "GET",
        };
        bool rate_given = false, load_given = false;

        /* Reset getopt's state: the parser may run more than once in a process (tests). */
        optind = 0;
        opterr = 0;
        for (;;) {
                int opt = getopt_long(argc, argv, "", long_options, NULL);
                if (opt == -1)
                        break;
                if (opt == '?' || opt == ':') {
                        const char *bad = argv[optind - 1] ? argv[optind - 1] : "?";
                        if (optopt != 0)
                                return usage_error("option '%s' needs a value", bad);
                        return usage_error("unknown option '%s'", bad);
                }
                int r = parse_one(opt, optarg, &o, &rate_given, &load_given);
                if (r < 0)
                        return r;
        }
        if (optind < argc)
                return usage_error("unexpected argument '%s'", argv[optind]);
        int r = check_combination(&o, rate_given, load_given);
        if (r < 0)
                return r;
        *ret = o;
        return 0;
}
