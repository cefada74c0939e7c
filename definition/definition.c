/* definition.c: parsing and validating an experiment definition, section by section, into
 * struct definition; cross-field rules; freeing. The warnings it is accepted with are
 * definition-warnings.c's. See definition.h for the rules that are decisions. */
#include <stdio.h>
#include <string.h>

#include "basic/governor.h"
#include "basic/hostport.h"
#include "definition/definition-internal.h"

#define READY_TIMEOUT_DEFAULT_S 60

/* An object whose members are all among known[], each once. */
static int expect_members(const cJSON *v, const char *path, const char *const *known, size_t n_known,
                          struct error *err) {
        int r = def_expect_object(v, path, err);
        return r < 0 ? r : def_check_members(v, path, known, n_known, err);
}

/* A member that must be present. */
static int get_required(const cJSON *obj, const char *parent, const char *key, const cJSON **ret,
                        struct error *err) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);
        char p[DEF_PATH_MAX];

        if (!c) {
                def_path_key(p, parent, key);
                return def_error(err, "missing_field", p, "is required");
        }
        *ret = c;
        return 0;
}

/* An optional integer member with a default. */
static int get_uint_field(const cJSON *obj, const char *parent, const char *key, uint64_t min,
                          uint64_t max, uint64_t def, uint64_t *ret, struct error *err) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);
        char p[DEF_PATH_MAX];

        if (!c) {
                *ret = def;
                return 0;
        }
        def_path_key(p, parent, key);
        return def_get_uint(c, p, min, max, ret, err);
}

/* get_uint_field() for the members kept as unsigned (their bounds are far below UINT_MAX). */
static int get_unsigned_field(const cJSON *obj, const char *parent, const char *key, unsigned min,
                              unsigned max, unsigned def, unsigned *ret, struct error *err) {
        uint64_t u;
        int r = get_uint_field(obj, parent, key, min, max, def, &u, err);
        if (r < 0)
                return r;
        *ret = (unsigned) u;
        return 0;
}

/* An optional enum member: the index of its name in names[], def when absent, or a negative
 * errno. */
static int get_enum_field(const cJSON *obj, const char *parent, const char *key,
                          const char *const *names, size_t n, int def, struct error *err) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);
        char p[DEF_PATH_MAX];
        int e, r;

        if (!c)
                return def;
        def_path_key(p, parent, key);
        r = def_get_enum(c, p, names, n, &e, err);
        return r < 0 ? r : e;
}

/* An optional cpulist member (cpus or memory nodes), within online when that is known. */
static int get_cpulist_field(const cJSON *obj, const char *parent, const char *key,
                             const struct cpulist *online, const char *what, struct cpulist *ret,
                             bool *has, struct error *err) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);
        char p[DEF_PATH_MAX];
        int r;

        if (!c)
                return 0;
        def_path_key(p, parent, key);
        r = def_parse_cpulist(c, p, online, what, ret, err);
        if (r < 0)
                return r;
        *has = true;
        return 0;
}

/* A command line: 1..DEFINITION_ARGV_MAX arguments, argv[0] absolute or a bare name. */
static int parse_command(const cJSON *v, const char *path, char ***ret, size_t *n, struct error *err) {
        int r = def_get_strv(v, path, 1, DEFINITION_ARGV_MAX, ret, n, err);
        return r < 0 ? r : def_check_command(*ret, path, err);
}

static int parse_ready(const cJSON *v, const struct host_limits *host,
                       struct definition_ready *ret, struct error *err) {
        static const char *const known[] = { "tcp", "http", "log", "timeout_s" };
        const char *path = "sut.ready";
        struct definition_ready ready = { 0 };
        _cleanup_free_ char *text = NULL;
        const cJSON *c;
        int r;

        r = expect_members(v, path, known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;

        unsigned kinds = 0;
        for (size_t k = 0; k < 3; k++)
                if (cJSON_GetObjectItemCaseSensitive(v, known[k]))
                        kinds++;
        if (kinds != 1)
                return def_error(err, kinds ? "conflict" : "missing_field", path,
                                 "needs exactly one of tcp, http or log, got %u", kinds);

        r = get_unsigned_field(v, path, "timeout_s", 1, 3600, READY_TIMEOUT_DEFAULT_S, &ready.timeout_s, err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "tcp"))) {
                r = def_get_string(c, "sut.ready.tcp", DEFINITION_URL_MAX, 0, &text, err);
                if (r < 0)
                        return r;
                r = def_parse_host_port(text, "sut.ready.tcp", &ready.tcp_host, &ready.tcp_ipv6,
                                        &ready.tcp_port, err);
                if (r < 0)
                        return r;
                ready.kind = DEFINITION_READY_TCP;
        } else if ((c = cJSON_GetObjectItemCaseSensitive(v, "http"))) {
                r = def_get_string(c, "sut.ready.http", DEFINITION_URL_MAX, 0, &text, err);
                if (r < 0)
                        return r;
                r = def_parse_url(text, "sut.ready.http", &ready.http, err);
                if (r < 0)
                        return r;
                ready.kind = DEFINITION_READY_HTTP;
        } else {
                c = cJSON_GetObjectItemCaseSensitive(v, "log");
                r = def_get_string(c, "sut.ready.log", DEFINITION_REGEX_MAX, 0, &ready.log_regex, err);
                if (r < 0)
                        return r;
                r = def_check_regex(ready.log_regex, "sut.ready.log", err);
                if (r < 0) {
                        free(ready.log_regex);
                        return r;
                }
                ready.kind = DEFINITION_READY_LOG;
        }
        *ret = ready;
        return 0;
}

