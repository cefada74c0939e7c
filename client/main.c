/* main.c: slicelab, the command-line client of slicelabd: options, the daemon's address and
 * token, and dispatch to the subcommands (commands.h). slicelab(1) is its manual. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"

#define DEFAULT_URL "http://127.0.0.1:7878"
#define DEFAULT_STATE_DIR "/var/lib/slicelab"
#define DEFAULT_RETRY_FOR_S 60.0

enum {
        OPT_JSON = 1 << 0, OPT_WAIT = 1 << 1, OPT_KEY = 1 << 2, OPT_STATUS = 1 << 3,
        OPT_LABEL = 1 << 4, OPT_BASELINE = 1 << 5, OPT_FORMAT = 1 << 6, OPT_OUTPUT = 1 << 7,
        OPT_TAIL = 1 << 8, OPT_RETRY = 1 << 9, OPT_CELL = 1 << 10, OPT_METRIC = 1 << 11, OPT_THRESHOLD = 1 << 12,
        OPT_ALPHA = 1 << 13, OPT_MIN_SEGMENT = 1 << 14,
};

struct command {
        const char *name;
        int nargs;
        unsigned allowed;
        const char *usage;
};

static const struct command commands[] = {
        { "submit", 1, OPT_JSON | OPT_WAIT | OPT_KEY | OPT_RETRY, "submit FILE|- [--wait] [--key KEY] [--retry-for S]" },
        { "bisect", 1, OPT_JSON | OPT_RETRY, "bisect FILE|- [--retry-for S]" },
        { "list", 0, OPT_JSON | OPT_STATUS | OPT_LABEL, "list [--status S] [--label k=v]..." },
        { "status", 1, OPT_JSON, "status ID" },
        { "runs", 1, OPT_JSON, "runs ID" },
        { "run", 1, OPT_JSON, "run RUN" },
        { "wait", 1, OPT_JSON | OPT_RETRY, "wait ID [--retry-for S]" },
        { "report", 1, OPT_JSON | OPT_BASELINE, "report ID [--baseline CELL]" },
        { "findings", 1, OPT_JSON | OPT_BASELINE, "findings ID [--baseline CELL]" },
        { "timeline", 1, OPT_JSON | OPT_FORMAT | OPT_OUTPUT, "timeline RUN [--csv|--ndjson] [-o FILE]" },
        { "logs", 2, OPT_JSON | OPT_TAIL, "logs RUN sut|load [--tail N]" },
        { "profile", 1, OPT_JSON | OPT_OUTPUT | OPT_CELL | OPT_BASELINE,
          "profile RUN [--json] [-o FILE] | profile ID --cell CELL [--baseline CELL]" },
        { "cancel", 1, OPT_JSON, "cancel ID" },
        { "compare", 2, OPT_JSON, "compare A[:CELL] B[:CELL]" },
        { "series", 0, OPT_JSON | OPT_LABEL | OPT_CELL | OPT_METRIC | OPT_THRESHOLD | OPT_ALPHA | OPT_MIN_SEGMENT,
          "series --cell CELL --metric PATH [--label k=v]... [--threshold PCT] [--alpha A] [--min-segment N]" },
        { "host", 0, OPT_JSON, "host" },
        { "health", 0, OPT_JSON, "health" },
        { "peers", 0, OPT_JSON, "peers" },
        { "export", 1, OPT_OUTPUT, "export ID [-o FILE]" },
        { "import", 1, OPT_JSON, "import FILE" },
};

static void usage(FILE *f) {
        fprintf(f, "usage: slicelab [--url URL] [--cacert FILE] [--json] COMMAND ...\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                fprintf(f, "       slicelab %s\n", commands[i].usage);
        fprintf(f, "URL: http://HOST:PORT, https://HOST:PORT or unix:/PATH (default $SLICELAB_URL, else %s).\n"
                   "--cacert FILE: the CA certificates (PEM) an https:// daemon is verified against\n"
                   "(default $SLICELAB_CACERT, else the system's).\n"
                   "Exit: 0 succeeded, 1 experiment not succeeded, 2 usage, 3 checks failed (series:\n"
                   "a regression; bisect: no change), 4 daemon unreachable or HTTP error, 5 bisect:\n"
                   "undecided. See slicelab(1).\n", DEFAULT_URL);
}

_printf_(1, 2) static int usage_error(const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "slicelab: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\nTry 'slicelab --help'.\n");
        return EXIT_USAGE;
}

/* $SLICELAB_TOKEN, else the state dir's token file when this user may read it. */
static char *find_token(void) {
        const char *env = getenv("SLICELAB_TOKEN");
        const char *dir = str_or(getenv("SLICELAB_STATE_DIR"), DEFAULT_STATE_DIR);
        _cleanup_free_ char *path = NULL;
        char *token = NULL;
        size_t size;

        if (env && *env)
                return strdup(env);
        if (asprintf(&path, "%s/token", dir) < 0)
                abort();
        if (read_file_bounded(path, 4096, &token, &size) < 0)
                return NULL;
        token[strcspn(token, "\r\n")] = '\0';
        return token;
}

