/* load-hosts.h: a run's load hosts (metrics.load.hosts) as a person reads them: `slicelab run`'s
 * table of each host's clock, rate, lag and late requests, and `slicelab report`'s line on the
 * cells that ran with load hosts and the hosts that fell behind. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

/* A host fell behind its schedule as the injector finding judges a run: saturated, or its lag
 * p99 above 1 ms. */
bool load_host_fell_behind(const cJSON *host);
/* "load hosts:" and one row per host of hosts (metrics.load.hosts); nothing when there are none. */
void load_hosts_print_table(const cJSON *hosts);
/* From an experiment's runs (GET /v1/experiments/{id}/runs, each then read whole): which
 * cells ran with load hosts, and each host that fell behind, in which runs; nothing when no run
 * had load hosts. */
struct http;
void load_hosts_print_summary(struct http *h, const cJSON *runs);