static int parse_sut(const cJSON *v, const struct host_limits *host, struct definition_sut *sut,
                     struct error *err) {
        static const char *const known[] = { "command", "jvm", "env", "ready", "memory_max" };
        const cJSON *c = NULL; /* gcc cannot tell that get_required() sets it on success */
        int r;

        r = expect_members(v, "sut", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        r = get_required(v, "sut", "command", &c, err);
        if (r < 0)
                return r;
        r = parse_command(c, "sut.command", &sut->command, &sut->n_command, err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "jvm"))) {
                r = def_get_bool(c, "sut.jvm", &sut->jvm, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "env"))) {
                r = def_kv_parse(c, "sut.env", &def_kv_env_rules, &sut->env, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "ready"))) {
                r = parse_ready(c, host, &sut->ready, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "memory_max"))) {
                r = def_parse_memory(c, "sut.memory_max", host, &sut->memory_max, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int parse_load_cpus(const cJSON *v, const struct host_limits *host, struct definition_load *load,
                           struct error *err) {
        return get_cpulist_field(v, "load", "cpus", host ? &host->cpus : NULL, "cpus", &load->cpus,
                                 &load->has_cpus, err);
}

static void load_hosts_free(struct definition_load *load) {
        for (size_t i = 0; i < load->n_hosts; i++)
                free(load->hosts[i].host);
        free(load->hosts);
        load->hosts = NULL;
        load->n_hosts = 0;
}

static int parse_load_host(const cJSON *v, const char *path, const struct definition_load *load,
                           struct definition_load_host *h, struct error *err) {
        static const char *const known[] = { "host", "cpus", "share" };
        const cJSON *c = NULL; /* gcc cannot tell that get_required() sets it on success */
        _cleanup_free_ char *text = NULL;
        char p[DEF_PATH_MAX];
        int r;

        r = expect_members(v, path, known, ELEMENTSOF(known), err);
        if (r >= 0)
                r = get_required(v, path, "host", &c, err);
        if (r < 0)
                return r;
        def_path_key(p, path, "host");
        r = def_get_string(c, p, HOSTPORT_HOST_MAX, 0, &text, err);
        if (r >= 0)
                r = def_parse_host(text, p, &h->host, err);
        if (r < 0)
                return r;
        for (size_t i = 0; load->hosts + i < h; i++)
                if (strcmp(load->hosts[i].host, h->host) == 0) {
                        char q[96];
                        def_quote(q, sizeof q, h->host);
                        return def_error(err, "conflict", p, "must be unique, got %s as load.hosts[%zu].host too",
                                         q, i);
                }
        /* the peer's CPUs: only their syntax is this host's business */
        r = get_required(v, path, "cpus", &c, err);
        if (r < 0)
                return r;
        def_path_key(p, path, "cpus");
        r = def_parse_cpulist(c, p, NULL, "cpus", &h->cpus, err);
        if (r < 0)
                return r;
        h->share = 1;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "share"))) {
                def_path_key(p, path, "share");
                r = def_get_number(c, p, 0, DEFINITION_SHARE_MAX, &h->share, err);
        }
        return r;
}

/* load.hosts, once target and mode are known: the rules that make a load spread over peers
 * mean the same as one here (a capacity search's steps too, each rate split by share). */
