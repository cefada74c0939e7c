/* timeline-merge.h: timelines joined into one in scheduled order. The injector's loops (with
 * --threads N each writes its requests, in its own schedule order, to a file of its own, sharing
 * nothing on the request path) and the load hosts of a run spread over peers (each a peer's
 * timeline.bin on the peer's clock, shifted into the coordinator's) both end as one run
 * timeline this way: a k-way merge of block reads, with no allocation or syscall per record. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "basic/timeline-format.h"

/* One input: records from offset on (each file in scheduled order once shifted). */
struct timeline_merge_input {
        int fd;
        off_t offset;           /* the first record: 0 for a loop's part, past the header for a file */
        int64_t shift_ns;       /* subtracted from every time of every record */
        uint32_t flags;         /* or-ed into every record's flags (TIMELINE_HOST_FLAGS) */
};

/* Merge n inputs by shifted scheduled_ns (ties to the lower index) into out at its current
 * position. The number of records into *ret. */
int timeline_merge(int out, const struct timeline_merge_input *in, unsigned n, uint64_t *ret);

/* Shift a timeline's header into another clock (start_ns and measure_start_ns minus shift_ns). */
void timeline_merge_header_shift(struct timeline_header *h, int64_t shift_ns);

/* An anonymous file next to the file fd refers to (so a large timeline's parts are on the same
 * file system, not in a tmpfs counted as memory): the fd, or a negative errno. */
int timeline_merge_part_open(int fd);
