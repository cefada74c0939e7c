/* definition.h: the experiment definition of POST /v1/experiments (design.md, "Experiment
 * definition"): strict parsing and validation into a plain C struct, its canonical JSON (what the
 * API stores and returns), the effective argv/env of a cell, and the run plan (cells x
 * iterations in the definition's order).
 *
 * Contract of every rejection: a struct error with status 400 (413 only for a body over
 * DEFINITION_BODY_MAX), a code from the list below, `field` the JSON path at fault
 * ("cells[1].cpu_quota", "sut.command[0]", "load.rate"; "" when the body as a whole is at fault)
 * and a message naming the rule and the value seen. Host-dependent rejections (cpus or mems not
 * online, memory above the host's) are also 400, with their own code, so that a scheduler can
 * tell "fix the definition" from "try another host" without a second status.
 *
 * Codes: invalid_json, too_deep, too_many_values (> 65536 JSON values), body_too_large,
 * unknown_field, duplicate_field, missing_field, wrong_type, invalid_value, out_of_range,
 * conflict (two fields contradict, or a field needs another), not_on_host.
 *
 * Rules that are decisions rather than design text:
 *  - null is never a value: omit a field to get its default.
 *  - integers may be written in any JSON number form with an integral value (1e2 is 100).
 *  - strings are valid UTF-8 without control characters (C0, DEL, C1); names additionally
 *    without bidi/format characters; \u0000 is rejected anywhere in the body.
 *  - fields that would have no effect are rejected: seed without order random, cpu_period_us or
 *    cpu_burst_us without cpu_quota, rate/arrival with mode max, jvm_args without sut.jvm.
 *  - sut.ready defaults to {"tcp": <load.target host:port>} when the built-in injector is used,
 *    to none (started = ready) otherwise.
 *  - a cell without cpus runs on all CPUs online at run time; its cpu_quota is bounded by the
 *    host's online CPU count.
 *  - log regexes are POSIX EREs (REG_EXTENDED) without back-references, interval bounds <= 255,
 *    and repetitions whose expansion by glibc's regcomp stays under 2048 nodes ("a++++++++++++"
 *    or "((a{255}){255})" are refused), so regcomp and matching stay cheap on hostile input.
 *  - memory sizes: a JSON integer of bytes or a string "<digits>[KMGT]" (binary units), from
 *    1 MiB up to the host's memory.
 *  - argv and environment need no bound of their own: the body bound keeps what one exec gets
 *    near 1 MiB, under the kernel's ARG_MAX (2 MiB with the default 8 MiB stack).
 *  - the body is strict RFC 8259 JSON (no byte-order mark, no "01" or "1."), numbers at most 40
 *    characters; cJSON is only handed bodies that pass this check.
 *  - commands: argv[0] absolute or a bare name (no "./x"), jvm_args entries start with '-';
 *    env names [A-Za-z_][A-Za-z0-9_]*; load.timeline relative, of [A-Za-z0-9._-/] only.
 *  - host.governor: 1 to 15 of [a-z0-9_-], the kernel's limit, by governor_name_valid()
 *    (basic/governor.h), the rule preflight applies too.
 *  - canonical JSON: memory sizes in bytes, cpulists as cpulist_format() writes them, URLs as
 *    http://host:port/path with the host lower-cased, env sorted by name, empty env and
 *    jvm_args omitted, host.on_mismatch always present.
 *  - warnings (accepted, recorded): load.cpus overlapping a cell's cpus (or a cell without
 *    cpus), a java command without sut.jvm, a cell's jvm_args overridden by the same option in
 *    sut.command (HotSpot takes the last), -Xmx not below the cell's memory_max.
 *  - order random is a randomized block design: every round of iterations runs each cell once,
 *    in a seeded random order (Fisher-Yates over splitmix64), so drift hits all cells alike.
 *  - load.mode capacity: sla (1-8, percentiles 50..99.99 distinct, max_ms in (0, 600000]),
 *    rate_min < rate_max, step {warmup_s 0..3600 (10), measure_s 1..3600 (30)}, precision
 *    0.001..0.5 (0.05); rate and measure_s are refused with it, and so are its fields with the
 *    other modes; warmup_s 0..3600 (0) is the search's own warmup, once before step 0; a range
 *    the search could need more than CAPACITY_STEPS_MAX steps for is refused naming
 *    load.precision. The step's phases are kept in load.warmup_s/measure_s, the search's warmup
 *    in load.search_warmup_s.
 *  - description: optional, for people (what the experiment needs and how long it runs); a name's
 *    character rules, at most DEFINITION_DESCRIPTION_MAX bytes, echoed in the canonical JSON.
 *  - labels: at most 32, keys 1-63 of [a-z0-9_.-] (a bad key is reported on "labels", never put
 *    into the path), values at most 256 bytes, may be empty; canonical JSON sorts them.
 *  - load.hosts (1..64): each host a host name (RFC 1123) or an IPv4/IPv6 literal (no brackets,
 *    no port), unique, lower-cased in canonical JSON; cpus required (a cpulist of the peer, not
 *    checked here); share (0, 1e6], default 1. Only with the built-in injector in mode rate or
 *    max (capacity: conflict on load.mode; an external command: conflict on load.hosts);
 *    load.cpus is refused with it (the local host runs no injector: each host names its own
 *    cpus); load.target must not be loopback, unspecified or localhost (the peers must reach
 *    it). connections and timeout_ms apply to each host's injector. Which hosts a daemon may
 *    use is its policy (--peer-allow, definition-policy.h), not the parser's.
 *  - profile: {"cpu": bool, "hz": 1..999 (99)}; hz without cpu true is a conflict (no effect).
 *    Canonical JSON has the object only with cpu true, hz filled in. Whether this host can
 *    profile (perf on the daemon's PATH) is the API's check, not the parser's. A cell's
 *    "profile": false runs that cell unprofiled (profiling's cost measured as a cell against
 *    a profiled twin); it needs profile.cpu true, and canonical JSON has it only when false.
 *  - checks: at most 64; metric one of definition_checks_metrics, cell and ratio_to (another
 *    cell) named by the definition's cells, min and/or max finite numbers, min <= max.
 *  - iterations: a count 1..1000, or {"min": M, "max": N} with 2 <= M <= N <= 1000, which needs
 *    stop: {"baseline": cell (the first), "metrics": 1..5 of definition_stop_metrics, unique,
 *    "difference_pct": (0, 100] (3), "level": [0.5, 0.999] (0.95)}; stop needs 2 cells or more
 *    and order interleaved or random (a round runs every cell once); stop without {min, max}
 *    is a conflict. iterations is then max: the runs of max rounds are queued, and those not
 *    needed are dropped when every comparison is decided (daemon/sequential-stop.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/cpulist.h"
#include "basic/sequential.h"
#include "basic/error.h"
#include "basic/host-limits.h"
#include "basic/macro.h"

#define DEFINITION_BODY_MAX (1024 * 1024)
#define DEFINITION_DEPTH_MAX 8             /* a valid definition nests 4 deep */
#define DEFINITION_NAME_MAX 128            /* bytes, experiment name */
#define DEFINITION_DESCRIPTION_MAX 1024    /* bytes, the optional description */
#define DEFINITION_CELL_NAME_MAX 64        /* bytes */
#define DEFINITION_CELLS_MAX 64
#define DEFINITION_VARS_MAX 16               /* a cell's vars (cells from a template) */
#define DEFINITION_VAR_VALUE_MAX 256
#define DEFINITION_ITERATIONS_MAX 1000
#define DEFINITION_MAX_CONSECUTIVE_FAILURES_DEFAULT 3
#define DEFINITION_ARGV_MAX 256            /* entries of a command */
#define DEFINITION_JVM_ARGS_MAX 64         /* entries per cell */
#define DEFINITION_ARG_MAX 4096            /* bytes per argument */
#define DEFINITION_ENV_MAX 128             /* variables per env object */
#define DEFINITION_ENV_KEY_MAX 128
#define DEFINITION_ENV_VALUE_MAX 4096
#define DEFINITION_URL_MAX 2048
#define DEFINITION_REGEX_MAX 512
#define DEFINITION_TIMELINE_MAX 255
#define DEFINITION_RATE_MAX 1000000.0      /* requests per second */
#define DEFINITION_CONNECTIONS_MAX 10000
/* Requests of one run at a fixed rate (rate x (warmup_s + measure_s)): 20 M records are 800 MB
 * of timeline. */
