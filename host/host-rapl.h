/* host-rapl.h: energy counters of Intel RAPL (and AMD's, under the same name) from powercap
 * sysfs, /sys/class/powercap/intel-rapl:N (a package) and intel-rapl:N:M (its core, uncore,
 * dram), under a root prefix ("" for the host, a fixture tree in tests). The counters are
 * microjoules that wrap at max_energy_range_uj; sampled once a second they wrap at most once
 * between readings, which host_rapl_delta() undoes. Many VMs expose none: then open fails with
 * -ENODEV and energy is unknown (null), never made up. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOST_RAPL_DOMAINS_MAX 16

struct host_rapl_domain {
        char dir[32];           /* "intel-rapl:0:1" */
        char name[32];          /* its name file: "package-0", "core", "dram", ... */
        bool package;           /* a top-level domain: the packages' sum is the host's energy */
        uint64_t max_range_uj;  /* where energy_uj wraps to 0 */
};

struct host_rapl {
        char root[256];
        size_t n;
        struct host_rapl_domain d[HOST_RAPL_DOMAINS_MAX];
};

/* The domains under root, sorted by directory name. -ENODEV when there is none (or none is
 * readable: energy_uj is root-only on current kernels), -ENAMETOOLONG for a root too long. */
int host_rapl_open(const char *root, struct host_rapl *ret);

/* One reading of every domain into uj[0..n). -EIO (uj untouched) when one cannot be read. */
int host_rapl_read(const struct host_rapl *r, uint64_t uj[HOST_RAPL_DOMAINS_MAX]);

/* after - before, undoing one wrap at max_range_uj (0 = unknown: then a decrease counts 0). */
uint64_t host_rapl_delta(uint64_t before, uint64_t after, uint64_t max_range_uj);
