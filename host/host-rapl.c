/* host-rapl.c: RAPL energy counters from powercap sysfs (see host-rapl.h). */
#include "host/host-rapl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-sysfs.h"

#define POWERCAP "/sys/class/powercap"

static int compare_domains(const void *a, const void *b) {
        return strcmp(((const struct host_rapl_domain *) a)->dir, ((const struct host_rapl_domain *) b)->dir);
}

/* "intel-rapl:N" or "intel-rapl:N:M"; the bare "intel-rapl" is the control type, not a domain. */
static bool domain_dir(const char *name, bool *ret_package) {
        const char *p = name + strlen("intel-rapl:");
        if (strncmp(name, "intel-rapl:", strlen("intel-rapl:")) != 0 || !*p)
                return false;
        *ret_package = strchr(p, ':') == NULL;
        return true;
}

int host_rapl_open(const char *root, struct host_rapl *ret) {
        struct host_rapl r = { .n = 0 };
        char path[4096];
        if (snprintf(r.root, sizeof r.root, "%s", root) >= (int) sizeof r.root)
                return -ENAMETOOLONG;
        int e = host_path(path, sizeof path, root, POWERCAP);
        if (e < 0)
                return e;
        DIR *d = opendir(path);
        if (!d)
                return -ENODEV;
        struct dirent *de;
        while ((de = readdir(d)) && r.n < HOST_RAPL_DOMAINS_MAX) {
                struct host_rapl_domain *dom = &r.d[r.n];
                uint64_t uj;
                if (!domain_dir(de->d_name, &dom->package) ||
                    snprintf(dom->dir, sizeof dom->dir, "%s", de->d_name) >= (int) sizeof dom->dir ||
                    host_read_u64(root, &uj, POWERCAP "/%s/energy_uj", dom->dir) < 0)
                        continue;
                if (host_read_line(root, dom->name, sizeof dom->name, POWERCAP "/%s/name", dom->dir) < 0)
                        memcpy(dom->name, dom->dir, sizeof dom->name); /* both 32 bytes, dir terminated */
                if (host_read_u64(root, &dom->max_range_uj, POWERCAP "/%s/max_energy_range_uj", dom->dir) < 0)
                        dom->max_range_uj = 0;
                r.n++;
        }
        closedir(d);
        if (r.n == 0)
                return -ENODEV;
        qsort(r.d, r.n, sizeof r.d[0], compare_domains);
        *ret = r;
        return 0;
}

int host_rapl_read(const struct host_rapl *r, uint64_t uj[HOST_RAPL_DOMAINS_MAX]) {
        uint64_t v[HOST_RAPL_DOMAINS_MAX];
        for (size_t i = 0; i < r->n; i++)
                if (host_read_u64(r->root, &v[i], POWERCAP "/%s/energy_uj", r->d[i].dir) < 0)
                        return -EIO;
        memcpy(uj, v, r->n * sizeof v[0]);
        return 0;
}

uint64_t host_rapl_delta(uint64_t before, uint64_t after, uint64_t max_range_uj) {
        if (after >= before)
                return after - before;
        if (max_range_uj == 0 || before > max_range_uj)
                return 0;
        /* the counter ran from before up to max_range_uj, wrapped to 0 and went on to after */
        return max_range_uj - before + after;
}