#define DEFINITION_REQUESTS_MAX UINT64_C(20000000)
/* load.warmup_max_s's least: the steadiness check needs some seconds of series and of a quiet JIT. */
#define DEFINITION_WARMUP_AUTO_MIN_S 10
#define DEFINITION_SEED_MAX ((UINT64_C(1) << 53) - 1) /* exact in a JSON (double) number */
#define DEFINITION_MEMORY_MIN (UINT64_C(1) << 20)
#define DEFINITION_MEMORY_MAX (UINT64_C(1) << 50) /* 1 PiB, the bound when the host's is unknown */
#define DEFINITION_WARNINGS_MAX 256
#define DEFINITION_LABELS_MAX 32
#define DEFINITION_LABEL_KEY_MAX 63        /* bytes of [a-z0-9_.-] */
#define DEFINITION_LABEL_VALUE_MAX 256     /* bytes */
#define DEFINITION_CHECKS_MAX 64
#define DEFINITION_STOP_METRICS_MAX 5
#define DEFINITION_STOP_DIFFERENCE_PCT_DEFAULT 3.0
#define DEFINITION_STOP_DIFFERENCE_PCT_MAX 100.0
#define DEFINITION_STOP_LEVEL_DEFAULT 0.95
#define DEFINITION_STOP_LEVEL_MIN 0.5
#define DEFINITION_STOP_LEVEL_MAX 0.999
/* Load hosts of one run: a merged timeline record keeps its host as index + 1 in 8 bits. */
#define DEFINITION_LOAD_HOSTS_MAX 64
#define DEFINITION_SHARE_MAX 1000000.0
#define DEFINITION_PROFILE_HZ_MIN 1
#define DEFINITION_PROFILE_HZ_MAX 999
#define DEFINITION_PROFILE_HZ_DEFAULT 99
/* What a profiled JVM runs with, so that perf walks Java frames (JIT code keeps rbp). */
#define DEFINITION_PROFILE_JVM_ARG "-XX:+PreserveFramePointer"

