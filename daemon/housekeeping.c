/* housekeeping.c: confining the daemon's threads. */
#include "daemon/housekeeping.h"

#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>

#include "basic/macro.h"

void housekeeping_choose(const struct cpulist *online, const struct cpulist *used, struct cpulist *ret,
                         bool *ret_none_left) {
        struct cpulist left = { 0 };
        for (int cpu = cpulist_next(online, -1); cpu >= 0; cpu = cpulist_next(online, cpu))
                if (!cpulist_test(used, (unsigned) cpu))
                        cpulist_set(&left, (unsigned) cpu);
        *ret_none_left = cpulist_count(&left) == 0;
        *ret = *ret_none_left ? *online : left;
}

int housekeeping_apply(const struct cpulist *cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int cpu = cpulist_next(cpus, -1); cpu >= 0 && cpu < CPU_SETSIZE; cpu = cpulist_next(cpus, cpu))
                CPU_SET(cpu, &set);
        if (CPU_COUNT(&set) == 0)
                return -EINVAL;
        _cleanup_(closedirp) DIR *d = opendir("/proc/self/task");
        if (!d)
                return negative_errno();
        int result = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long tid = strtol(de->d_name, &end, 10);
                if (*end || tid <= 0)
                        continue;
                if (sched_setaffinity((pid_t) tid, sizeof set, &set) < 0 && errno != ESRCH && result == 0)
                        result = negative_errno();
        }
        return result;
}
