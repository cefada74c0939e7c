/* load.h: a run's load behind one table of operations, as cgroup/ has for its drivers. The run
 * (run.c) calls them and hears back through struct load_events; which kind runs is decided once,
 * by load_new() from the definition:
 *   none      load.kind "none": the SUT is the measurement, its clean exit the load's end (load.c)
 *   local     slicelab-inject or the external command in the run's load slice (load-local.c)
 *   capacity  load.mode "capacity": one injector per step against the same SUT (capacity-steps.c)
 *   hosts     load.hosts: the peers' loads, driven from a thread of its own (load-hosts.c)
 * The load decides when warmup and measure begin (load_events.warmup, .measure): a timer after
 * its start, the instant the hosts' schedules start at, or the search's first step; the run
 * takes its baselines when it is told. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

struct cJSON;
struct cgroup_run;
struct child;
struct collect_input;
struct db_conn;
struct definition;
struct peer_config;
struct samples;

/* What the run is told: from the load's own sources on the loop, or from within the call that
 * causes it (start sends started and measure at once; a load without a preflight of its own
 * sends prepared from load_prepare()). */
struct load_events {
        /* Its preflight passed: the run makes its slices and starts the SUT. */
        void (*prepared)(void *userdata);
        /* It (or a step of it) runs: the run's deadline counts from now. */
        void (*started)(void *userdata);
        /* Warmup began; message for the transition, or NULL. */
        void (*warmup)(void *userdata, const char *message);
        /* Measure began: the run's figures count from now. */
        void (*measure)(void *userdata, const char *message);
        /* It is over: 0, the run collects; negative, the run fails with reason and message. */
        void (*finished)(void *userdata, int result, const char *reason, const char *message);
        /* A warning for the run's warnings. */
        void (*warn)(void *userdata, const char *message);
};

/* What a load knows of its run: owned by the run, unchanged but cg while the load lives. */
struct load_run {
        sd_event *event;
        const struct definition *def;
        const char *id, *experiment_id;
        const char *dir;                /* the run directory */
        const char *injector_path;      /* slicelab-inject */
        struct db_conn *db;             /* the loop's connection */
        const struct peer_config *peers;
        struct cgroup_run *cg;          /* the run's slices: NULL until after prepared */
        bool set_user;                  /* --run-as */
        uid_t uid;
        gid_t gid;
        const struct samples *series;   /* the run's 1 s samples, growing: the JIT for auto warmup */
        const struct load_events *events;
        void *userdata;
};

struct load;

struct load_ops {
        const char *name;
        bool slice;                     /* has a load slice, recorded with the run */
        int (*new)(const struct load_run *run, struct load **ret);
        /* In the run's preflight; prepared follows; -errno with why. NULL: prepared at once. */
        int (*prepare)(struct load *l, char *why, size_t why_size);
        /* The SUT is ready: start; -errno with why when it could not. */
        int (*start)(struct load *l, char *why, size_t why_size);
        /* The run ends: end what runs outside its slices (the slices' kill ends the rest); a
         * busy load still sends finished. NULL: nothing to do. */
        void (*stop)(struct load *l);
        /* Whether the run's end must wait for finished. NULL: never. */
        bool (*busy)(const struct load *l);
        /* Daemon shutdown: wait for what busy() waits for, here; finished is not sent. */
        void (*wait)(struct load *l);
        /* The run's slices were killed: its processes reaped, its timers dropped. */
        void (*reap)(struct load *l);
        /* The SUT exited 0 after readiness: whether that is the load's end (then finished
         * follows). NULL: it is not. */
        bool (*sut_exited)(struct load *l);
        /* Where it was, for a SUT that died meanwhile. NULL: the run's state says it. */
        void (*describe)(const struct load *l, char *buf, size_t size);
        /* Its process in the load slice, for the exits and the orphan reaping. NULL: none. */
        const struct child *(*child)(const struct load *l);
        /* Its part of what collection reads (collect.h), once finished. NULL: none. */
        void (*collect)(struct load *l, struct collect_input *in);
        /* Its part of the run's metrics (collected): metrics.capacity, metrics.load.hosts. */
        void (*metrics)(const struct load *l, struct cJSON *metrics);
        void (*free)(struct load *l);
};

/* The common head of every load; an implementation's state follows it. */
struct load {
        const struct load_ops *ops;
        const struct load_run *run;
};

/* The kinds (load.c picks one): no load (load.c), local (load-local.c), the capacity steps
 * (capacity-steps.c), the load hosts (load-hosts.c). */
extern const struct load_ops load_none_ops, load_local_ops, load_capacity_ops, load_hosts_ops;

/* The run's load as its definition asks; run must outlive it. */
int load_new(const struct load_run *run, struct load **ret);
struct load *load_free(struct load *l);

int load_prepare(struct load *l, char *why, size_t why_size);
int load_start(struct load *l, char *why, size_t why_size);
void load_stop(struct load *l);
bool load_busy(const struct load *l);
void load_wait(struct load *l);
void load_reap(struct load *l);
bool load_sut_exited(struct load *l);
/* false when the load has nothing to say (buf untouched). */
bool load_describe(const struct load *l, char *buf, size_t size);
/* The load's process: 0 when none runs. */
pid_t load_pid(const struct load *l);
/* Its process's exit as child_exit_json() writes it: null without one. */
struct cJSON *load_exit_json(const struct load *l);
void load_collect(struct load *l, struct collect_input *in);
void load_metrics(const struct load *l, struct cJSON *metrics);
bool load_has_slice(const struct load *l);