enum definition_order {
        DEFINITION_ORDER_INTERLEAVED,
        DEFINITION_ORDER_SEQUENTIAL,
        DEFINITION_ORDER_RANDOM,
};

enum definition_ready_kind {
        DEFINITION_READY_NONE,          /* started = ready */
        DEFINITION_READY_TCP,           /* connect() to host:port succeeds */
        DEFINITION_READY_HTTP,          /* GET url answers 2xx */
        DEFINITION_READY_LOG,           /* a line of stdout/stderr matches regex */
};

enum definition_load_kind {
        DEFINITION_LOAD_NONE,           /* the SUT's last stdout line {"ops_per_s": N} is the result */
        DEFINITION_LOAD_INJECTOR,       /* slicelab-inject against target */
        DEFINITION_LOAD_EXTERNAL,       /* command writes timeline (relative to the run dir) */
};

enum definition_load_mode { DEFINITION_MODE_RATE, DEFINITION_MODE_MAX, DEFINITION_MODE_CAPACITY };

#define DEFINITION_SLA_MAX 8
#define DEFINITION_PRECISION_DEFAULT 0.05

/* A latency bound of a capacity search: percentile p (50..99.99) of the latency from scheduled
 * at most max_ms. */
struct definition_sla {
        double percentile;
        double max_ms;
};
enum definition_arrival { DEFINITION_ARRIVAL_UNIFORM, DEFINITION_ARRIVAL_POISSON };
enum definition_smt { DEFINITION_SMT_ANY, DEFINITION_SMT_ON, DEFINITION_SMT_OFF };
enum definition_thp {
        DEFINITION_THP_ANY,
        DEFINITION_THP_ALWAYS,
        DEFINITION_THP_MADVISE,
        DEFINITION_THP_NEVER,
};
enum definition_on_mismatch { DEFINITION_ON_MISMATCH_FAIL, DEFINITION_ON_MISMATCH_WARN };

