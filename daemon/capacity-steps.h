/* capacity-steps.h: a capacity search's steps within one run (load.mode "capacity"): which rate
 * comes next (basic/capacity-search), each step's injector started at it, each step judged
 * (capacity.h), stored and recorded, and at the end the step at max_rps kept as the run's
 * timeline and summary. The run (run.c) keeps its state machine, its processes and its timers:
 * the search starts a step's load through the run's spawn_load and hears of its exit from
 * capacity_steps_next(). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/capacity-search.h"
#include "definition/definition.h"

struct cJSON;
struct db_conn;

/* What the search needs of its run; everything outlives the search. */
struct capacity_steps_run {
        const struct definition *def;
        const char *dir;                /* the run directory */
        const char *injector_path;
        struct db_conn *db;
        const char *id, *experiment_id;
        /* Start argv as the run's load (its slice, its load.log, its deadline); -errno. */
        int (*spawn_load)(void *userdata, char **argv, char **env);
        /* A warning for the run's warnings. */
        void (*warn)(void *userdata, const char *message);
        void *userdata;
};

struct capacity_steps {
        struct capacity_steps_run run;
        struct capacity_search search;
        double rate;                    /* the current step's */
        struct cJSON *steps;            /* each judged step's data with step, rate, met */
        int best_step;                  /* the step at max_rps, or -1 */
};

/* The search over the definition's rates, at its first step; what the run's measuring
 * transition says goes to message. */
void capacity_steps_init(struct capacity_steps *cs, const struct capacity_steps_run *run, char *message,
                         size_t message_size);
void capacity_steps_done(struct capacity_steps *cs);

/* Start the current step's injector; -errno with why. */
int capacity_steps_start(struct capacity_steps *cs, char *why, size_t why_size);
/* The current step's injector exited 0: judge, store and record the step, then start the next
 * (1) or end the search (0: the step at max_rps is the run's timeline and summary); -errno with
 * why when the step left nothing to judge or the next could not start. */
int capacity_steps_next(struct capacity_steps *cs, char *why, size_t why_size);

/* Where the search was, for the message of a SUT that died during it. */
void capacity_steps_describe_stop(const struct capacity_steps *cs, char *buf, size_t size);
/* The run's metrics.capacity (capacity_metrics() of the steps so far). */
struct cJSON *capacity_steps_metrics(const struct capacity_steps *cs);
