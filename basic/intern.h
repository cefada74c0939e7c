/* intern.h: a table of distinct byte strings, each given a dense id (0, 1, ...) in the order
 * first seen, so that callers keep and compare small integers instead of text: the frame names
 * of perf's samples as they are folded (profile/profile-fold.c) and the group and frame names of
 * folded stacks whose shares are counted (findings/profile-shares.c). The names come from the
 * profiled program: the table's hash is seeded per table (a chosen set of names cannot make it
 * quadratic), and an entry keeps the hash's high half as a tag so that most misses never read
 * a name. A name is kept as a NUL-terminated copy (it may hold NUL bytes of its own: its length
 * is what counts). Lookups of a name seen are on hot paths: the accessors are inline. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define INTERN_NAMES_MAX (UINT32_MAX - 1)

struct intern {
        char **names;                   /* id -> its copy */
        uint32_t *lens;                 /* id -> its length */
        uint64_t *hashes;               /* id -> its hash: growing the slots hashes nothing again */
        size_t n, cap;
        struct intern_slot {            /* open addressing, a power of two, at most half full */
                uint32_t id;            /* id + 1; 0: empty */
                uint32_t tag;           /* the hash's high half */
        } *slots;
        size_t n_slots;
        uint64_t seed;
};

/* An empty table with a seed of its own; nothing is allocated before the first name. */
void intern_init(struct intern *t);
void intern_done(struct intern *t);

/* The id of s[0, len) into *ret: 0 when it was there, -ENOENT when not (*ret untouched). */
int intern_find(const struct intern *t, const char *s, size_t len, uint32_t *ret);
/* The id of s[0, len) into *ret, added when new: 0 when it was there, 1 when added; -ENOMEM, or
 * -E2BIG past INTERN_NAMES_MAX names (*ret untouched on failure). */
int intern_add(struct intern *t, const char *s, size_t len, uint32_t *ret);

static inline size_t intern_count(const struct intern *t) {
        return t->n;
}

static inline const char *intern_name(const struct intern *t, uint32_t id) {
        return t->names[id];
}

static inline uint32_t intern_len(const struct intern *t, uint32_t id) {
        return t->lens[id];
}