/* An http:// URL split for connecting: host without brackets, path with its query ("/" when
 * the URL has none). */
struct definition_url {
        char *host;
        bool ipv6;
        uint16_t port;
        char *path;
};
/* The URL as canonical JSON writes it: http://host:port/path, an IPv6 host in brackets. */
void def_format_url(char *buf, size_t size, const struct definition_url *u);

/* A JSON object of strings (environment variables, labels) sorted by key, keys unique; each use
 * has its own rule for keys and bounds (definition-kv.c). */
struct definition_kv {
        size_t n;
        char **keys;
        char **values;
};

struct definition_ready {
        enum definition_ready_kind kind;
        char *tcp_host;                 /* TCP: without brackets */
        bool tcp_ipv6;
        uint16_t tcp_port;
        struct definition_url http;     /* HTTP */
        char *log_regex;                /* LOG: compiles with REG_EXTENDED|REG_NOSUB */
        unsigned timeout_s;             /* 1..3600, default 60 */
};

struct definition_sut {
        char **command;                 /* NULL-terminated; argv[0] absolute or a bare name */
        size_t n_command;
        bool jvm;
        struct definition_kv env;
        struct definition_ready ready;
        uint64_t memory_max;            /* bytes, 0 = none */
};

/* A load host: a peer slicelabd (reached through this daemon's --peer-url-template) that runs
 * its share of the load on its own CPUs. */
struct definition_load_host {
        char *host;                     /* lower-cased host name or IP literal (IPv6 without brackets) */
        struct cpulist cpus;            /* the peer's CPUs: never checked against this host's */
        double share;                   /* (0, DEFINITION_SHARE_MAX], default 1 */
};

struct definition_load {
        enum definition_load_kind kind;
        /* INJECTOR */
        struct definition_url target;
        enum definition_load_mode mode;
        double rate;                    /* req/s, mode RATE only */
        enum definition_arrival arrival;        /* RATE and CAPACITY */
        /* CAPACITY: the highest rate in [rate_min, rate_max] meeting every sla, to precision
         * (relative), found in steps of warmup_s + measure_s (given as load.step) within one SUT
         * lifetime (basic/capacity-search.h); at most CAPACITY_STEPS_MAX steps */
        struct definition_sla sla[DEFINITION_SLA_MAX];
        size_t n_sla;                   /* 1..DEFINITION_SLA_MAX, percentiles distinct */
        double rate_min, rate_max;      /* 0 < rate_min < rate_max <= DEFINITION_RATE_MAX */
        double precision;               /* 0.001..0.5, default 0.05 */
        unsigned connections;           /* 1..10000, default 32 */
        unsigned timeout_ms;            /* 1..600000, default 5000 */
        unsigned warmup_s;              /* 0..3600, default 30; CAPACITY: per step, step.warmup_s (default 10);
                                         * warmup_auto: warmup_max_s, the longest it may be */
        bool warmup_auto;               /* load.warmup_s "auto" (modes RATE and MAX, no hosts): measure
                                         * begins once the run is steady (daemon/warmup-watch.h) */
        unsigned measure_s;             /* 1..86400, default 60; CAPACITY: per step, step.measure_s (default 30) */
        unsigned search_warmup_s;       /* CAPACITY: load.warmup_s 0..3600 (default 0), once, added to step 0's
                                         * warmup: a cold JVM is not judged at the search's first rate */
        /* EXTERNAL */
        char **command;                 /* NULL-terminated */
        size_t n_command;
        char *timeline;                 /* relative, no "..", no empty components */
        unsigned timeout_s;             /* 1..86400, default 3600: longer and the run fails (timeout) */
        /* both */
        bool has_cpus;                  /* false: the injector's slice gets no cpuset */
        struct cpulist cpus;
        /* INJECTOR: the load runs on these peers instead of here, each with rate x share / sum of
         * shares (RATE; CAPACITY: each step's rate) and its own connections; none here */
        struct definition_load_host *hosts;
        size_t n_hosts;                 /* 0..DEFINITION_LOAD_HOSTS_MAX, hosts unique */
};