static int parse_load_hosts(const cJSON *v, const cJSON *hosts, struct definition_load *load,
                            struct error *err) {
        if (cJSON_GetObjectItemCaseSensitive(v, "cpus"))
                return def_error(err, "conflict", "load.cpus",
                                 "with load.hosts no injector runs here: give each host its CPUs as "
                                 "load.hosts[N].cpus");
        if (def_host_is_local(load->target.host)) {
                char q[96];
                def_quote(q, sizeof q, load->target.host);
                return def_error(err, "invalid_value", "load.target",
                                 "with load.hosts must be an address the load hosts can reach, not loopback, "
                                 "unspecified or localhost, got host %s",
                                 q);
        }
        int r = def_expect_array(hosts, "load.hosts", 1, DEFINITION_LOAD_HOSTS_MAX, err);
        if (r < 0)
                return r;
        load->hosts = calloc((size_t) cJSON_GetArraySize(hosts), sizeof *load->hosts);
        if (!load->hosts)
                return def_oom(err);
        const cJSON *c;
        cJSON_ArrayForEach(c, hosts) {
                char p[DEF_PATH_MAX];
                def_path_index(p, "load.hosts", load->n_hosts);
                /* counted first so that definition_free() releases a half-parsed host */
                r = parse_load_host(c, p, load, &load->hosts[load->n_hosts++], err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool is_warmup_auto(const cJSON *warmup) {
        return cJSON_IsString(warmup) && strcmp(warmup->valuestring, "auto") == 0;
}

/* "auto" is decided on this host's timeline and the SUT's JIT, by one injector: a capacity
 * search's steps and the load hosts' schedules have their own phases. */
static int check_warmup_auto_applies(const cJSON *v, const struct definition_load *load, struct error *err) {
        if (!is_warmup_auto(cJSON_GetObjectItemCaseSensitive(v, "warmup_s")))
                return 0;
        if (load->mode == DEFINITION_MODE_CAPACITY)
                return def_error(err, "conflict", "load.warmup_s",
                                 "\"auto\" applies to modes \"rate\" and \"max\": a capacity search warms each step "
                                 "for load.step.warmup_s and once for a number of seconds here");
        if (cJSON_GetObjectItemCaseSensitive(v, "hosts"))
                return def_error(err, "conflict", "load.warmup_s",
                                 "\"auto\" needs the load on this host: with load.hosts the warmup is a number of seconds");
        return 0;
}

/* load.warmup_s: seconds, or "auto" with warmup_max_s, its bound, kept as warmup_s so that the
 * run's deadline and cost count the longest warmup it can have. */
static int parse_warmup(const cJSON *v, struct definition_load *load, struct error *err) {
        const cJSON *warmup = cJSON_GetObjectItemCaseSensitive(v, "warmup_s");
        const cJSON *max = cJSON_GetObjectItemCaseSensitive(v, "warmup_max_s");
        uint64_t u;
        if (!is_warmup_auto(warmup)) {
                if (cJSON_IsString(warmup))
                        return def_error(err, "invalid_value", "load.warmup_s",
                                         "is a number of seconds (0..3600) or \"auto\"");
                if (max)
                        return def_error(err, "conflict", "load.warmup_max_s", "applies only with warmup_s \"auto\"");
                return get_unsigned_field(v, "load", "warmup_s", 0, 3600, 30, &load->warmup_s, err);
        }
        if (!max)
                return def_error(err, "missing_field", "load.warmup_max_s",
                                 "is required with warmup_s \"auto\": the longest warmup before measure begins anyway");
        int r = def_get_uint(max, "load.warmup_max_s", DEFINITION_WARMUP_AUTO_MIN_S, 3600, &u, err);
        if (r < 0)
                return r;
        load->warmup_auto = true;
        load->warmup_s = (unsigned) u;
        return 0;
}

static int parse_load_injector(const cJSON *v, const struct host_limits *host,
                               struct definition_load *load, struct error *err) {
        static const char *const known[] = { "target",      "mode",       "rate",     "arrival",
                                             "connections", "timeout_ms", "warmup_s", "measure_s",
                                             "cpus",        "sla",        "rate_min", "rate_max",
                                             "step",        "precision",  "hosts",    "warmup_max_s" };
        _cleanup_free_ char *target = NULL;
        int r;

        r = def_check_members(v, "load", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        r = def_get_string(cJSON_GetObjectItemCaseSensitive(v, "target"), "load.target",
                           DEFINITION_URL_MAX, 0, &target, err);
        if (r < 0)
                return r;
        r = def_parse_url(target, "load.target", &load->target, err);
        if (r < 0)
                return r;
        load->kind = DEFINITION_LOAD_INJECTOR;

        r = get_enum_field(v, "load", "mode", def_mode_names, ELEMENTSOF(def_mode_names), load->mode, err);
        if (r < 0)
                return r;
        load->mode = (enum definition_load_mode) r;
        r = check_warmup_auto_applies(v, load, err);
        if (r < 0)
                return r;
        r = def_parse_capacity(v, load, err);
        if (r < 0)
                return r;
        const cJSON *rate = cJSON_GetObjectItemCaseSensitive(v, "rate");
        const cJSON *arrival = cJSON_GetObjectItemCaseSensitive(v, "arrival");
        if (load->mode == DEFINITION_MODE_MAX) {
                if (rate || arrival)
                        return def_error(err, "conflict", rate ? "load.rate" : "load.arrival",
                                         "applies only to mode \"rate\", not \"max\"");
        } else {
                if (load->mode == DEFINITION_MODE_RATE) {
                        if (!rate)
                                return def_error(err, "missing_field", "load.rate",
                                                 "is required with mode \"rate\" (requests per second)");
                        r = def_get_number(rate, "load.rate", 0, DEFINITION_RATE_MAX, &load->rate, err);
                        if (r < 0)
                                return r;
                }
                r = get_enum_field(v, "load", "arrival", def_arrival_names, ELEMENTSOF(def_arrival_names),
                                   load->arrival, err);
                if (r < 0)
                        return r;
                load->arrival = (enum definition_arrival) r;
        }
        r = get_unsigned_field(v, "load", "connections", 1, DEFINITION_CONNECTIONS_MAX, 32, &load->connections,
                               err);
        if (r >= 0)
                r = get_unsigned_field(v, "load", "timeout_ms", 1, 600000, 5000, &load->timeout_ms, err);
        /* capacity's phases are per step, from load.step (def_parse_capacity()) */
        if (r >= 0 && load->mode != DEFINITION_MODE_CAPACITY)
                r = parse_warmup(v, load, err);
        if (r >= 0 && load->mode != DEFINITION_MODE_CAPACITY)
                r = get_unsigned_field(v, "load", "measure_s", 1, 86400, 60, &load->measure_s, err);
        if (r < 0)
                return r;
        /* Every request is a 40-byte timeline record that collection reads, sorts and stores:
         * the run's size is bounded here rather than discovered as minutes of ingest. */
        double requests = load->rate * ((double) load->warmup_s + (double) load->measure_s);
        if (load->mode == DEFINITION_MODE_RATE && requests > (double) DEFINITION_REQUESTS_MAX)
                return def_error(err, "out_of_range", "load.rate",
                                 "rate x (warmup_s + measure_s) is %.0f requests, over the limit of %llu per run",
                                 requests, (unsigned long long) DEFINITION_REQUESTS_MAX);
        const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(v, "hosts");
        return hosts ? parse_load_hosts(v, hosts, load, err) : parse_load_cpus(v, host, load, err);
}

static int parse_load_external(const cJSON *v, const struct host_limits *host,
                               struct definition_load *load, struct error *err) {
        static const char *const known[] = { "command", "timeline", "timeout_s", "cpus" };
        const cJSON *command = cJSON_GetObjectItemCaseSensitive(v, "command");
        const cJSON *timeline = cJSON_GetObjectItemCaseSensitive(v, "timeline");
        int r;

        if (cJSON_GetObjectItemCaseSensitive(v, "hosts"))
                return def_error(err, "conflict", "load.hosts",
                                 "needs the built-in injector (target): an external command runs on this host");
        r = def_check_members(v, "load", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        if (!command || !timeline)
                return def_error(err, "missing_field", command ? "load.timeline" : "load.command",
                                 "an external load needs both command and timeline");
        load->kind = DEFINITION_LOAD_EXTERNAL;
        r = parse_command(command, "load.command", &load->command, &load->n_command, err);
        if (r < 0)
                return r;
        r = def_get_string(timeline, "load.timeline", DEFINITION_TIMELINE_MAX, 0, &load->timeline, err);
        if (r < 0)
                return r;
        r = def_check_timeline_path(load->timeline, "load.timeline", err);
        if (r < 0)
                return r;
        r = get_unsigned_field(v, "load", "timeout_s", 1, 86400, 3600, &load->timeout_s, err);
        if (r < 0)
                return r;
        return parse_load_cpus(v, host, load, err);
}

static int parse_load(const cJSON *v, const struct host_limits *host, struct definition_load *load,
                      struct error *err) {
        int r = def_expect_object(v, "load", err);
        if (r < 0)
                return r;
        bool injector = cJSON_GetObjectItemCaseSensitive(v, "target");
        bool external = cJSON_GetObjectItemCaseSensitive(v, "command") ||
                        cJSON_GetObjectItemCaseSensitive(v, "timeline");
        if (injector && external)
                return def_error(err, "conflict", "load",
                                 "takes either target (built-in injector) or command and timeline "
                                 "(external injector), not both");
        if (external)
                return parse_load_external(v, host, load, err);
        if (!injector)
                return def_error(err, "missing_field", "load.target",
                                 "load needs target, or command and timeline; omit load for none");
        return parse_load_injector(v, host, load, err);
}

static void cell_done(struct definition_cell *c) {
        free(c->name);
        def_kv_done(&c->env);
        definition_strv_free(c->jvm_args);
}

/* cpu_quota, cpu_period_us and cpu_burst_us of a cell, against its cpuset. */
static int parse_cell_cpu(const cJSON *v, const char *path, const struct host_limits *host,
                          struct definition_cell *cell, struct error *err) {
        const cJSON *quota = cJSON_GetObjectItemCaseSensitive(v, "cpu_quota");
        const cJSON *period = cJSON_GetObjectItemCaseSensitive(v, "cpu_period_us");
        const cJSON *burst = cJSON_GetObjectItemCaseSensitive(v, "cpu_burst_us");
        char p[DEF_PATH_MAX];
        int r;

        if (!quota) {
                if (period || burst) {
                        def_path_key(p, path, period ? "cpu_period_us" : "cpu_burst_us");
                        return def_error(err, "conflict", p, "needs cpu_quota (without it the cell is unlimited)");
                }
                return 0;
        }
        r = get_uint_field(v, path, "cpu_period_us", 1000, 1000000, 100000, &cell->cpu_period_us, err);
        if (r < 0)
                return r;

        def_path_key(p, path, "cpu_quota");
        r = def_get_number(quota, p, 0, CPULIST_MAX, &cell->cpu_quota, err);
        if (r < 0)
                return r;
        if (cell->has_cpus || host) {
                const struct cpulist *set = cell->has_cpus ? &cell->cpus : &host->cpus;
                unsigned n = cpulist_count(set);
                if (cell->cpu_quota > n) {
                        char s[256], q[64];
                        if (cpulist_format(set, s, sizeof s) < 0)
                                snprintf(s, sizeof s, "(many)");
                        def_format_double(q, sizeof q, cell->cpu_quota);
                        return def_error(err, cell->has_cpus ? "conflict" : "not_on_host", p,
                                         "must be at most %u, the number of CPUs in %s %s, got %s", n,
                                         cell->has_cpus ? "the cell's cpus" : "this host's online CPUs", s,
                                         q);
                }
        }
        /* positive and at most 1024 x 10^6: adding one half and truncating rounds */
        double us = (double) (uint64_t) (cell->cpu_quota * (double) cell->cpu_period_us + 0.5);
        if (us < 1000) {
                char q[64];
                def_format_double(q, sizeof q, cell->cpu_quota);
                return def_error(err, "out_of_range", p,
                                 "cpu_quota x cpu_period_us must be at least 1000 us (1 ms) per period, "
                                 "got %s x %llu = %.0f us",
                                 q, (unsigned long long) cell->cpu_period_us, us);
        }
        cell->cpu_quota_us = (uint64_t) us;
        cell->has_quota = true;

        r = get_uint_field(v, path, "cpu_burst_us", 0, UINT64_C(1) << 40, 0, &cell->cpu_burst_us, err);
        if (r < 0)
                return r;
        if (cell->cpu_burst_us > cell->cpu_quota_us) {
                def_path_key(p, path, "cpu_burst_us");
                return def_error(err, "conflict", p, "must be at most the quota of %llu us per period, got %llu",
                                 (unsigned long long) cell->cpu_quota_us,
                                 (unsigned long long) cell->cpu_burst_us);
        }
        return 0;
}

static int parse_cell(const cJSON *v, const char *path, const struct host_limits *host,
                      const struct definition *d, struct definition_cell *cell, struct error *err) {
        static const char *const known[] = { "name",         "cpus",          "mems",
                                             "cpu_quota",    "cpu_period_us", "cpu_burst_us",
                                             "memory_max",   "env",           "jvm_args",
                                             "profile" };
        char p[DEF_PATH_MAX];
        const cJSON *c = NULL; /* gcc cannot tell that get_required() sets it on success */
        int r;

        r = expect_members(v, path, known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        r = get_required(v, path, "name", &c, err);
        if (r < 0)
                return r;
        def_path_key(p, path, "name");
        r = def_get_string(c, p, DEFINITION_CELL_NAME_MAX, DEF_STRING_NAME, &cell->name, err);
        if (r < 0)
                return r;
        for (size_t i = 0; d->cells + i < cell; i++)
                if (strcmp(d->cells[i].name, cell->name) == 0) {
                        char q[96];
                        def_quote(q, sizeof q, cell->name);
                        return def_error(err, "conflict", p, "must be unique, got %s as cells[%zu].name too",
                                         q, i);
                }
        r = get_cpulist_field(v, path, "cpus", host ? &host->cpus : NULL, "cpus", &cell->cpus,
                              &cell->has_cpus, err);
        if (r >= 0)
                r = get_cpulist_field(v, path, "mems", host ? &host->mems : NULL, "memory nodes",
                                      &cell->mems, &cell->has_mems, err);
        if (r >= 0)
                r = parse_cell_cpu(v, path, host, cell, err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "memory_max"))) {
                def_path_key(p, path, "memory_max");
                r = def_parse_memory(c, p, host, &cell->memory_max, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "env"))) {
                def_path_key(p, path, "env");
                r = def_kv_parse(c, p, &def_kv_env_rules, &cell->env, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "jvm_args"))) {
                def_path_key(p, path, "jvm_args");
                if (!d->sut.jvm)
                        return def_error(err, "conflict", p, "needs sut.jvm true");
                r = def_get_strv(c, p, 0, DEFINITION_JVM_ARGS_MAX, &cell->jvm_args, &cell->n_jvm_args, err);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < cell->n_jvm_args; i++)
                        if (cell->jvm_args[i][0] != '-') {
                                char q[96], pi[DEF_PATH_MAX];
                                def_quote(q, sizeof q, cell->jvm_args[i]);
                                def_path_index(pi, p, i);
                                return def_error(err, "invalid_value", pi,
                                                 "must be a JVM option starting with '-', got %s", q);
                        }
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "profile"))) {
                bool profiled;
                def_path_key(p, path, "profile");
                r = def_get_bool(c, p, &profiled, err);
                if (r < 0)
                        return r;
                if (!d->profile.cpu)
                        return def_error(err, "conflict", p, "needs profile.cpu true");
                cell->unprofiled = !profiled;
        }
        return 0;
}

