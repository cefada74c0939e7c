/* hash.h: FNV-1a over bytes (64 bits), the one stable hash of the tree: ETags of answers and of
 * the dashboard's files, a run's seeds from its id, a comparable digest in a bench. Its value for
 * given bytes never changes (seeds made from it are stored); it is not for tables of names an
 * outsider picks (basic/intern.h seeds its own). Inline: it sits on hot paths. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV1A64_PRIME UINT64_C(0x100000001b3)

/* h continued over one byte, or over p[0, n): start from FNV1A64_OFFSET, or from the value of
 * the bytes before. */
static inline uint64_t fnv1a64_byte(uint64_t h, unsigned char c) {
        return (h ^ c) * FNV1A64_PRIME;
}

static inline uint64_t fnv1a64_add(uint64_t h, const void *p, size_t n) {
        const unsigned char *s = p;
        for (size_t i = 0; i < n; i++)
                h = fnv1a64_byte(h, s[i]);
        return h;
}

static inline uint64_t fnv1a64(const void *p, size_t n) {
        return fnv1a64_add(FNV1A64_OFFSET, p, n);
}