struct definition_cell {
        char *name;
        bool has_cpus;                  /* false: all CPUs online at run time */
        struct cpulist cpus;
        bool has_mems;
        struct cpulist mems;
        bool has_quota;                 /* false: unlimited */
        double cpu_quota;               /* in CPUs */
        uint64_t cpu_quota_us;          /* cpu_quota x cpu_period_us, rounded, >= 1000 */
        uint64_t cpu_period_us;         /* 1000..1000000, default 100000 */
        uint64_t cpu_burst_us;          /* 0..cpu_quota_us, default 0 */
        uint64_t memory_max;            /* bytes, 0 = sut.memory_max applies */
        struct definition_kv env;       /* overrides of sut.env */
        char **jvm_args;                /* NULL-terminated, may be empty */
        size_t n_jvm_args;
        bool unprofiled;                /* "profile": false under profile.cpu */
};

struct definition_host_checks {
        char *governor;                 /* NULL = not checked */
        enum definition_smt smt;
        enum definition_thp thp;
        enum definition_on_mismatch on_mismatch;
};

/* A pass/fail check on the report: the cell's mean of metric (or its ratio to ratio_to's) is
 * at least min and at most max (at least one of them given). */
struct definition_check {
        char *metric;                   /* one of definition_checks_metric_valid() */
        size_t cell;                    /* index into cells */
        bool has_ratio_to;
        size_t ratio_to;                /* index into cells, != cell */
        bool has_min, has_max;
        double min, max;                /* min <= max when both */
};

/* Iterations chosen by the data: the experiment stops once every comparison (each cell but the
 * baseline, each metric) is decided by a confidence sequence (basic/sequential.h). */
struct definition_stop {
        bool enabled;                   /* iterations given as {min, max} */
        unsigned min_rounds;            /* iterations.min; the max is definition.iterations */
        size_t baseline;                /* index into cells */
        const char *metrics[DEFINITION_STOP_METRICS_MAX]; /* entries of definition_stop_metrics */
        size_t n_metrics;
        double difference_pct;          /* the equivalence margin, percent */
        double level;                   /* shared by all comparisons (Bonferroni) */
};

/* CPU profiling of the SUT during the measure window (perf record -e cpu-clock -g at hz). */
struct definition_profile {
        bool cpu;                       /* default false */
        unsigned hz;                    /* 1..999, default 99; only with cpu true */
};

struct definition {
        char *name;
        char *description;              /* NULL when absent; a name's rules, at most 1024 bytes */
        unsigned iterations;            /* 1..1000, default 1 */
        /* 0..1000, default 3: after this many runs in a row failed with the same reason the
         * experiment's queued runs are cancelled; 0 = never */
        unsigned max_consecutive_failures;
        enum definition_order order;
        bool has_seed;                  /* only with order random */
        uint64_t seed;
        struct definition_sut sut;
        struct definition_load load;
        struct definition_cell *cells;  /* 1..64, names unique */
        size_t n_cells;
        struct definition_host_checks host;
        struct definition_profile profile;
        struct definition_kv labels;    /* keys by definition_kv_label_key_valid() */
        struct definition_check *checks; /* 0..DEFINITION_CHECKS_MAX */
        size_t n_checks;
        struct definition_stop stop;
        char **warnings;                /* NULL-terminated, for the experiment's record */
        size_t n_warnings;
        char *canonical;                /* compact JSON, defaults filled; parses back to itself */
        /* cells from a template: the fields above are one cell's expansion (definition_parse():
         * cell 0's; definition_parse_cell(): the cell's), the template is kept for canonical */
        struct def_template *template;
};

struct planned_run {
        size_t cell;                    /* index into definition.cells */
        unsigned iteration;             /* 0-based */
};

