/* host-limits.c: the host's online CPUs, memory nodes and memory. */
#include "basic/host-limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/macro.h"

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
        int r = cpulist_read_online(&h.cpus);
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
