/* host-perf.h: whether this daemon may profile a run's SUT (profile.cpu) beyond having a perf
 * binary (host-java.h finds that): the kernel must let it sample with kernel frames, which
 * kernel.perf_event_paranoid above 1 refuses a process without CAP_PERFMON (or CAP_SYS_ADMIN),
 * as a systemd unit's CapabilityBoundingSet may leave it; and perf attaching to a SUT of another
 * user (--run-as) must pass the kernel's ptrace check, which a caller without CAP_PERFMON (or
 * CAP_SYS_ADMIN) passes only with CAP_SYS_PTRACE. Both are probed for real (a perf event opened
 * on this process, the effective capabilities), so what the refusal says is what the kernel
 * would say. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* 0 when runs may be profiled; else a negative errno (-EACCES, -ENOSYS where the kernel has no
 * perf events) with why (size bytes) naming what is missing and how to get it. other_user: the
 * SUT runs as another user than this process. */
int host_perf_access(bool other_user, char *why, size_t size);
