/* host-limits.h: what this host offers a slice (online CPUs and memory nodes, total memory), and
 * the check of a slice's limits against it that the API applies before a run is queued. */
#pragma once

#include <stdint.h>

#include "cgroup.h"
#include "cpulist.h"
#include "error.h"

struct host_limits {
        struct cpulist cpus;   /* /sys/devices/system/cpu/online */
        struct cpulist mems;   /* /sys/devices/system/node/online, or node 0 without NUMA sysfs */
        uint64_t memory_bytes; /* MemTotal of /proc/meminfo */
};

int host_limits_read(struct host_limits *ret);
/* MemTotal in bytes from the text of /proc/meminfo; -EBADMSG if absent or malformed. */
int host_limits_parse_meminfo(const char *text, uint64_t *ret);

#define CPU_PERIOD_MIN_US 1000
#define CPU_PERIOD_MAX_US 1000000
#define CPU_QUOTA_MIN_US 1000
#define PIDS_MAX_LIMIT 4194304

/* Checks l against h: cpus and mems online; period 1 ms..1 s; quota at least 1 ms per period
 * and at most the cpuset's size (all online CPUs when cpus is empty); burst only with a quota
 * and at most the quota; memory_max at most the host's memory; pids_max at most 4194304.
 * On failure fills err (400, "invalid_field", "<prefix>.<field>", a message naming the rule) and
 * returns -EINVAL. prefix is the JSON path of the object, e.g. "cells[1]" (may be ""). */
int slice_limits_check(const struct slice_limits *l, const struct host_limits *h, const char *prefix,
                       struct error *err);