/* Parse and validate body (len bytes, need not be NUL-terminated) against what this host
 * offers (host_limits_read(); memory_bytes 0 = unknown, sizes then bounded by
 * DEFINITION_MEMORY_MAX only). host NULL skips the host-dependent checks (online cpus/mems,
 * host memory). On success *ret owns a definition; on failure returns -EINVAL (-EFBIG with
 * status 413 for a body over DEFINITION_BODY_MAX, -ENOMEM with status 500 "internal") with err
 * filled, *ret untouched. */
int definition_parse(const char *body, size_t len, const struct host_limits *host,
                     struct definition **ret, struct error *err);
/* As definition_parse() without the host's checks, but a definition whose cells come from a
 * template (cells[].vars) is the expansion for cell: the command, URLs and jvm_args its runs
 * use. The canonical JSON is the template's either way. */
int definition_parse_cell(const char *body, size_t len, size_t cell, struct definition **ret, struct error *err);
void definition_free(struct definition *d);
DEFINE_POINTER_CLEANUP(struct definition, definition_free)

/* Canonical JSON of d (as in d->canonical), for free(); call again after changing d (e.g.
 * setting the generated seed of a random order) to get the JSON to store. Never NULL: an
 * allocation failure aborts (basic/json-util.h). */
char *definition_format_json(const struct definition *d);

/* cells x iterations in d->order; seed is used by DEFINITION_ORDER_RANDOM only (pass d->seed
 * when has_seed, else a fresh one that you store). Deterministic for (d, seed). */
int definition_plan_runs(const struct definition *d, uint64_t seed, struct planned_run **ret,
                         size_t *n);

/* What a cell runs with (definition-cell.c). Whether its runs are profiled: profile.cpu, unless
 * the cell opted out. */
bool definition_cell_profiled(const struct definition *d, size_t cell);
/* The SUT argv of a cell: argv[0], -XX:+PreserveFramePointer (when sut.jvm and the cell is
 * profiled), the cell's jvm_args (when sut.jvm), then argv[1..].
 * NULL-terminated, free with definition_strv_free(). */
int definition_cell_argv(const struct definition *d, size_t cell, char ***ret);
/* The SUT environment of a cell as "KEY=VALUE" strings: sut.env with the cell's env on top,
 * sorted by key. NULL-terminated. */
int definition_cell_env(const struct definition *d, size_t cell, char ***ret);
/* The cell's memory_max, else sut.memory_max; 0 = none. */
uint64_t definition_cell_memory_max(const struct definition *d, size_t cell);

/* One load host's part of a load spread over hosts (definition-split.c). */
struct definition_host_load {
        double rate;            /* mode RATE: rate x share / sum of shares; else 0 */
        int64_t phase_ns;       /* arrival uniform: its schedule starts this late, in [0, 1e9 / rate) */
        uint64_t seed;          /* arrival poisson: its own, distinct per host, 1..DEFINITION_SEED_MAX */
};
/* Each of l->n_hosts hosts' part into ret[n_hosts], seeds derived from seed. *ret_even: the
 * hosts together send the definition's schedule (always, but for uniform arrivals whose shares
 * do not tile evenly spaced slots: definition-split.c says which do and what the others get). */
int definition_load_split(const struct definition_load *l, uint64_t seed, struct definition_host_load *ret,
                          bool *ret_even);

void definition_strv_free(char **l);
DEFINE_POINTER_CLEANUP(char *, definition_strv_free)

/* The JSON name of an order (definition-names.c). */
const char *definition_names_order(enum definition_order o);

/* A label key: 1 to DEFINITION_LABEL_KEY_MAX bytes of [a-z0-9_.-] (also the rule of the
 * ?label=key=value filter; definition-kv.c). */
bool definition_kv_label_key_valid(const char *key);
/* The run metrics a check may name (flattened as the report shows them, "latency_us.scheduled.p99";
 * definition-checks.c). */
bool definition_checks_metric_valid(const char *metric);
/* The metrics stop may name (NULL-terminated; definition-stop.c). */
extern const char *const definition_stop_metrics[];
/* d's stop as the statistics take it (d->stop.enabled). */
void definition_stop_plan(const struct definition *d, struct sequential_plan *ret);
extern const char *const definition_checks_metrics[];
