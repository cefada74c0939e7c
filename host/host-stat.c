/* host-stat.c: per-CPU idle time from /proc/stat (see host-stat.h). */
#include "host/host-stat.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "host/host-sysfs.h"

/* "cpuN user nice system idle iowait irq softirq steal ..." -> N and its idle ticks; 0 when the
 * line is not a cpuN line (the "cpu" total, intr, ...), -EBADMSG when it is one but malformed. */
static int parse_cpu_line(const char *line, unsigned *ret_cpu, uint64_t *ret_ticks) {
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
                return 0;
        unsigned cpu;
        uint64_t f[8];
        if (sscanf(line, "cpu%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                   &cpu, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) != 9 || cpu >= CPULIST_MAX)
                return -EBADMSG;
        /* user nice system [idle iowait] irq softirq steal */
        *ret_cpu = cpu;
        *ret_ticks = f[3] + f[4];
        return 1;
}

int host_parse_stat_idle(const char *text, uint64_t ticks_per_s, struct host_cpu_idle *ret) {
        if (ticks_per_s == 0)
                return -EINVAL;
        _cleanup_free_ struct host_cpu_idle *b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        bool any = false;
        for (const char *line = text; line && *line;) {
                unsigned cpu;
                uint64_t ticks;
                int r = parse_cpu_line(line, &cpu, &ticks);
                if (r < 0)
                        return r;
                if (r > 0) {
                        cpulist_set(&b->cpus, cpu);
                        b->idle_ns[cpu] = ticks * ((uint64_t) NSEC_PER_SEC / ticks_per_s);
                        any = true;
                }
                const char *nl = strchr(line, '\n');
                line = nl ? nl + 1 : NULL;
        }
        if (!any)
                return -EBADMSG;
        *ret = *b;
        return 0;
}

int host_read_stat_idle(const char *root, struct host_cpu_idle *ret) {
        char path[4096];
        int r = host_path(path, sizeof path, root, "/proc/stat");
        if (r < 0)
                return r;
        _cleanup_free_ char *text = NULL;
        r = read_file_bounded(path, 4 << 20, &text, NULL);
        if (r < 0)
                return r;
        long hz = sysconf(_SC_CLK_TCK);
        return host_parse_stat_idle(text, hz > 0 ? (uint64_t) hz : 100, ret);
}
