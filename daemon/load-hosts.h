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
 * before any load was started, else "load_failed") and a message naming the host. */
#pragma once


#define LOAD_HOSTS_CLOCK_SAMPLES 8
#define LOAD_HOSTS_LEASE_S 10
#define LOAD_HOSTS_CLOCK_ERROR_WARN_NS 1000000   /* 1 ms */
