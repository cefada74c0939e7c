/* host-perf.c: the kernel's and the capabilities' side of profile.cpu (host-perf.h). */
#include "host/host-perf.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

static bool effective_capability(unsigned cap) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
        if (syscall(SYS_capget, &header, data) < 0 || cap / 32 >= _LINUX_CAPABILITY_U32S_3)
                return false;
        return data[cap / 32].effective & (UINT32_C(1) << (cap % 32));
}

static bool perfmon_capable(void) {
        return effective_capability(CAP_PERFMON) || effective_capability(CAP_SYS_ADMIN);
}

/* What perf record -e cpu-clock -g asks of the kernel, on this process: a sampling software
 * clock with kernel frames. Opened disabled and closed at once. Not perf itself: where the
 * kernel says no to kernel frames, perf falls back to user-space samples (cpu-clock:u) without
 * failing, and the profile's kernel group would read 0% for a reason nobody sees. */
static int probe_cpu_clock(void) {
        struct perf_event_attr attr = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof attr,
                .config = PERF_COUNT_SW_CPU_CLOCK,
                .sample_period = 10 * 1000 * 1000,
                .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
                .disabled = 1,
        };
        int fd = (int) syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        close(fd);
        return 0;
}

int host_perf_access(bool other_user, char *why, size_t size) {
        int r = probe_cpu_clock();
        if (r == -ENOSYS || r == -ENOENT) {
                snprintf(why, size, "this kernel has no perf events (CONFIG_PERF_EVENTS), which profile.cpu needs");
                return -ENOSYS;
        }
        if (r < 0 && r != -EACCES && r != -EPERM) {
                snprintf(why, size, "the kernel refuses the CPU clock samples profile.cpu takes: %s", strerror(-r));
                return r;
        }
        if (r < 0 && perfmon_capable()) {
                /* not the paranoid setting, which a perfmon-capable caller passes */
                snprintf(why, size, "the kernel refuses slicelabd CPU samples though it has CAP_PERFMON (%s): "
                                    "a seccomp filter or security module?", strerror(-r));
                return -EACCES;
        }
        if (r < 0) {
                _cleanup_free_ char *paranoid = NULL;
                (void) read_one_line(PARANOID_PATH, &paranoid);
                snprintf(why, size,
                         "the kernel refuses slicelabd CPU samples with kernel frames (%s; kernel.perf_event_paranoid "
                         "is %s and slicelabd lacks CAP_PERFMON): give it CAP_PERFMON (its unit's "
                         "CapabilityBoundingSet) or set sysctl kernel.perf_event_paranoid=1",
                         strerror(-r), paranoid ? paranoid : "unreadable");
                return -EACCES;
        }
        /* The kernel skips its ptrace check for a perfmon-capable caller. */
        if (other_user && !perfmon_capable() && !effective_capability(CAP_SYS_PTRACE)) {
                snprintf(why, size, "perf attaches to the SUT of the run user (--run-as), which the kernel allows "
                                    "only with CAP_PERFMON or CAP_SYS_PTRACE, and slicelabd has neither: give it "
                                    "CAP_PERFMON (its unit's CapabilityBoundingSet)");
                return -EACCES;
        }
        return 0;
}
