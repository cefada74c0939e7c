/* host-info.h: the host as GET /v1/host shows it: CPUs and topology (sockets, cores, SMT,
 * NUMA), cpufreq per CPU (governor, frequencies; null with a reason where not exposed), boost,
 * THP, kernel, CPU model, memory and swap, java, and warnings. Read from sysfs/procfs under a
 * root prefix ("" for the real host, a fixture tree in tests). Thread-safe; the java probe is
 * cached (see host-java.h), the rest is read on every call.
 *
 * Shape (keys always present; where a value is null its reason is beside it: "<key>_reason",
 * or per CPU one "cpufreq_reason" for governor, driver and frequencies):
 * {"cpus_online": "0-15", "cpu_count": 16,
 *  "topology": {"sockets": 2, "cores": 8, "threads_per_core": 2,
 *               "smt": {"active": true, "control": "on"},
 *               "numa_nodes": [{"node": 0, "cpus": "0-3,8-11"}, ...]},
 *  "cpus": [{"cpu": 0, "socket": 0, "core": 0, "node": 0, "thread_siblings": "0,8",
 *            "governor": "performance", "driver": "intel_pstate",
 *            "freq_mhz": 2400.0, "min_mhz": 800.0, "max_mhz": 3500.0}, ...],
 *  "cpufreq": {"exposed_cpus": "0-15", "boost": true, "boost_source": "intel_pstate/no_turbo"},
 *  "thp": {"enabled": "always", "defrag": "madvise"},
 *  "kernel": {"release": "6.1.0-18-amd64", "version": "#1 SMP ...", "machine": "x86_64"},
 *  "cpu_model": "...",
 *  "memory": {"total_bytes": N, "swap_total_bytes": N, "swap_used_bytes": N},
 *  "java": {"path": "/usr/bin/java", "version": "17.0.15", "description": "openjdk version ..."},
 *  "warnings": ["governor is powersave on cpus 8-15", ...]}
 * "java" is null (with "java_reason") when no java is on PATH; its "version" is null (with
 * "version_reason") when `java -version` failed. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

struct host_info_options {
        bool skip_java;         /* tests on fixture trees need no JVM */
};

int host_info_json(const char *root, const struct host_info_options *opts, cJSON **ret);
