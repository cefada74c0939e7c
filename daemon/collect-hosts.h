/* collect-hosts.h: a multi-host run's timelines (load.hosts) at its collection, on the collect
 * worker (a capacity search's steps on the load hosts' thread, each into its step's files): each
 * host's timeline fetched from its peer into load-host-N.bin of the run directory, the lot
 * merged into timeline.bin, each shifted into this daemon's clock by its clock's offset
 * and marked with its host, and a summary.json that collection reads as any injector's. A failed
 * run's hosts' thread (daemon/load-hosts.c) fetches what it can for a look, never merged. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct peer_config;

/* One of load.hosts as its load ended. */
struct collect_host {
        const char *host;
        const char *load_id;            /* the peer's load, or NULL: never posted */
        bool finished;                  /* its load reached a final state */
        int64_t offset_ns;              /* its clock minus this daemon's */
        const struct cJSON *summary;    /* its injector's summary, or NULL */
};

struct collect_hosts {
        const struct peer_config *peers;
        const struct collect_host *hosts;
        size_t n;
        int64_t start_ns;               /* the schedules' start on this daemon's CLOCK_MONOTONIC */
        unsigned warmup_s;
        const char *suffix;             /* of the files: "" for the run's, "-step-N" for a capacity step's */
};

/* Each finished host's timeline into dir/load-host-N<suffix>.bin (fetched[i] says which came). must:
 * the first that cannot be fetched fails it (-ENOTCONN, why naming the host; -errno when dir
 * cannot be opened); else those are skipped. */
int collect_hosts_fetch(const struct collect_hosts *h, const char *dir, bool must, bool *fetched, char *why,
                        size_t why_size);
/* Fetch them all, merge them into dir/timeline<suffix>.bin and write dir/summary<suffix>.json (a
 * capacity step's on the load hosts' thread, the run's on the collect worker): -ENOTCONN when a
 * host is at fault (its timeline did not come or is not one), else -errno; why says it. */
int collect_hosts_run(const struct collect_hosts *h, const char *dir, const char *run_id, char *why, size_t why_size);
