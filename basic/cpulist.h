/* cpulist.h: Linux cpulist strings ("0-3,8,10-11") as fixed-size bitmaps, for cpusets, mems,
 * host validation and disjointness checks between runs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPULIST_MAX 1024

struct cpulist {
        uint64_t bits[CPULIST_MAX / 64];
};

/* Strict parse: digits, ',' and 'a-b' with a <= b < CPULIST_MAX; no spaces, no empty items.
 * Returns -EINVAL (or -ERANGE for a CPU number >= CPULIST_MAX); *ret untouched on failure. */
int cpulist_parse(const char *s, struct cpulist *ret);
/* Canonical form ("0-3,8"); "" for the empty set. Returns -ENOBUFS if it does not fit. */
int cpulist_format(const struct cpulist *c, char *buf, size_t size);
/* Read a sysfs cpulist file such as /sys/devices/system/cpu/online. */
int cpulist_read_file(const char *path, struct cpulist *ret);
/* The CPUs online now (/sys/devices/system/cpu/online): the one place that path is read, so
 * every "all CPUs" of a run, a preflight check or the host limits is the same set. */
int cpulist_read_online(struct cpulist *ret);

void cpulist_set(struct cpulist *c, unsigned cpu);
bool cpulist_test(const struct cpulist *c, unsigned cpu);
unsigned cpulist_count(const struct cpulist *c);
bool cpulist_is_subset(const struct cpulist *sub, const struct cpulist *of);
bool cpulist_intersects(const struct cpulist *a, const struct cpulist *b);
void cpulist_union(struct cpulist *into, const struct cpulist *other);
/* Lowest CPU in the set, or -1 when empty; iterate with cpulist_next(c, prev). */
int cpulist_next(const struct cpulist *c, int prev);