static const struct command *find_command(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (strcmp(commands[i].name, name) == 0)
                        return &commands[i];
        return NULL;
}

static int parse_number(const char *s, double min, double max, double *ret) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end || !(v >= min && v <= max))
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Options may come before or after the command; *seen collects which were given. */
static int parse_options(int argc, char **argv, struct client_options *o, const char **url,
                         const char **cacert, unsigned *seen) {
        enum { ARG_URL = 0x100, ARG_CACERT, ARG_WAIT, ARG_KEY, ARG_STATUS, ARG_LABEL, ARG_BASELINE, ARG_CSV,
               ARG_NDJSON, ARG_TAIL, ARG_RETRY, ARG_VERSION, ARG_CELL, ARG_METRIC, ARG_THRESHOLD, ARG_ALPHA,
               ARG_MIN_SEGMENT };
        static const struct option longopts[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "url", required_argument, NULL, ARG_URL },
                { "cacert", required_argument, NULL, ARG_CACERT },
                { "json", no_argument, NULL, 'j' },
                { "wait", no_argument, NULL, ARG_WAIT },
                { "key", required_argument, NULL, ARG_KEY },
                { "status", required_argument, NULL, ARG_STATUS },
                { "label", required_argument, NULL, ARG_LABEL },
                { "baseline", required_argument, NULL, ARG_BASELINE },
                { "csv", no_argument, NULL, ARG_CSV },
                { "ndjson", no_argument, NULL, ARG_NDJSON },
                { "output", required_argument, NULL, 'o' },
                { "tail", required_argument, NULL, ARG_TAIL },
                { "retry-for", required_argument, NULL, ARG_RETRY },
                { "cell", required_argument, NULL, ARG_CELL },
                { "metric", required_argument, NULL, ARG_METRIC },
                { "threshold", required_argument, NULL, ARG_THRESHOLD },
                { "alpha", required_argument, NULL, ARG_ALPHA },
                { "min-segment", required_argument, NULL, ARG_MIN_SEGMENT },
                { NULL, 0, NULL, 0 }
        };
        int c;
        double v;

        while ((c = getopt_long(argc, argv, "hjo:", longopts, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        usage(stdout);
                        exit(EXIT_OK);
                case ARG_VERSION:
                        printf("slicelab %s\n", SLICELAB_VERSION);
                        exit(EXIT_OK);
                case ARG_URL: *url = optarg; break;
                case ARG_CACERT: *cacert = optarg; break;
                case 'j': o->json = true; *seen |= OPT_JSON; break;
                case ARG_WAIT: o->wait = true; *seen |= OPT_WAIT; break;
                case ARG_KEY:
                        if (!*optarg || strlen(optarg) > 200 || strspn(optarg,
                            "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
                            "abcdefghijklmnopqrstuvwxyz{|}~") != strlen(optarg))
                                return usage_error("--key: 1-200 printable characters without spaces, got '%s'", optarg);
                        o->key = optarg;
                        *seen |= OPT_KEY;
                        break;
                case ARG_STATUS: o->status = optarg; *seen |= OPT_STATUS; break;
                case ARG_LABEL:
                        if (!strchr(optarg, '='))
                                return usage_error("--label wants KEY=VALUE, got '%s'", optarg);
                        o->labels = reallocarray(o->labels, (size_t) o->n_labels + 1, sizeof *o->labels);
                        if (!o->labels)
                                abort();
                        o->labels[o->n_labels++] = optarg;
                        *seen |= OPT_LABEL;
                        break;
                case ARG_BASELINE: o->baseline = optarg; *seen |= OPT_BASELINE; break;
                case ARG_CSV: o->format = TIMELINE_CSV; *seen |= OPT_FORMAT; break;
                case ARG_NDJSON: o->format = TIMELINE_NDJSON; *seen |= OPT_FORMAT; break;
                case 'o': o->output = optarg; *seen |= OPT_OUTPUT; break;
                case ARG_TAIL:
                        if (parse_number(optarg, 1, 100000, &v) < 0 || v != (long) v)
                                return usage_error("--tail wants a whole number from 1 to 100000, got '%s'", optarg);
                        o->tail = (long) v;
                        *seen |= OPT_TAIL;
                        break;
                case ARG_RETRY:
                        if (parse_number(optarg, 0, 86400, &v) < 0)
                                return usage_error("--retry-for wants seconds from 0 to 86400, got '%s'", optarg);
                        o->retry_for_s = v;
                        *seen |= OPT_RETRY;
                        break;
                case ARG_CELL: o->cell = optarg; *seen |= OPT_CELL; break;
                case ARG_METRIC: o->metric = optarg; *seen |= OPT_METRIC; break;
                case ARG_THRESHOLD:
                        if (parse_number(optarg, 0, 1000, &v) < 0)
                                return usage_error("--threshold wants a percent from 0 to 1000, got '%s'", optarg);
                        o->threshold_pct = v;
                        *seen |= OPT_THRESHOLD;
                        break;
                /* The daemon checks these and names what is wrong with them. */
                case ARG_ALPHA: o->alpha = optarg; *seen |= OPT_ALPHA; break;
                case ARG_MIN_SEGMENT: o->min_segment = optarg; *seen |= OPT_MIN_SEGMENT; break;
                default:
                        fprintf(stderr, "Try 'slicelab --help'.\n");
                        return EXIT_USAGE;
                }
        }
        return 0;
}

