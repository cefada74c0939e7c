/* options.c: parsing slicelabd's flags and config file, strictly: an unknown key or a bad value
 * stops the daemon before it touches anything. */
#include "service/options.h"

#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "service/listen.h"
#include "basic/host-pattern.h"
#include "basic/log.h"
#include "basic/macro.h"

enum {
        OPT_LISTEN = 0x100,
        OPT_STATE_DIR,
        OPT_CONFIG,
        OPT_CGROUP_ROOT,
        OPT_MAX_PARALLEL,
        OPT_RUN_AS,
        OPT_ALLOW_ROOT_SUT,
        OPT_ALLOW_EXEC,
        OPT_ALLOW_JVM_OPTION,
        OPT_HOUSEKEEPING_CPUS,
        OPT_LOG_LEVEL,
        OPT_MAX_STREAMS,
        OPT_QUEUE_MAX,
        OPT_TLS_CERT,
        OPT_TLS_KEY,
        OPT_SOCKET_MODE,
        OPT_SOCKET_GROUP,
        OPT_PEER_URL_TEMPLATE,
        OPT_PEER_ALLOW,
        OPT_PEER_TOKEN_FILE,
        OPT_RESULTS_ONLY,
        OPT_IMPORT_MAX,
        OPT_PERF,
        OPT_HELP,
        OPT_VERSION,
};

