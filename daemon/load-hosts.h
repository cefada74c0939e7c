/* load-hosts.h: a run's load on its load hosts (load.hosts, issue 25), driven from a thread of its
 * own so that the peers' blocking HTTP calls (peer/peer-client.h, each bounded at 10 s) never
 * hold the event loop and its watchdog. Started in the run's preflight, the thread measures every
 * peer's clock (checked: the run goes on to start its SUT; a peer that does not answer fails
 * the run in preflight) and waits for the go (the SUT is ready); then it measures the
 * clocks again, picks one start
 * instant on this daemon's CLOCK_MONOTONIC (now + 2 s + the largest round trip) and posts each
 * peer its part of the load (definition_load_split()) to start at that instant in the peer's
 * own clock (the body is definition_peer_load_body()'s); then it renews the leases every 3 s and
 * watches the loads' states every 0.5 s until all have succeeded, one fails (or stops answering
 * for longer than the lease), or the run asks it to stop; every peer's load still running is
 * then deleted, and a failed run's partial timelines fetched for a look. The thread talks to the
 * peers only: a run that succeeded has its hosts' timelines fetched, merged and summarised by
 * its collection (collect-hosts.h), from what the load hands it.
 *
 * It is the run's load (load_hosts_ops, load.h): prepare starts the thread (daemon/loop-thread.h),
 * prepared follows the clocks' check, start is the go, warmup and measure are timed from the
 * instant the schedules start at, and finished says ok, or failed with a reason ("preflight"
 * before any load was started, else "load_failed") and a message naming the host.
 *
 * A capacity search on the load hosts (load.mode "capacity", capacity-steps.c) drives the same
 * thread step by step: after the same preflight and go, each step is one load on every host,
 * the step's rate split by share (definition_load_split()) in mode rate with the step's warmup
 * and measure, every host starting at one instant as above; its timelines are fetched and
 * merged on the thread into the step's files (timeline-step-N.bin, summary-step-N.json,
 * collect-hosts.h), which the search judges as a local step's, and the hosts' figures of the
 * step are kept with it. A host that fails ends the thread (finished, "load_failed", naming
 * it). */
#pragma once

struct cJSON;
struct load;
struct load_run;


#define LOAD_HOSTS_CLOCK_SAMPLES 8
#define LOAD_HOSTS_LEASE_S 10
#define LOAD_HOSTS_CLOCK_ERROR_WARN_NS 1000000   /* 1 ms */

/* A capacity step's files are written (on the loop). */
typedef void (*load_hosts_step_fn)(void *userdata);

/* The hosts' load of a capacity search, driven through load.h's calls (prepare, stop, busy,
 * wait, reap, free) and these; *ret untouched on failure. */
int load_hosts_steps_new(const struct load_run *run, load_hosts_step_fn step_done, void *userdata, struct load **ret);
/* The search's step at rate: posted to every host at one instant (step 0's warmup longer by
 * the search's); started is sent now, step_done once its files are written. */
void load_hosts_step(struct load *l, unsigned step, double rate);
/* The search is over: the thread returns and finished (0) follows. */
void load_hosts_steps_end(struct load *l);
/* metrics.load.hosts' items for the load (or step) that ran last: per host its clock, its load's
 * id and state and its injector's figures. */
struct cJSON *load_hosts_json(const struct load *l);
