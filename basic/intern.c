/* intern.c: the table of distinct names (see intern.h). */
#include "basic/intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "basic/macro.h"
#include "basic/random.h"

#define SLOTS_MIN 1024                  /* a power of two */

void intern_init(struct intern *t) {
        *t = (struct intern){ 0 };
        if (getrandom(&t->seed, sizeof t->seed, GRND_NONBLOCK) != sizeof t->seed)
                t->seed = (uint64_t) time(NULL) ^ (uint64_t) (uintptr_t) t;
}

void intern_done(struct intern *t) {
        for (size_t i = 0; i < t->n; i++)
                free(t->names[i]);
        free(t->names);
        free(t->lens);
        free(t->hashes);
        free(t->slots);
        *t = (struct intern){ 0 };
}

/* Eight bytes a step, seeded: a byte a step was most of the time of counting a profile's runs. */
static uint64_t hash(const struct intern *t, const char *s, size_t len) {
        uint64_t h = t->seed ^ len, w;
        for (; len >= 8; s += 8, len -= 8) {
                memcpy(&w, s, 8);
                h = splitmix64(&(uint64_t){ h ^ w });
        }
        w = 0;
        memcpy(&w, s, len);
        return splitmix64(&(uint64_t){ h ^ w });
}

/* The slot of s (hash h): its entry, or the empty slot where it goes. */
static struct intern_slot *slot_of(const struct intern *t, const char *s, size_t len, uint64_t h) {
        uint32_t tag = (uint32_t) (h >> 32);
        size_t mask = t->n_slots - 1, i = h & mask;
        for (; t->slots[i].id; i = (i + 1) & mask) {
                uint32_t id = t->slots[i].id - 1;
                if (t->slots[i].tag == tag && t->lens[id] == len && memcmp(t->names[id], s, len) == 0)
                        break;
        }
        return &t->slots[i];
}

int intern_find(const struct intern *t, const char *s, size_t len, uint32_t *ret) {
        if (t->n_slots == 0)
                return -ENOENT;
        const struct intern_slot *slot = slot_of(t, s, len, hash(t, s, len));
        if (!slot->id)
                return -ENOENT;
        *ret = slot->id - 1;
        return 0;
}

static int slots_grow(struct intern *t) {
        size_t n = t->n_slots ? t->n_slots * 2 : SLOTS_MIN;
        struct intern_slot *slots = calloc(n, sizeof *slots);
        if (!slots)
                return -ENOMEM;
        for (size_t id = 0; id < t->n; id++) {
                uint64_t h = t->hashes[id];
                size_t i = h & (n - 1);
                while (slots[i].id)
                        i = (i + 1) & (n - 1);
                slots[i] = (struct intern_slot){ (uint32_t) id + 1, (uint32_t) (h >> 32) };
        }
        free(t->slots);
        t->slots = slots;
        t->n_slots = n;
        return 0;
}

static int entries_grow(struct intern *t) {
        size_t cap = MAX(t->cap * 2, (size_t) SLOTS_MIN);
        char **names = reallocarray(t->names, cap, sizeof *names);
        if (!names)
                return -ENOMEM;
        t->names = names;
        uint32_t *lens = reallocarray(t->lens, cap, sizeof *lens);
        if (!lens)
                return -ENOMEM;
        t->lens = lens;
        uint64_t *hashes = reallocarray(t->hashes, cap, sizeof *hashes);
        if (!hashes)
                return -ENOMEM;
        t->hashes = hashes;
        t->cap = cap;
        return 0;
}

int intern_add(struct intern *t, const char *s, size_t len, uint32_t *ret) {
        uint64_t h = hash(t, s, len);
        struct intern_slot *slot = t->n_slots ? slot_of(t, s, len, h) : NULL;
        if (slot && slot->id) {
                *ret = slot->id - 1;
                return 0;
        }
        if (t->n >= INTERN_NAMES_MAX || len > UINT32_MAX)
                return -E2BIG;
        int r = (t->n + 1) * 2 > t->n_slots ? slots_grow(t) : 0;
        if (r >= 0 && t->n == t->cap)
                r = entries_grow(t);
        if (r < 0)
                return r;
        char *copy = malloc(len + 1);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, s, len);
        copy[len] = '\0';
        slot = slot_of(t, s, len, h);
        t->names[t->n] = copy;
        t->lens[t->n] = (uint32_t) len;
        t->hashes[t->n] = h;
        *slot = (struct intern_slot){ (uint32_t) ++t->n, (uint32_t) (h >> 32) };
        *ret = (uint32_t) t->n - 1;
        return 1;
}