static const struct option long_options[] = {
        { "listen", required_argument, NULL, OPT_LISTEN },
        { "state-dir", required_argument, NULL, OPT_STATE_DIR },
        { "config", required_argument, NULL, OPT_CONFIG },
        { "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
        { "max-parallel", required_argument, NULL, OPT_MAX_PARALLEL },
        { "run-as", required_argument, NULL, OPT_RUN_AS },
        { "allow-root-sut", no_argument, NULL, OPT_ALLOW_ROOT_SUT },
        { "allow-exec", required_argument, NULL, OPT_ALLOW_EXEC },
        { "allow-jvm-option", required_argument, NULL, OPT_ALLOW_JVM_OPTION },
        { "housekeeping-cpus", required_argument, NULL, OPT_HOUSEKEEPING_CPUS },
        { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
        { "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
        { "queue-max", required_argument, NULL, OPT_QUEUE_MAX },
        { "tls-cert", required_argument, NULL, OPT_TLS_CERT },
        { "tls-key", required_argument, NULL, OPT_TLS_KEY },
        { "socket-mode", required_argument, NULL, OPT_SOCKET_MODE },
        { "socket-group", required_argument, NULL, OPT_SOCKET_GROUP },
        { "peer-url-template", required_argument, NULL, OPT_PEER_URL_TEMPLATE },
        { "peer-allow", required_argument, NULL, OPT_PEER_ALLOW },
        { "peer-token-file", required_argument, NULL, OPT_PEER_TOKEN_FILE },
        { "results-only", no_argument, NULL, OPT_RESULTS_ONLY },
        { "import-max", required_argument, NULL, OPT_IMPORT_MAX },
        { "perf", required_argument, NULL, OPT_PERF },
        { "help", no_argument, NULL, OPT_HELP },
        { "version", no_argument, NULL, OPT_VERSION },
        { 0 },
};

static void usage(FILE *f) {
        fprintf(f,
                "Usage: slicelabd [OPTIONS]\n"
                "Run performance experiments for JVM services under cgroup CPU limits, driven by a REST API.\n\n"
                "  --listen ADDR        HOST:PORT or unix:/PATH to serve the API on (default %s)\n"
                "  --state-dir DIR      database, run directories and API token (default %s)\n"
                "  --config FILE        settings file, keys are these long flag names (default %s if present)\n"
                "  --cgroup-root NAME   cgroup under which run slices are made (default %s)\n"
                "  --max-parallel N     runs at once, only with disjoint cpusets (default 1)\n"
                "  --run-as USER        user the system under test and the injector run as (default %s)\n"
                "  --allow-root-sut     allow --run-as a user of uid 0\n"
                "  --allow-exec PATH    the only executables a definition may run (repeat, or a comma list)\n"
                "  --allow-jvm-option OPT  allow JVM options beginning with OPT that run commands, load\n"
                "                       agents or write outside the run directory (repeatable)\n"
                "  --housekeeping-cpus LIST  CPUs for the daemon's own threads (default: the online\n"
                "                       CPUs no queued or running run uses, all when none is left)\n"
                "  --log-level LEVEL    err, warning, notice, info or debug (default info)\n"
                "  --max-streams N      CSV/NDJSON timeline streams served at once (default %u)\n"
                "  --queue-max N        queued runs of all experiments taken; a POST past it is 429 (default %u)\n"
                "  --tls-cert FILE      serve HTTPS with this PEM certificate (chain) ...\n"
                "  --tls-key FILE       ... and this PEM private key\n"
                "  --socket-mode MODE   octal mode of a unix:/PATH socket (default 0660)\n"
                "  --socket-group GROUP group of a unix:/PATH socket (default the daemon's)\n"
                "  --peer-url-template T  how to reach a lab host's slicelabd, e.g. http://{host}:7878\n"
                "                       ({host} replaced by the host's name; http or https)\n"
                "  --peer-allow PATTERN lab hosts this daemon sends loads to, takes loads from and aims\n"
                "                       loads at: addresses (10.0.1.7, 10.0.1.*, 10.0.1.0/24, fd00::/64)\n"
                "                       match IP literals only, names (bench0?, *.lab.example) names\n"
                "                       only, label by label (repeat, or a comma list)\n"
                "  --peer-token-file FILE  the bearer token sent to peers (their state dir's token)\n"
                "  --results-only       run no experiments (no cgroups, root lock or run user): serve\n"
                "                       stored and imported results, take imports (POST /v1/imports)\n"
                "  --import-max SIZE    largest bundle an import takes, bytes or with K, M, G (default 1G)\n"
                "  --perf PATH          the perf binary for profile.cpu (default: perf on PATH)\n"
                "  --help               show this help\n"
                "  --version            show the version\n",
                DEFAULT_LISTEN, DEFAULT_STATE_DIR, DEFAULT_CONFIG, DEFAULT_CGROUP_ROOT, DEFAULT_RUN_AS, DEFAULT_MAX_STREAMS,
                DEFAULT_QUEUE_MAX);
}

static int fail_usage(const char *fmt, ...) _printf_(1, 2);
static int fail_usage(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "slicelabd: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n\n");
        va_end(ap);
        usage(stderr);
        return -EINVAL;
}

static bool valid_cgroup_name(const char *s) {
        if (!*s || strlen(s) > 64 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("._-", *p))
                        return false;
        return true;
}

static bool valid_user_name(const char *s) {
        if (!*s || strlen(s) > 32 || *s == '-')
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("._-", *p))
                        return false;
        return true;
}

static int strv_push(char ***v, size_t *n, const char *value) {
        char *copy = strdup(value);
        char **grown = copy ? realloc(*v, (*n + 2) * sizeof **v) : NULL;
        if (!grown) {
                free(copy);
                return -ENOMEM;
        }
        grown[(*n)++] = copy;
        grown[*n] = NULL;
        *v = grown;
        return 0;
}

static void strv_free(char **v) {
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

static char *strip(char *s);

/* VALUE[,VALUE...]: each item (spaces around it dropped) that valid() accepts appended to *v;
 * the usage error says what an item must be (rule). */
static int add_list(const char *value, const char *where, bool (*valid)(const char *), const char *rule,
                    char ***v, size_t *n) {
        _cleanup_free_ char *copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        char *save = NULL;
        bool any = false;
        for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
                p = strip(p);
                if (!valid(p))
                        return fail_usage("%s: '%s' must be %s (or a comma list of them)", where, p, rule);
                int r = strv_push(v, n, p);
                if (r < 0)
                        return r;
                any = true;
        }
        return any ? 0 : fail_usage("%s: '%s' names nothing", where, value);
}

static bool valid_exec_path(const char *p) {
        return p[0] == '/' && strlen(p) < PATH_MAX;
}

static int parse_bool(const char *value, bool *ret) {
        if (!value || strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
                *ret = true;
        else if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
                *ret = false;
        else
                return -EINVAL;
        return 0;
}

static int set_string(char **field, const char *value) {
        char *copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        free(*field);
        *field = copy;
        return 0;
}

/* A whole number in [min, max] into *ret, or the usage error naming where and the range. */
static int parse_unsigned(const char *value, unsigned min, unsigned max, const char *where, unsigned *ret) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(value, &end, 10);
        if (errno || end == value || *end || n < min || n > max || value[0] == '-')
                return fail_usage("%s: '%s' must be a whole number from %u to %u", where, value, min, max);
        *ret = (unsigned) n;
        return 0;
}

/* "1073741824", "512M", "4G": a size in bytes, with a binary suffix. */
static int parse_size(const char *value, const char *where, uint64_t *ret) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(value, &end, 10);
        unsigned shift = 0;
        if (*end && !end[1] && strchr("KMGT", *end))
                shift = 10 * (unsigned) (strchr("KMGT", *end) - "KMGT" + 1);
        else if (*end)
                n = 0;
        if (errno || end == value || value[0] == '-' || n == 0 || n > (UINT64_MAX >> 20) >> shift)
                return fail_usage("%s: '%s' must be a size above 0 in bytes, or with K, M, G or T", where, value);
        *ret = (uint64_t) n << shift;
        return 0;
}