static int parse_cells(const cJSON *v, const struct host_limits *host, struct definition *d,
                       struct error *err) {
        int r = def_expect_array(v, "cells", 1, DEFINITION_CELLS_MAX, err);
        if (r < 0)
                return r;
        d->cells = calloc((size_t) cJSON_GetArraySize(v), sizeof *d->cells);
        if (!d->cells)
                return def_oom(err);

        const cJSON *c;
        cJSON_ArrayForEach(c, v) {
                char p[DEF_PATH_MAX];
                def_path_index(p, "cells", d->n_cells);
                /* counted before parsing so that definition_free() releases a half-parsed cell */
                struct definition_cell *cell = &d->cells[d->n_cells++];
                r = parse_cell(c, p, host, d, cell, err);
                if (r < 0) {
                        cell_done(cell);
                        d->n_cells--;
                        return r;
                }
        }
        return 0;
}

/* One rule with preflight's (basic/governor.h), so that every governor accepted here can be
 * checked there; read without a bound of its own (the body's caps the copy) so that the rule
 * alone decides. */
static int parse_governor(const cJSON *v, char **ret, struct error *err) {
        _cleanup_free_ char *g = NULL;
        int r = def_get_string(v, "host.governor", SIZE_MAX, 0, &g, err);
        if (r < 0)
                return r;
        if (!governor_name_valid(g)) {
                char q[96];
                def_quote(q, sizeof q, g);
                return def_error(err, "invalid_value", "host.governor",
                                 "must be a cpufreq governor name such as \"performance\" "
                                 "(1 to %d of [a-z0-9_-]), got %s",
                                 GOVERNOR_NAME_MAX, q);
        }
        *ret = TAKE_PTR(g);
        return 0;
}

