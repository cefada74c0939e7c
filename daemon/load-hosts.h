/* load-hosts.h: a run's load on its load hosts (load.hosts, issue 25), driven from a thread of its
 * own so that the peers' blocking HTTP calls (peer/peer-client.h, each bounded at 10 s) never
 * hold the event loop and its watchdog. Started in the run's preflight, the thread measures every
 * peer's clock (checked: the run goes on to start its SUT; a peer that does not answer fails
 * the run in preflight) and waits for load_hosts_go() (the SUT is ready); then it measures the
 * clocks again, picks one start
 * instant on this daemon's CLOCK_MONOTONIC (now + 2 s + the largest round trip) and posts each
 * peer its part of the load (definition_load_split()) to start at that instant in the peer's
 * own clock; then it renews the leases every 3 s and watches the loads' states every 0.5 s until
 * all have succeeded, one fails (or stops answering for longer than the lease), or the run asks
 * it to stop; every peer's load still running is then deleted. At the end it fetches the peers'
 * timelines (a failed run keeps those it can get) and merges them, shifted into this daemon's
 * clock and marked with their host, into the run directory's timeline.bin, with a summary.json
 * the daemon's collection reads as any injector's.
 *
 * The loop hears of it through an eventfd: started (the instant is known: warmup and measure
 * are timed from it), then finished (ok, or failed with a reason, "preflight" before any load was
 * started, else "load_failed", and a message naming the host). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "definition/definition.h"

struct cJSON;
struct peer_config;
struct load_hosts;

#define LOAD_HOSTS_CLOCK_SAMPLES 8
#define LOAD_HOSTS_LEASE_S 10
#define LOAD_HOSTS_CLOCK_ERROR_WARN_NS 1000000   /* 1 ms */

enum load_hosts_event {
        LOAD_HOSTS_CHECKED,      /* preflight: every peer answered for its clock */
        LOAD_HOSTS_STARTED,      /* every peer has its load; load_hosts_start_ns() is the instant */
        LOAD_HOSTS_FINISHED,     /* the thread is done: load_hosts_result() */
};

typedef void (*load_hosts_fn)(struct load_hosts *p, enum load_hosts_event ev, void *userdata);

/* Start the thread for d's load.hosts. dir: the run directory (the peers' files and the merged
 * timeline go there); run_id and d must outlive the thread (load_hosts_free()). */
int load_hosts_start(sd_event *event, const struct peer_config *peers, const struct definition *d, const char *run_id,
                    const char *dir, load_hosts_fn cb, void *userdata, struct load_hosts **ret);
/* The SUT is ready: start the loads. */
void load_hosts_go(struct load_hosts *p);
/* Ask the thread to stop the peers' loads (DELETE) and finish; returns at once. */
void load_hosts_stop(struct load_hosts *p);
/* Joins the thread (after a stop, within the bounded calls in flight). */
struct load_hosts *load_hosts_free(struct load_hosts *p);

/* After STARTED: the start instant of the schedules on this daemon's CLOCK_MONOTONIC. */
int64_t load_hosts_start_ns(const struct load_hosts *p);
/* After FINISHED: 0 when every load succeeded and the merged timeline is written; else
 * negative, *reason ("preflight", "load_failed", "cancelled") and *message set. */
int load_hosts_result(const struct load_hosts *p, const char **reason, const char **message);
/* metrics.load.hosts: per host its clock (offset_ns, rtt_ns, error_ns), its load's id and state
 * and, from its summary, requests, throughput_rps, lag_p99_us, late and saturated. */
struct cJSON *load_hosts_json(const struct load_hosts *p);
/* The warnings the clocks call for (an error bound above 1 ms), once STARTED. */
void load_hosts_clock_warnings(const struct load_hosts *p, struct cJSON *warnings);