static int set_absolute_path(char **field, const char *value, const char *where) {
        if (value[0] != '/' || strlen(value) > 4000)
                return fail_usage("%s: '%s' must be an absolute path", where, value);
        return set_string(field, value);
}

/* A lab host pattern: an address pattern or a name pattern (basic/host-pattern.h). */
static bool valid_peer_pattern(const char *s) {
        return host_pattern_check(s, NULL) == 0;
}

/* http[s]://...{host}...: one {host}, no spaces or control characters, a sane length. */
static int set_peer_url_template(struct options *o, const char *value, const char *where) {
        const char *h = strstr(value, "{host}");
        bool ok = (strncmp(value, "http://", 7) == 0 || strncmp(value, "https://", 8) == 0) && strlen(value) <= 512 &&
                  h && !strstr(h + 1, "{host}");
        for (const char *p = value; ok && *p; p++)
                ok = (unsigned char) *p > ' ' && *p != 0x7f;
        if (!ok)
                return fail_usage("%s: '%s' must be an http:// or https:// URL with {host} once, such as "
                                  "http://{host}:7878", where, value);
        return set_string(&o->peer_url_template, value);
}

/* Apply one setting, from a flag or from the config file (where is "--name" or "FILE:LINE"). */
static int apply(struct options *o, int opt, const char *name, const char *value, const char *where) {
        switch (opt) {
        case OPT_LISTEN: {
                struct listen_address a;
                if (listen_address_parse(value, &a) < 0)
                        return fail_usage("%s: '%s' is not HOST:PORT, [IPV6]:PORT or unix:/PATH", where, value);
                return set_string(&o->listen, value);
        }
        case OPT_STATE_DIR:
                if (value[0] != '/' || strlen(value) > 200)
                        return fail_usage("%s: '%s' must be an absolute path of at most 200 characters", where, value);
                return set_string(&o->state_dir, value);
        case OPT_CGROUP_ROOT:
                if (!valid_cgroup_name(value))
                        return fail_usage("%s: '%s' must be a name of letters, digits, '.', '_' or '-'", where, value);
                return set_string(&o->cgroup_root, value);
        case OPT_MAX_PARALLEL:
                return parse_unsigned(value, 1, 64, where, &o->max_parallel);
        case OPT_MAX_STREAMS:
                return parse_unsigned(value, 1, 4096, where, &o->max_streams);
        case OPT_QUEUE_MAX:
                return parse_unsigned(value, 1, 1000000, where, &o->queue_max);
        case OPT_TLS_CERT:
                return set_absolute_path(&o->tls_cert, value, where);
        case OPT_TLS_KEY:
                return set_absolute_path(&o->tls_key, value, where);
        case OPT_SOCKET_MODE: {
                char *end;
                errno = 0;
                unsigned long m = strtoul(value, &end, 8);
                if (errno || end == value || *end || m > 0777 || value[0] == '-' || strlen(value) > 4)
                        return fail_usage("%s: '%s' must be an octal mode from 0 to 0777", where, value);
                o->socket_mode = (unsigned) m;
                return 0;
        }
        case OPT_SOCKET_GROUP:
                if (!valid_user_name(value))
                        return fail_usage("%s: '%s' is not a valid group name", where, value);
                return set_string(&o->socket_group, value);
        case OPT_RUN_AS:
                if (!valid_user_name(value))
                        return fail_usage("%s: '%s' is not a valid user name", where, value);
                return set_string(&o->run_as, value);
        case OPT_ALLOW_ROOT_SUT:
                if (parse_bool(value, &o->allow_root_sut) < 0)
                        return fail_usage("%s: '%s' is not true or false", where, value);
                return 0;
        case OPT_ALLOW_EXEC:
                return add_list(value, where, valid_exec_path, "an absolute path", &o->allow_exec, &o->n_allow_exec);
        case OPT_RESULTS_ONLY:
                if (parse_bool(value, &o->results_only) < 0)
                        return fail_usage("%s: '%s' is not true or false", where, value);
                return 0;
        case OPT_IMPORT_MAX:
                return parse_size(value, where, &o->import_max);
        case OPT_ALLOW_JVM_OPTION:
                if (value[0] != '-' && value[0] != '@')
                        return fail_usage("%s: '%s' is not a JVM option (it begins with '-' or '@')", where, value);
                return strv_push(&o->allow_jvm_option, &o->n_allow_jvm_option, value);
        case OPT_HOUSEKEEPING_CPUS: {
                struct cpulist c, online;
                if (cpulist_parse(value, &c) < 0 || cpulist_count(&c) == 0)
                        return fail_usage("%s: '%s' is not a cpulist such as 0 or 0-1,4", where, value);
                if (cpulist_read_online(&online) >= 0 && !cpulist_is_subset(&c, &online))
                        return fail_usage("%s: '%s' names CPUs that are not online", where, value);
                o->housekeeping = c;
                o->has_housekeeping = true;
                return 0;
        }
        case OPT_PEER_URL_TEMPLATE:
                return set_peer_url_template(o, value, where);
        case OPT_PEER_ALLOW:
                return add_list(value, where, valid_peer_pattern,
                                "a lab host pattern: an IPv4 address or four octets with wildcards (10.0.1.*), a CIDR "
                                "block (10.0.1.0/24, fd00::/64), an IPv6 address, or a host name with wildcards label by "
                                "label (bench0?, *.lab.example)", &o->peer_allow, &o->n_peer_allow);
        case OPT_PEER_TOKEN_FILE:
                return set_absolute_path(&o->peer_token_file, value, where);
        case OPT_PERF:
                return set_absolute_path(&o->perf, value, where);
        case OPT_LOG_LEVEL: {
                int l = log_parse_level(value);
                if (l < 0)
                        return fail_usage("%s: '%s' is not one of err, warning, notice, info, debug", where, value);
                o->log_level = l;
                return 0;
        }
        default:
                return fail_usage("%s: unknown setting '%s'", where, name);
        }
}

