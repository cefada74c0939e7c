/* host-format.c: see host-format.h. */
#include "host/host-format.h"

#include <errno.h>
#include <stdio.h>

int host_format_cpus(const struct cpulist *c, char *buf, size_t size) {
        unsigned n = cpulist_count(c);
        const char *prefix = n == 1 ? "cpu " : "cpus ";
        if (n == 0) {
                int k = snprintf(buf, size, "no cpus");
                return k < 0 || (size_t) k >= size ? -ENOBUFS : 0;
        }
        int k = snprintf(buf, size, "%s", prefix);
        if (k < 0 || (size_t) k >= size)
                return -ENOBUFS;
        return cpulist_format(c, buf + k, size - (size_t) k);
}
