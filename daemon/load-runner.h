/* load-runner.h: loads this daemon runs for another host's experiment (issue 25), on the event
 * loop, the way daemon/run.c runs a run's injector: each in its own slice <root>/load-<id>/load
 * on the CPUs the coordinator asked for, as the --run-as user, watched through its pidfd, its
 * files in <state-dir>/runs/load-<id>/. A load lives only while its coordinator renews the lease
 * (POST /v1/loads/{id}/lease): when the lease lapses the slice is killed and the load ends
 * expired, within the lease. DELETE ends it cancelled; a daemon that stops ends it interrupted;
 * one that dies (kill -9, a crash) takes its injectors with it (their parent-death signal, see
 * child.h), and one that starts marks what a previous one left interrupted and removes its
 * slices.
 *
 * The scheduler owns the runner: a load never starts on CPUs a run in progress uses (it fails
 * cpus_busy), and a run never starts on CPUs a load holds (scheduler.c waits). */
#pragma once

#include "basic/cpulist.h"
#include "daemon/run.h"

struct load_runner;

/* changed(userdata) is called (from the loop) whenever a load ended: CPUs may be free again. */
int load_runner_new(const struct run_context *ctx, void (*changed)(void *userdata), void *userdata,
                    struct load_runner **ret);
/* At start: unfinished loads of a previous daemon become interrupted, their slices removed. */
int load_runner_recover(struct load_runner *lr);
/* Act on the store: cancels asked for, then queued loads started, unless their CPUs meet
 * busy (the runs in progress) or another load's. */
void load_runner_kick(struct load_runner *lr, const struct cpulist *busy);
/* The CPUs the loads in progress hold. */
void load_runner_cpus(const struct load_runner *lr, struct cpulist *ret);
size_t load_runner_active(const struct load_runner *lr);
/* Stop every load as interrupted (the daemon is stopping); synchronous. */
void load_runner_shutdown(struct load_runner *lr);
void load_runner_free(struct load_runner *lr);
