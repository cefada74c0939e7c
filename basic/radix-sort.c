/* radix-sort.c: LSD radix sort, 8 bits per pass, over a signed 64-bit key. */
#include "basic/radix-sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The key with its sign bit flipped orders as unsigned the way the int64 orders as signed. */
static inline uint64_t key_at(const unsigned char *e, size_t key_offset) {
        int64_t k;
        memcpy(&k, e + key_offset, sizeof k);
        return (uint64_t) k ^ (UINT64_C(1) << 63);
}

int radix_sort_by_i64(void *base, size_t n, size_t size, size_t key_offset) {
        if (n < 2)
                return 0;
        unsigned char *src = base, *dst = malloc(n * size);
        if (!dst)
                return -ENOMEM;
        unsigned char *tmp = dst;
        for (unsigned shift = 0; shift < 64; shift += 8) {
                size_t count[256] = { 0 };
                for (size_t i = 0; i < n; i++)
                        count[(key_at(src + i * size, key_offset) >> shift) & 0xff]++;
                if (count[(key_at(src, key_offset) >> shift) & 0xff] == n)
                        continue; /* every key has this digit: the pass would not move anything */
                size_t pos = 0;
                for (size_t d = 0; d < 256; d++) {
                        size_t c = count[d];
                        count[d] = pos;
                        pos += c;
                }
                for (size_t i = 0; i < n; i++) {
                        const unsigned char *e = src + i * size;
                        memcpy(dst + count[(key_at(e, key_offset) >> shift) & 0xff]++ * size, e, size);
                }
                unsigned char *t = src;
                src = dst;
                dst = t;
        }
        if (src != base)
                memcpy(base, src, n * size);
        free(tmp);
        return 0;
}
