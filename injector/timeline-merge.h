/* timeline-merge.h: the loops' own timeline blocks joined into one. With --threads N each loop
 * writes its requests (in its own schedule order) to a file of its own, sharing nothing on the
 * request path; at the end the files are merged in schedule order into the run's timeline. */
#pragma once

#include <stdint.h>

/* Merge n files of records (each from offset 0, each in scheduled order) by scheduled_ns (ties
 * to the lower index) into out at its current position. The number of records into *ret. */
int timeline_merge(int out, const int *in, unsigned n, uint64_t *ret);

/* An anonymous file next to the file fd refers to (so a large timeline's parts are on the same
 * file system, not in a tmpfs counted as memory): the fd, or a negative errno. */
int timeline_merge_part_open(int fd);
