/* recv-stamp.h: when an answer really arrived. The kernel stamps every received packet
 * (SO_TIMESTAMPNS, on CLOCK_REALTIME); recvmsg() hands the stamp of the bytes it returns over,
 * and it is moved onto CLOCK_MONOTONIC here. An answer's done time is then the moment it reached
 * this host, not the moment the injector got round to reading it, so a loop that reads once per
 * tick, or that was descheduled, does not add its own delay to the server's latency. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Ask the kernel to stamp what fd receives; best effort (without it, stamps are the read time). */
void recv_stamp_enable(int fd);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now; read once per wakeup, so a step of the wall clock
 * misplaces at most the answers read in one wakeup. */
int64_t recv_stamp_offset(void);

/* recv() into buf; on data, *stamp_ns is the kernel's receive time on CLOCK_MONOTONIC (given
 * the offset), or fallback_ns when the socket carried none. *stamp_ns is untouched otherwise. */
ssize_t recv_stamp_recv(int fd, void *buf, size_t size, int64_t offset_ns, int64_t fallback_ns,
                        int64_t *stamp_ns);