static int parse_host_checks(const cJSON *v, struct definition_host_checks *h, struct error *err) {
        static const char *const known[] = { "governor", "smt", "thp", "on_mismatch" };
        const cJSON *c;
        int r;

        r = expect_members(v, "host", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "governor"))) {
                r = parse_governor(c, &h->governor, err);
                if (r < 0)
                        return r;
        }
        r = get_enum_field(v, "host", "smt", def_smt_names, ELEMENTSOF(def_smt_names), h->smt, err);
        if (r < 0)
                return r;
        h->smt = (enum definition_smt) r;
        r = get_enum_field(v, "host", "thp", def_thp_names, ELEMENTSOF(def_thp_names), h->thp, err);
        if (r < 0)
                return r;
        h->thp = (enum definition_thp) r;
        r = get_enum_field(v, "host", "on_mismatch", def_on_mismatch_names, ELEMENTSOF(def_on_mismatch_names),
                           h->on_mismatch, err);
        if (r < 0)
                return r;
        h->on_mismatch = (enum definition_on_mismatch) r;
        return 0;
}

static int parse_profile(const cJSON *v, struct definition_profile *pr, struct error *err) {
        static const char *const known[] = { "cpu", "hz" };
        const cJSON *c;
        int r;

        r = expect_members(v, "profile", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(v, "cpu"))) {
                r = def_get_bool(c, "profile.cpu", &pr->cpu, err);
                if (r < 0)
                        return r;
        }
        if (!pr->cpu && cJSON_GetObjectItemCaseSensitive(v, "hz"))
                return def_error(err, "conflict", "profile.hz", "needs profile.cpu true");
        return get_unsigned_field(v, "profile", "hz", DEFINITION_PROFILE_HZ_MIN, DEFINITION_PROFILE_HZ_MAX,
                                  DEFINITION_PROFILE_HZ_DEFAULT, &pr->hz, err);
}