static int dispatch(struct http *h, const struct client_options *o, const struct command *cmd, char **a) {
        const char *n = cmd->name;
        if (!strcmp(n, "submit")) return cmd_submit(h, o, a[0]);
        if (!strcmp(n, "bisect")) return cmd_bisect(h, o, a[0]);
        if (!strcmp(n, "list")) return cmd_list(h, o);
        if (!strcmp(n, "status")) return cmd_status(h, o, a[0]);
        if (!strcmp(n, "runs")) return cmd_runs(h, o, a[0]);
        if (!strcmp(n, "run")) return cmd_run(h, o, a[0]);
        if (!strcmp(n, "wait")) return cmd_wait(h, o, a[0]);
        if (!strcmp(n, "report")) return cmd_report(h, o, a[0]);
        if (!strcmp(n, "findings")) return cmd_findings(h, o, a[0]);
        if (!strcmp(n, "timeline")) return cmd_timeline(h, o, a[0]);
        if (!strcmp(n, "logs")) return cmd_logs(h, o, a[0], a[1]);
        if (!strcmp(n, "profile")) return cmd_profile(h, o, a[0]);
        if (!strcmp(n, "cancel")) return cmd_cancel(h, o, a[0]);
        if (!strcmp(n, "compare")) return cmd_compare(h, o, a[0], a[1]);
        if (!strcmp(n, "series")) return cmd_series(h, o);
        if (!strcmp(n, "host")) return cmd_host(h, o);
        if (!strcmp(n, "peers")) return cmd_peers(h, o);
        if (!strcmp(n, "export")) return cmd_export(h, o, a[0]);
        if (!strcmp(n, "import")) return cmd_import(h, o, a[0]);
        return cmd_health(h, o);
}

/* The command named at argv[optind], checked against what was given, run. */
static int run(const struct client_options *o, const char *url, const char *cacert, unsigned seen, int argc,
               char **argv) {
        _cleanup_free_ char *token = NULL;
        struct http h;

        if (optind >= argc)
                return usage_error("%s", "a command is needed");
        const struct command *cmd = find_command(argv[optind]);
        if (!cmd)
                return usage_error("unknown command '%s'", argv[optind]);
        if (argc - optind - 1 != cmd->nargs)
                return usage_error("usage: slicelab %s", cmd->usage);
        if (seen & ~cmd->allowed)
                return usage_error("an option given does not apply to %s", cmd->name);
        if (!strcmp(cmd->name, "series") && (!o->cell || !o->metric))
                return usage_error("series needs --cell CELL and --metric PATH");
        if (!strcmp(cmd->name, "logs") && strcmp(argv[optind + 2], "sut") && strcmp(argv[optind + 2], "load"))
                return usage_error("logs: the stream is sut or load, got '%s'", argv[optind + 2]);

        if (cacert && !*cacert)
                cacert = NULL;
        if (cacert && access(cacert, R_OK) < 0)
                return usage_error("--cacert: %s: %s", cacert, strerror(errno));
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
                return EXIT_DAEMON;
        token = find_token();
        if (http_open(&h, url && *url ? url : DEFAULT_URL, token, cacert) < 0) {
                curl_global_cleanup();
                return usage_error("--url wants http://HOST:PORT, https://HOST:PORT, HOST:PORT or unix:/PATH, got '%s'",
                                   url);
        }
        int k = dispatch(&h, o, cmd, argv + optind + 1);
        http_close(&h);
        curl_global_cleanup();
        return k;
}

int main(int argc, char **argv) {
        struct client_options o = { .retry_for_s = DEFAULT_RETRY_FOR_S };
        const char *url = getenv("SLICELAB_URL"), *cacert = getenv("SLICELAB_CACERT");
        unsigned seen = 0;

        json_setup();
        int k = parse_options(argc, argv, &o, &url, &cacert, &seen);
        if (k == 0)
                k = run(&o, url, cacert, seen, argc, argv);
        /* Every way out, usage errors included, so that a sanitizer sees no leak. */
        free(o.labels);
        return k;
}