static int option_by_name(const char *name) {
        for (const struct option *lo = long_options; lo->name; lo++)
                if (strcmp(lo->name, name) == 0 && lo->val != OPT_CONFIG && lo->val != OPT_HELP && lo->val != OPT_VERSION)
                        return lo->val;
        return -1;
}

static char *strip(char *s) {
        while (isspace((unsigned char) *s))
                s++;
        char *e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

/* "key = value" lines; '#' starts a comment line; blank lines are fine. */
static int config_read(struct options *o, const char *path, bool must_exist) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                if (errno == ENOENT && !must_exist)
                        return 0;
                fprintf(stderr, "slicelabd: cannot read config file %s: %s\n", path, strerror(errno));
                return -EINVAL;
        }
        char line[1024];
        for (unsigned lineno = 1; fgets(line, sizeof line, f); lineno++) {
                char where[PATH_MAX + 32];
                snprintf(where, sizeof where, "%s:%u", path, lineno);
                if (!strchr(line, '\n') && !feof(f))
                        return fail_usage("%s: line too long", where);
                char *s = strip(line);
                if (*s == '\0' || *s == '#')
                        continue;
                char *eq = strchr(s, '=');
                if (!eq)
                        return fail_usage("%s: expected 'key = value', got '%s'", where, s);
                *eq = '\0';
                char *key = strip(s), *value = strip(eq + 1);
                int r = apply(o, option_by_name(key), key, value, where);
                if (r < 0)
                        return r;
        }
        return set_string(&o->config, path);
}

