/* host-limits.c: the host's online CPUs, memory nodes and memory, and the validation of slice
 * limits against them. */
#include "host-limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"

int host_limits_parse_meminfo(const char *text, uint64_t *ret) {
        const char *p = strstr(text, "MemTotal:");
        if (!p || (p != text && p[-1] != '\n'))
                return -EBADMSG;
        unsigned long long kb;
        char unit[4];
        if (sscanf(p, "MemTotal: %llu %3s", &kb, unit) != 2 || strcmp(unit, "kB") != 0 ||
            kb > UINT64_MAX / 1024)
                return -EBADMSG;
        *ret = (uint64_t) kb * 1024;
        return 0;
}

int host_limits_read(struct host_limits *ret) {
        struct host_limits h = { 0 };
        int r = cpulist_read_file("/sys/devices/system/cpu/online", &h.cpus);
        if (r < 0)
                return r;
        r = cpulist_read_file("/sys/devices/system/node/online", &h.mems);
        if (r == -ENOENT) /* kernels without NUMA have node 0 only */
                cpulist_set(&h.mems, 0);
        else if (r < 0)
                return r;
        _cleanup_free_ char *meminfo = NULL;
        r = read_file_bounded("/proc/meminfo", 1 << 16, &meminfo, NULL);
        if (r >= 0)
                r = host_limits_parse_meminfo(meminfo, &h.memory_bytes);
        if (r < 0)
                return r;
        *ret = h;
        return 0;
}

static int fail(struct error *err, const char *prefix, const char *field, const char *msg) {
        char path[128];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", field);
        return error_set(err, 400, "invalid_field", path, "%s", msg);
}

static int check_subset(const struct cpulist *want, const struct cpulist *online, const char *what,
                        const char *prefix, const char *field, struct error *err) {
        if (cpulist_is_subset(want, online))
                return 0;
        struct cpulist extra = { 0 };
        for (int c = cpulist_next(want, -1); c >= 0; c = cpulist_next(want, c))
                if (!cpulist_test(online, (unsigned) c))
                        cpulist_set(&extra, (unsigned) c);
        char e[256], o[256], msg[600];
        if (cpulist_format(&extra, e, sizeof e) < 0)
                snprintf(e, sizeof e, "(many)");
        if (cpulist_format(online, o, sizeof o) < 0)
                snprintf(o, sizeof o, "(many)");
        snprintf(msg, sizeof msg, "%s %s not online (online: %s)", what, e, o);
        return fail(err, prefix, field, msg);
}

int slice_limits_check(const struct slice_limits *l, const struct host_limits *h, const char *prefix,
                       struct error *err) {
        char msg[256];
        if (!prefix)
                prefix = "";
        int r = check_subset(&l->cpus, &h->cpus, "cpus", prefix, "cpus", err);
        if (r < 0)
                return r;
        if (l->has_mems) {
                if (cpulist_count(&l->mems) == 0)
                        return fail(err, prefix, "mems", "mems must name at least one memory node");
                r = check_subset(&l->mems, &h->mems, "memory nodes", prefix, "mems", err);
                if (r < 0)
                        return r;
        }
        uint64_t period = l->cpu_period_us ? l->cpu_period_us : SLICE_CPU_PERIOD_DEFAULT_US;
        if (period < CPU_PERIOD_MIN_US || period > CPU_PERIOD_MAX_US)
                return fail(err, prefix, "cpu_period_us", "cpu_period_us must be within 1000..1000000");
        if (!isfinite(l->cpu_quota) || l->cpu_quota < 0)
                return fail(err, prefix, "cpu_quota", "cpu_quota must be a positive number of CPUs");
        unsigned ncpus = cpulist_count(cpulist_count(&l->cpus) ? &l->cpus : &h->cpus);
        double quota_us = l->cpu_quota * (double) period;
        if (l->cpu_quota > 0) {
                if (quota_us < CPU_QUOTA_MIN_US) {
                        snprintf(msg, sizeof msg, "cpu_quota %g x period %llu us is below 1 ms per period",
                                 l->cpu_quota, (unsigned long long) period);
                        return fail(err, prefix, "cpu_quota", msg);
                }
                if (l->cpu_quota > (double) ncpus) {
                        snprintf(msg, sizeof msg, "cpu_quota %g exceeds the %u CPUs of the cpuset",
                                 l->cpu_quota, ncpus);
                        return fail(err, prefix, "cpu_quota", msg);
                }
        }
        if (l->cpu_burst_us) {
                if (l->cpu_quota <= 0)
                        return fail(err, prefix, "cpu_burst_us", "cpu_burst_us needs a cpu_quota");
                if ((double) l->cpu_burst_us > quota_us)
                        return fail(err, prefix, "cpu_burst_us", "cpu_burst_us must not exceed the quota per period");
        }
        if (l->memory_max > h->memory_bytes) {
                snprintf(msg, sizeof msg, "memory_max %llu exceeds the host's %llu bytes",
                         (unsigned long long) l->memory_max, (unsigned long long) h->memory_bytes);
                return fail(err, prefix, "memory_max", msg);
        }
        if (l->pids_max > PIDS_MAX_LIMIT)
                return fail(err, prefix, "pids_max", "pids_max must be at most 4194304");
        return 0;
}
