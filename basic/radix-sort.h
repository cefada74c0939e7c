/* radix-sort.h: sorting millions of fixed-size elements by a signed 64-bit key in O(n), for
 * timelines (records by scheduled time) and their latency arrays at collect. qsort's comparator
 * calls made ingest of 1.44 M records miss its 1 s/M goal; byte passes whose digit is the same
 * for every key (the high bytes of CLOCK_MONOTONIC times in one run) are skipped. Stable. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Sort n elements of `size` bytes at base by the int64_t at key_offset in each. One temporary
 * copy of the array is allocated: -ENOMEM. */
int radix_sort_by_i64(void *base, size_t n, size_t size, size_t key_offset);

static inline int radix_sort_i64(int64_t *v, size_t n) {
        return radix_sort_by_i64(v, n, sizeof *v, 0);
}