/* Defaults that depend on other sections. */
static int fill_defaults(struct definition *d) {
        struct definition_ready *ready = &d->sut.ready;
        if (ready->kind == DEFINITION_READY_NONE && d->load.kind == DEFINITION_LOAD_INJECTOR) {
                ready->tcp_host = strdup(d->load.target.host);
                if (!ready->tcp_host)
                        return -ENOMEM;
                ready->tcp_ipv6 = d->load.target.ipv6;
                ready->tcp_port = d->load.target.port;
                ready->kind = DEFINITION_READY_TCP;
                ready->timeout_s = READY_TIMEOUT_DEFAULT_S;
        }
        return 0;
}

static int parse_root(const cJSON *root, const struct host_limits *host, struct definition *d,
                      struct error *err) {
        static const char *const known[] = { "name", "description", "iterations", "max_consecutive_failures",
                                             "order", "seed",       "sut",        "load",
                                             "cells", "host",       "labels",     "checks",
                                             "profile", "stop" };
        const cJSON *c = NULL; /* gcc cannot tell that get_required() sets it on success */
        int r;

        r = expect_members(root, "", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        r = get_required(root, "", "name", &c, err);
        if (r < 0)
                return r;
        r = def_get_string(c, "name", DEFINITION_NAME_MAX, DEF_STRING_NAME, &d->name, err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "description"))) {
                r = def_get_string(c, "description", DEFINITION_DESCRIPTION_MAX, DEF_STRING_NAME, &d->description, err);
                if (r < 0)
                        return r;
        }
        r = def_parse_iterations(cJSON_GetObjectItemCaseSensitive(root, "iterations"), d, err);
        if (r < 0)
                return r;
        r = get_unsigned_field(root, "", "max_consecutive_failures", 0, DEFINITION_ITERATIONS_MAX,
                               DEFINITION_MAX_CONSECUTIVE_FAILURES_DEFAULT, &d->max_consecutive_failures, err);
        if (r < 0)
                return r;
        r = get_enum_field(root, "", "order", def_order_names, ELEMENTSOF(def_order_names), d->order, err);
        if (r < 0)
                return r;
        d->order = (enum definition_order) r;
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "seed"))) {
                if (d->order != DEFINITION_ORDER_RANDOM)
                        return def_error(err, "conflict", "seed", "applies only to order \"random\"");
                r = def_get_uint(c, "seed", 0, DEFINITION_SEED_MAX, &d->seed, err);
                if (r < 0)
                        return r;
                d->has_seed = true;
        }

        r = get_required(root, "", "sut", &c, err);
        if (r < 0)
                return r;
        r = parse_sut(c, host, &d->sut, err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "load"))) {
                r = parse_load(c, host, &d->load, err);
                if (r < 0)
                        return r;
        }
        /* before the cells, which may opt out of it */
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "profile"))) {
                r = parse_profile(c, &d->profile, err);
                if (r < 0)
                        return r;
        }
        r = get_required(root, "", "cells", &c, err);
        if (r < 0)
                return r;
        r = parse_cells(c, host, d, err);
        if (r < 0)
                return r;
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "host"))) {
                r = parse_host_checks(c, &d->host, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "labels"))) {
                r = def_kv_parse(c, "labels", &def_kv_label_rules, &d->labels, err);
                if (r < 0)
                        return r;
        }
        if ((c = cJSON_GetObjectItemCaseSensitive(root, "checks"))) {
                r = def_parse_checks(c, d, err);
                if (r < 0)
                        return r;
        }
        r = def_parse_stop(cJSON_GetObjectItemCaseSensitive(root, "stop"), d, err);
        if (r < 0)
                return r;

        if (fill_defaults(d) < 0 || def_warnings_collect(d) < 0)
                return def_oom(err);
        return 0;
}

