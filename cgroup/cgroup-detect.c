/* cgroup-detect.c: which cgroup layout this host runs (v2, hybrid, v1), by the filesystem magic
 * of /sys/fs/cgroup, and which driver serves it. */
#include <linux/magic.h>
#include <sys/statfs.h>

#include "cgroup/cgroup-internal.h"

#define CGROUP_MOUNT "/sys/fs/cgroup"

static int fs_magic(const char *path, long *ret) {
        struct statfs s;
        if (statfs(path, &s) < 0)
                return negative_errno();
        *ret = (long) s.f_type;
        return 0;
}

int cgroup_detect(struct cgroup_mode *ret) {
        long magic;
        int r = fs_magic(CGROUP_MOUNT, &magic);
        if (r < 0)
                return r;
        if (magic == CGROUP2_SUPER_MAGIC) {
                *ret = (struct cgroup_mode){ .version = CGROUP_V2, .name = "v2",
                                             .driver = "v2-cgroupfs", .mount = CGROUP_MOUNT };
                return 0;
        }
        if (magic != TMPFS_MAGIC)
                return -ENOMEDIUM;
        /* A tmpfs of v1 hierarchies; systemd's hybrid layout adds a cgroup2 at unified/. Its
         * controllers stay on v1, so hybrid uses the v1 driver. */
        long cpu_magic;
        if (fs_magic(CGROUP_MOUNT "/cpu", &cpu_magic) < 0 || cpu_magic != CGROUP_SUPER_MAGIC) {
                r = fs_magic(CGROUP_MOUNT "/cpu,cpuacct", &cpu_magic);
                if (r < 0 || cpu_magic != CGROUP_SUPER_MAGIC)
                        return -ENOMEDIUM;
        }
        long unified;
        bool hybrid = fs_magic(CGROUP_MOUNT "/unified", &unified) >= 0 && unified == CGROUP2_SUPER_MAGIC;
        *ret = (struct cgroup_mode){ .version = hybrid ? CGROUP_HYBRID : CGROUP_V1,
                                     .name = hybrid ? "hybrid" : "v1",
                                     .driver = "v1-libcgroup", .mount = CGROUP_MOUNT };
        return 0;
}

const char *slice_kind_to_string(enum slice_kind k) {
        static const char *const names[_SLICE_KIND_MAX] = { [SLICE_SUT] = "sut", [SLICE_LOAD] = "load" };
        return (unsigned) k < _SLICE_KIND_MAX ? names[k] : NULL;
}