static int defaults(struct options *o) {
        *o = (struct options){ .max_parallel = 1, .log_level = LOG_INFO, .max_streams = DEFAULT_MAX_STREAMS,
                               .queue_max = DEFAULT_QUEUE_MAX,
                               .socket_mode = DEFAULT_SOCKET_MODE, .import_max = DEFAULT_IMPORT_MAX };
        if (set_string(&o->listen, DEFAULT_LISTEN) < 0 || set_string(&o->state_dir, DEFAULT_STATE_DIR) < 0 ||
            set_string(&o->cgroup_root, DEFAULT_CGROUP_ROOT) < 0 || set_string(&o->run_as, DEFAULT_RUN_AS) < 0)
                return -ENOMEM;
        return 0;
}

int options_parse(int argc, char **argv, struct options *ret) {
        struct options o;
        int r = defaults(&o);
        if (r < 0)
                return r;

        /* First pass: only --config, --help and --version, so the file is read before flags override it. */
        const char *config = NULL;
        int c;
        opterr = 0;
        optind = 1;
        while ((c = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
                if (c == OPT_CONFIG)
                        config = optarg;
                else if (c == OPT_HELP || c == OPT_VERSION) {
                        if (c == OPT_HELP)
                                usage(stdout);
                        else
                                printf("slicelabd %s\n", SLICELAB_VERSION);
                        options_done(&o);
                        return 0;
                }
        }
        r = config_read(&o, config ? config : DEFAULT_CONFIG, config != NULL);
        if (r < 0)
                goto fail;

        opterr = 0;
        optind = 1;
        while ((c = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
                if (c == '?' || c == ':') {
                        const char *arg = argv[optind - 1];
                        r = c == ':' ? fail_usage("option '%s' needs a value", arg) : fail_usage("unknown option '%s'", arg);
                        goto fail;
                }
                if (c == OPT_CONFIG)
                        continue;
                char where[64];
                snprintf(where, sizeof where, "--%s", long_options[0].name);
                for (const struct option *lo = long_options; lo->name; lo++)
                        if (lo->val == c)
                                snprintf(where, sizeof where, "--%s", lo->name);
                r = apply(&o, c, where, optarg, where);
                if (r < 0)
                        goto fail;
        }
        if (optind < argc) {
                r = fail_usage("unexpected argument '%s'", argv[optind]);
                goto fail;
        }
        if (!o.tls_cert != !o.tls_key) {
                r = fail_usage("--tls-cert and --tls-key go together: %s is missing", o.tls_cert ? "--tls-key" : "--tls-cert");
                goto fail;
        }
        *ret = o;
        return 1;
fail:
        options_done(&o);
        return r;
}

void options_done(struct options *o) {
        free(o->listen);
        free(o->state_dir);
        free(o->config);
        free(o->cgroup_root);
        free(o->run_as);
        free(o->tls_cert);
        free(o->tls_key);
        free(o->socket_group);
        strv_free(o->allow_exec);
        strv_free(o->allow_jvm_option);
        free(o->peer_url_template);
        strv_free(o->peer_allow);
        free(o->peer_token_file);
        free(o->perf);
        *o = (struct options){ 0 };
}