/* cJSON stops at the end of the first value; anything but whitespace after it is an error. */
static bool only_whitespace(const char *s, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (!strchr(" \t\r\n", s[i]))
                        return false;
        return true;
}

/* root parsed into a new definition. */
static int parse_new(const cJSON *root, const struct host_limits *host, struct definition **ret, struct error *err) {
        _cleanup_(definition_freep) struct definition *d = calloc(1, sizeof *d);
        if (!d)
                return def_oom(err);
        d->iterations = 1;
        int r = parse_root(root, host, d, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

/* One cell's expansion of the template, its errors said to be that cell's. */
static int parse_expansion(const cJSON *root, const struct def_template *t, size_t cell, const struct host_limits *host,
                           struct definition **ret, struct error *err) {
        _cleanup_json_ cJSON *expanded = NULL;
        if (def_template_expand(root, t, cell, &expanded) < 0)
                return def_oom(err);
        int r = parse_new(expanded, host, ret, err);
        if (r < 0 && err && err->status == 400) {
                char message[sizeof err->message + 64];
                snprintf(message, sizeof message, "with cells[%zu].vars: %s", cell, err->message);
                error_set(err, err->status, err->code, err->field, "%s", message);
        }
        return r;
}

/* Every cell's expansion must be a definition; the one kept is cell's. */
static int parse_template(const cJSON *root, struct def_template *t, size_t cell, const struct host_limits *host,
                          struct definition **ret, struct error *err) {
        if (cell >= t->n_cells)
                return def_error(err, "out_of_range", "cells", "there is no cell %zu", cell);
        for (size_t i = 0; i < t->n_cells; i++) {
                _cleanup_(definition_freep) struct definition *other = NULL;
                int r = i == cell ? 0 : parse_expansion(root, t, i, host, &other, err);
                if (r < 0)
                        return r;
        }
        return parse_expansion(root, t, cell, host, ret, err);
}

static int parse_body(const char *body, size_t len, const struct host_limits *host, size_t cell,
                      struct definition **ret, struct error *err) {
        _cleanup_(definition_freep) struct definition *d = NULL;
        _cleanup_(def_template_freep) struct def_template *t = NULL;
        _cleanup_json_ cJSON *root = NULL;
        _cleanup_free_ char *copy = NULL;
        const char *end = NULL;
        int r;

        if (len > DEFINITION_BODY_MAX) {
                error_set(err, 413, "body_too_large", "", "body must be at most %d bytes, got %zu",
                          DEFINITION_BODY_MAX, len);
                return -EFBIG;
        }
        if (len == 0)
                return def_error(err, "invalid_json", "", "body is empty");
        r = def_json_prescan(body, len, err);
        if (r < 0)
                return r;

        /* NUL-terminated for cJSON, which then never reads past the body */
        copy = malloc(len + 1);
        if (!copy)
                return def_oom(err);
        memcpy(copy, body, len);
        copy[len] = '\0';
        root = cJSON_ParseWithLengthOpts(copy, len, &end, false);
        if (!root)
                return def_error(err, "invalid_json", "", "body is not valid JSON (near byte %zu)",
                                 end && end >= copy ? (size_t) (end - copy) : 0);
        if (!only_whitespace(end, len - (size_t) (end - copy)))
                return def_error(err, "invalid_json", "", "body has data after the JSON value (byte %zu)",
                                 (size_t) (end - copy));

        r = def_template_read(root, &t, err);
        if (r < 0)
                return r;
        r = t ? parse_template(root, t, cell, host, &d, err) : parse_new(root, host, &d, err);
        if (r < 0)
                return r;
        d->template = TAKE_PTR(t);
        d->canonical = definition_format_json(d);
        *ret = TAKE_PTR(d);
        return 0;
}

int definition_parse(const char *body, size_t len, const struct host_limits *host,
                     struct definition **ret, struct error *err) {
        return parse_body(body, len, host, 0, ret, err);
}

int definition_parse_cell(const char *body, size_t len, size_t cell, struct definition **ret, struct error *err) {
        return parse_body(body, len, NULL, cell, ret, err);
}

void definition_strv_free(char **l) {
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
}

void definition_free(struct definition *d) {
        if (!d)
                return;
        free(d->name);
        free(d->description);
        definition_strv_free(d->sut.command);
        def_kv_done(&d->sut.env);
        free(d->sut.ready.tcp_host);
        def_url_done(&d->sut.ready.http);
        free(d->sut.ready.log_regex);
        def_url_done(&d->load.target);
        definition_strv_free(d->load.command);
        free(d->load.timeline);
        load_hosts_free(&d->load);
        for (size_t i = 0; i < d->n_cells; i++)
                cell_done(&d->cells[i]);
        free(d->cells);
        free(d->host.governor);
        def_kv_done(&d->labels);
        def_checks_free(d->checks, d->n_checks);
        definition_strv_free(d->warnings);
        free(d->canonical);
        def_template_free(d->template);
        free(d);
}
