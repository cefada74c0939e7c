/* host-limits.h: what this host offers a slice (online CPUs and memory nodes, total memory), read
 * by the daemon at start and held by the definition's validation. */
#pragma once

#include <stdint.h>

#include "basic/cpulist.h"

struct host_limits {
        struct cpulist cpus;   /* /sys/devices/system/cpu/online */
        struct cpulist mems;   /* /sys/devices/system/node/online, or node 0 without NUMA sysfs */
        uint64_t memory_bytes; /* MemTotal of /proc/meminfo */
};

int host_limits_read(struct host_limits *ret);
/* MemTotal in bytes from the text of /proc/meminfo; -EBADMSG if absent or malformed. */
int host_limits_parse_meminfo(const char *text, uint64_t *ret);
