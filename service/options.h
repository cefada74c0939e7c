/* options.h: slicelabd's settings from the command line and the config file. The config file's
 * keys are the long flag names ("listen = 127.0.0.1:7878"); flags override it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/cpulist.h"

#define DEFAULT_LISTEN "127.0.0.1:7878"
#define DEFAULT_STATE_DIR "/var/lib/slicelab"
#define DEFAULT_CONFIG SLICELAB_SYSCONFDIR "/slicelab/slicelabd.conf"
#define DEFAULT_CGROUP_ROOT "slicelab"
#define DEFAULT_MAX_STREAMS 128
/* Queued runs of all experiments: one POST may plan 64 cells x 1000 iterations, and a queue
 * without a bound is disk and scheduler time nobody asked for on a shared host. */
#define DEFAULT_QUEUE_MAX 10000
#define DEFAULT_SOCKET_MODE 0660
#define DEFAULT_RUN_AS "slicelab"
#define DEFAULT_IMPORT_MAX (UINT64_C(1) << 30)

struct options {
        char *listen;
        char *state_dir;
        char *config;           /* the file that was read, or NULL */
        char *cgroup_root;
        unsigned max_parallel;
        char *run_as;           /* user children run as (default slicelab, sysusers.d) */
        bool allow_root_sut;    /* a run_as of uid 0 is refused without it */
        char **allow_exec;      /* NULL-terminated absolute paths; none = any executable */
        size_t n_allow_exec;
        char **allow_jvm_option;/* NULL-terminated option prefixes allowed despite the policy */
        size_t n_allow_jvm_option;
        int log_level;
        unsigned max_streams;   /* CSV/NDJSON streams served at once, 503 beyond */
        unsigned queue_max;     /* queued runs of all experiments, 429 queue_full beyond */
        char *tls_cert;         /* PEM files for HTTPS, both or neither */
        char *tls_key;
        unsigned socket_mode;   /* a unix socket's permission bits */
        char *socket_group;     /* a unix socket's group, or NULL: the daemon's */
        char *peer_url_template;/* "http://{host}:7878": how to reach a peer's daemon, or NULL */
        char **peer_allow;      /* NULL-terminated fnmatch(3) patterns of lab hosts (peers) */
        size_t n_peer_allow;
        char *peer_token_file;  /* the token sent to peers; the path only, read at start */
        char *perf;             /* the perf binary of profile.cpu, or NULL: perf on PATH, looked up each time */
        bool has_housekeeping;  /* --housekeeping-cpus given; else the CPUs runs leave over */
        struct cpulist housekeeping;
        bool results_only;      /* no runs: serve and take imported results only */
        uint64_t import_max;    /* the largest bundle POST /v1/imports takes */
};

/* Returns 1 to run, 0 when --help/--version was answered, or -EINVAL after printing the
 * reason and usage to stderr (the caller exits 2). */
int options_parse(int argc, char **argv, struct options *ret);
void options_done(struct options *o);
