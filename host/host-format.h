/* host-format.h: naming sets of CPUs in messages for people ("cpu 8", "cpus 8-15"). */
#pragma once

#include <stddef.h>

#include "basic/cpulist.h"

/* Room for any set of CPULIST_MAX CPUs, the longest being alternating short ranges. */
#define HOST_CPUS_TEXT_MAX 4608

/* "cpu 8" for one CPU, "cpus 0-3,8" for more, "no cpus" for none; -ENOBUFS if it does not fit. */
int host_format_cpus(const struct cpulist *c, char *buf, size_t size);
