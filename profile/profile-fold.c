/* profile-fold.c: perf script's samples folded into counted stacks by thread group (see
 * profile-fold.h): a perf map lookup, the group rules and a hash table of distinct stacks. */
#include "profile/profile-fold.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "basic/hash.h"
#include "basic/intern.h"
#include "profile/frame-names.h"

#define KERNEL_IP_MIN UINT64_C(0xffff800000000000)

static const char *const group_names[_PROFILE_GROUP_MAX] = {
        [PROFILE_GROUP_APP] = "app",   [PROFILE_GROUP_GC] = "gc",         [PROFILE_GROUP_JIT] = "jit",
        [PROFILE_GROUP_VM] = "vm",     [PROFILE_GROUP_KERNEL] = "kernel", [PROFILE_GROUP_OTHER] = "other",
};

const char *profile_group_name(enum profile_group g) {
        return g < _PROFILE_GROUP_MAX ? group_names[g] : "other";
}

static bool has_prefix(const char *s, const char *const *prefixes, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
                        return true;
        return false;
}

/* HotSpot's thread names as the kernel keeps them (15 bytes). */
enum profile_group profile_group_of_comm(const char *comm, bool jvm) {
        static const char *const gc[] = { "GC Thread", "G1 ",      "Gang worker", "ZWorker",  "ZDriver", "ZDirector",
                                          "ZStat",     "ZUncommit", "Shenandoah",  "ParGC",    "Parallel GC" };
        static const char *const jit[] = { "C1 CompilerThre", "C2 CompilerThre", "Sweeper thread", "JVMCI" };
        static const char *const vm[] = { "VM Thread",       "VM Periodic Tas", "Service Thread", "Signal Dispatch",
                                          "Finalizer",       "Reference Handl", "Common-Cleaner", "Notification Th",
                                          "Attach Listener", "Monitor Deflati" };
        if (comm[0] == '\0' || comm[0] == ':')
                return PROFILE_GROUP_OTHER; /* perf's ":TID" for a thread it has no name of */
        if (!jvm)
                return PROFILE_GROUP_APP;
        if (has_prefix(comm, gc, ELEMENTSOF(gc)))
                return PROFILE_GROUP_GC;
        if (has_prefix(comm, jit, ELEMENTSOF(jit)))
                return PROFILE_GROUP_JIT;
        if (has_prefix(comm, vm, ELEMENTSOF(vm)))
                return PROFILE_GROUP_VM;
        return PROFILE_GROUP_APP;
}

/* ---- the perf map ------------------------------------------------------------------------ */

struct map_entry {
        uint64_t start, end;
        char *name;
};

struct profile_map {
        struct map_entry *e;
        uint64_t *starts;               /* e[i].start, dense: the lookup's binary search stays in cache */
        size_t n;
};

static int cmp_entry(const void *a, const void *b) {
        const struct map_entry *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

int profile_map_parse(const char *text, size_t len, struct profile_map **ret) {
        _cleanup_(profile_map_freep) struct profile_map *m = calloc(1, sizeof *m);
        size_t cap = 0;
        if (!m)
                return -ENOMEM;
        for (size_t pos = 0; pos < len;) {
                const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
                size_t l = nl ? (size_t) (nl - line) : len - pos;
                pos += l + 1;
                char buf[PROFILE_FOLD_LINE_MAX], *end1, *end2;
                if (l >= sizeof buf)
                        continue;
                memcpy(buf, line, l);
                buf[l] = '\0';
                errno = 0;
                uint64_t start = strtoull(buf, &end1, 16);
                uint64_t size = end1 != buf && *end1 == ' ' ? strtoull(end1 + 1, &end2, 16) : 0;
                if (errno || size == 0 || *end2 != ' ' || end2[1] == '\0' || start + size < start)
                        continue;
                if (m->n == cap) {
                        size_t c = cap ? cap * 2 : 1024;
                        struct map_entry *e = reallocarray(m->e, c, sizeof *e);
                        if (!e)
                                return -ENOMEM;
                        m->e = e;
                        cap = c;
                }
                char *name = strdup(end2 + 1);
                if (!name)
                        return -ENOMEM;
                m->e[m->n++] = (struct map_entry){ start, start + size, name };
        }
        qsort(m->e, m->n, sizeof *m->e, cmp_entry);
        m->starts = calloc(m->n + 1, sizeof *m->starts);
        if (!m->starts)
                return -ENOMEM;
        for (size_t i = 0; i < m->n; i++)
                m->starts[i] = m->e[i].start;
        *ret = TAKE_PTR(m);
        return 0;
}

/* The index of the last entry starting at or below ip, if ip is inside it; else -1. A binary
 * search without branches on the data (a conditional move per step): JIT frames' ips are as
 * good as random, and a mispredicted branch per step cost more than the steps. */
static ssize_t map_index(const struct profile_map *m, uint64_t ip) {
        if (!m || m->n == 0 || ip < m->starts[0])
                return -1;
        const uint64_t *base = m->starts;
        for (size_t n = m->n; n > 1;) {
                size_t half = n / 2;
                base = base[half] <= ip ? base + half : base;
                n -= half;
        }
        size_t i = (size_t) (base - m->starts);
        return ip < m->e[i].end ? (ssize_t) i : -1;
}

const char *profile_map_lookup(const struct profile_map *m, uint64_t ip) {
        ssize_t i = map_index(m, ip);
        return i >= 0 ? m->e[i].name : NULL;
}

struct profile_map *profile_map_free(struct profile_map *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n; i++)
                free(m->e[i].name);
        free(m->e);
        free(m->starts);
        free(m);
        return NULL;
}

/* ---- folding ----------------------------------------------------------------------------
 * A sample is a list of frame ids (each distinct name interned once), and a stack is the list
 * group;root;...;leaf of ids: hashing and comparing a few dozen words per sample instead of its
 * whole text. The text is made only once per distinct stack, when it is written. Every ip seen
 * resolves through an exact table (ip -> id): a frame line whose ip is there is checked against
 * the name it had (perf's, or "[unknown]" for a JIT frame) in place and costs no copy, no hash
 * of its text and no perf map search. perf's text is read in large blocks, not line by line. */

#define NAME_BYTES_MAX PROFILE_FOLD_LINE_MAX
#define IP_SLOTS_MIN 16384              /* powers of two */
#define IP_SLOTS_MAX (1u << 21)         /* 32 MB: beyond a million distinct ips the rest resolve each time */
#define FRAMES_CAP (4 * PROFILE_FOLD_DEPTH_MAX)
#define KEY_HEAD 2                      /* room before the frames for the group and [truncated] */
#define KEY_END (KEY_HEAD + FRAMES_CAP)
#define COMM_SLOTS 1024                 /* a power of two: a pool of a few hundred threads rarely shares one */
#define READ_BLOCK (1u << 20)

enum ip_kind {
        IP_EMPTY,
        IP_UNKNOWN,                     /* perf said [unknown] (or nothing): named from the map */
        IP_NAMED,                       /* perf named it: the id of that name */
};

struct ip_slot {
        uint64_t ip;
        uint32_t id;
        uint8_t kind;
};

struct comm_slot {
        char comm[64];
        bool used;
        uint8_t group;
};

struct stack_entry {
        uint64_t hash;
        size_t off;                     /* its ids in the arena; 0 marks an empty slot */
        uint32_t n;
        uint64_t count;
};

struct profile_folder {
        bool jvm;
        const struct profile_map *map;
        /* the sample being read: its thread and frames; the frames are key[top, KEY_END), root
         * first, since perf prints the leaf first and each frame goes in front of the last */
        bool in_sample;
        char comm[64];
        enum profile_group comm_group;
        uint32_t key[KEY_END];
        size_t top, n_frames;           /* n_frames: read, the ones dropped beyond the bound too */
        uint64_t hash;                  /* of the frames read, leaf to root (stack_hash()'s order) */
        bool all_kernel;
        struct intern names;            /* the frames' and groups' names, by id */
        uint32_t group_ids[_PROFILE_GROUP_MAX], truncated_id, no_stack_id, too_many_id;
        /* every ip seen: open addressing, a power of two, at most half full */
        struct ip_slot *ips;
        size_t ips_cap, n_ips;
        unsigned ips_shift;             /* 64 - log2(ips_cap) */
        uint32_t *map_ids;              /* per perf map entry: its name's id + 1, 0 until seen */
        struct comm_slot comms[COMM_SLOTS]; /* thread names' groups, most recent per slot */
        /* distinct stacks: open addressing, a power of two, at most half full */
        struct stack_entry *table;
        size_t table_cap, n_stacks;
        uint32_t *arena;                /* every stack's ids, one after the other (from index 1) */
        size_t arena_len, arena_cap;
        struct profile_fold_stats stats;
};

/* A stack's hash is taken from its last id to its first, so that the sample being read
 * hashes its frames as they come (leaf first): no second pass over them. */
#define STACK_HASH_SEED UINT64_C(0x9e3779b97f4a7c15)

static inline uint64_t stack_hash_step(uint64_t h, uint32_t id) {
        return (h ^ id) * UINT64_C(0xff51afd7ed558ccd);
}

static inline uint64_t stack_hash_final(uint64_t h, size_t n) {
        h ^= n;
        h ^= h >> 32; /* the steps' low bits depend on the ids' low bits alone */
        h *= UINT64_C(0xc4ceb9fe1a85ec53);
        return h ^ (h >> 29);
}

static uint64_t stack_hash(const uint32_t *ids, size_t n) {
        uint64_t h = STACK_HASH_SEED;
        for (size_t i = n; i > 0; i--)
                h = stack_hash_step(h, ids[i - 1]);
        return stack_hash_final(h, n);
}

/* The id of name s[0, len) (no ';' or control character in it), added when new. */
static int intern(struct profile_folder *f, const char *s, size_t len, uint32_t *ret) {
        int r = intern_add(&f->names, s, len, ret);
        return r < 0 ? r : 0;
}

/* A name that cannot break the format: ';' separates frames, the last ' ' the count. */
static char sanitized(char c) {
        return c == ';' || (unsigned char) c < 0x20 ? ':' : c;
}

static void sanitize(char *s) {
        for (; *s; s++)
                *s = sanitized(*s);
}

/* A frame's name as it is kept: safe for the format, and the same in every JVM
 * (profile/frame-names.h). A renamed frame's ip no longer matches its name in place, so such
 * frames take this path on every sample; they are few. */
static int intern_sanitized(struct profile_folder *f, const char *s, size_t len, uint32_t *ret) {
        char buf[NAME_BYTES_MAX], stable[NAME_BYTES_MAX];
        len = MIN(len, sizeof buf);
        for (size_t i = 0; i < len; i++)
                buf[i] = sanitized(s[i]);
        return intern(f, stable, frame_name_normalize(buf, len, stable), ret);
}

static int ips_alloc(struct profile_folder *f, size_t cap) {
        struct ip_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
                return -ENOMEM;
        free(f->ips);
        f->ips = slots;
        f->ips_cap = cap;
        f->ips_shift = 64 - (unsigned) __builtin_ctzll(cap);
        return 0;
}

static struct ip_slot *ip_slot(const struct profile_folder *f, uint64_t ip) {
        size_t i = (size_t) ((ip * UINT64_C(0x9e3779b97f4a7c15)) >> f->ips_shift);
        while (f->ips[i].kind != IP_EMPTY && f->ips[i].ip != ip)
                i = (i + 1) & (f->ips_cap - 1);
        return &f->ips[i];
}

static int ips_grow(struct profile_folder *f) {
        _cleanup_free_ struct ip_slot *old = TAKE_PTR(f->ips);
        size_t old_cap = f->ips_cap;
        int r = ips_alloc(f, old_cap * 2);
        if (r < 0) {
                f->ips = TAKE_PTR(old);
                return r;
        }
        for (size_t i = 0; i < old_cap; i++)
                if (old[i].kind != IP_EMPTY)
                        *ip_slot(f, old[i].ip) = old[i];
        return 0;
}

/* Remembers what ip resolved to; past IP_SLOTS_MAX a new ip is not kept (resolved each time). */
static int ip_remember(struct profile_folder *f, uint64_t ip, enum ip_kind kind, uint32_t id) {
        struct ip_slot *s = ip_slot(f, ip);
        if (s->kind == IP_EMPTY) {
                if ((f->n_ips + 1) * 2 > f->ips_cap) {
                        if (f->ips_cap >= IP_SLOTS_MAX)
                                return 0;
                        int r = ips_grow(f);
                        if (r < 0)
                                return r;
                        s = ip_slot(f, ip);
                }
                f->n_ips++;
        }
        *s = (struct ip_slot){ .ip = ip, .id = id, .kind = kind };
        return 0;
}

int profile_folder_new(bool jvm, const struct profile_map *map, struct profile_folder **ret) {
        _cleanup_(profile_folder_freep) struct profile_folder *f = calloc(1, sizeof *f);
        if (!f)
                return -ENOMEM;
        f->jvm = jvm;
        f->map = map;
        intern_init(&f->names);
        f->table_cap = 4096;
        f->table = calloc(f->table_cap, sizeof *f->table);
        f->arena_len = 1; /* offset 0 is an empty slot's */
        f->map_ids = map && map->n > 0 ? calloc(map->n, sizeof *f->map_ids) : NULL;
        if (!f->table || (map && map->n > 0 && !f->map_ids) || ips_alloc(f, IP_SLOTS_MIN) < 0)
                return -ENOMEM;
        int r = 0;
        for (enum profile_group g = 0; r >= 0 && g < _PROFILE_GROUP_MAX; g++)
                r = intern(f, group_names[g], strlen(group_names[g]), &f->group_ids[g]);
        if (r >= 0)
                r = intern(f, "[truncated]", strlen("[truncated]"), &f->truncated_id);
        if (r >= 0)
                r = intern(f, "[no stack]", strlen("[no stack]"), &f->no_stack_id);
        if (r >= 0)
                r = intern(f, "[too many stacks]", strlen("[too many stacks]"), &f->too_many_id);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(f);
        return 0;
}

struct profile_folder *profile_folder_free(struct profile_folder *f) {
        if (!f)
                return NULL;
        intern_done(&f->names);
        free(f->table);
        free(f->arena);
        free(f->ips);
        free(f->map_ids);
        free(f);
        return NULL;
}

static struct stack_entry *stack_slot(struct profile_folder *f, struct stack_entry *table, size_t cap, const uint32_t *ids,
                                      size_t n, uint64_t h) {
        size_t i = h & (cap - 1);
        for (; table[i].off; i = (i + 1) & (cap - 1))
                if (table[i].hash == h && table[i].n == n && memcmp(f->arena + table[i].off, ids, n * sizeof *ids) == 0)
                        break;
        return &table[i];
}

static int stacks_grow(struct profile_folder *f) {
        size_t cap = f->table_cap * 2;
        struct stack_entry *t = calloc(cap, sizeof *t);
        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < f->table_cap; i++)
                if (f->table[i].off) {
                        size_t j = f->table[i].hash & (cap - 1);
                        while (t[j].off)
                                j = (j + 1) & (cap - 1);
                        t[j] = f->table[i];
                }
        free(f->table);
        f->table = t;
        f->table_cap = cap;
        return 0;
}

/* Counts one sample of the stack ids[0, n) of hash h (stack_hash()); a new stack is added
 * only while allowed. */
static int count_stack(struct profile_folder *f, const uint32_t *ids, size_t n, uint64_t h, bool allowed, bool *ret_counted) {
        struct stack_entry *s = stack_slot(f, f->table, f->table_cap, ids, n, h);
        *ret_counted = s->off != 0 || allowed;
        if (s->off) {
                s->count++;
                return 0;
        }
        if (!allowed)
                return 0;
        if ((f->n_stacks + 1) * 2 > f->table_cap) {
                int r = stacks_grow(f);
                if (r < 0)
                        return r;
                s = stack_slot(f, f->table, f->table_cap, ids, n, h);
        }
        if (f->arena_len + n > f->arena_cap) {
                size_t cap = MAX(f->arena_cap * 2, f->arena_len + n + 65536);
                uint32_t *a = reallocarray(f->arena, cap, sizeof *a);
                if (!a)
                        return -ENOMEM;
                f->arena = a;
                f->arena_cap = cap;
        }
        memcpy(f->arena + f->arena_len, ids, n * sizeof *ids);
        *s = (struct stack_entry){ .hash = h, .off = f->arena_len, .n = (uint32_t) n, .count = 1 };
        f->arena_len += n;
        f->n_stacks++;
        return 0;
}

/* group;root;...;leaf of the sample read, then counted. */
static int end_sample(struct profile_folder *f) {
        if (!f->in_sample)
                return 0;
        f->in_sample = false;
        enum profile_group g = f->n_frames > 0 && f->all_kernel ? PROFILE_GROUP_KERNEL : f->comm_group;
        size_t kept = MIN(f->n_frames, (size_t) PROFILE_FOLD_DEPTH_MAX), dropped = f->n_frames - kept;
        uint64_t h = f->hash;
        if (dropped > 0) { /* the hash has the dropped leaves in it: again over the kept frames */
                h = STACK_HASH_SEED;
                for (size_t i = f->top + kept; i > f->top; i--)
                        h = stack_hash_step(h, f->key[i - 1]);
        }
        size_t top = f->top;
        if (f->n_frames == 0)
                h = stack_hash_step(h, f->key[--top] = f->no_stack_id);
        if (dropped > 0)
                h = stack_hash_step(h, f->key[--top] = f->truncated_id);
        h = stack_hash_step(h, f->key[--top] = f->group_ids[g]);
        size_t n = f->top + kept - top;
        bool counted;
        int r = count_stack(f, f->key + top, n, stack_hash_final(h, n), f->n_stacks < PROFILE_FOLD_STACKS_MAX, &counted);
        if (r >= 0 && !counted) {
                /* the group's overflow stack, one per group, may pass the bound */
                f->stats.overflow++;
                const uint32_t overflow[] = { f->group_ids[g], f->too_many_id };
                r = count_stack(f, overflow, 2, stack_hash(overflow, 2), f->n_stacks < PROFILE_FOLD_STACKS_MAX + _PROFILE_GROUP_MAX,
                                &counted);
        }
        if (r < 0)
                return r;
        f->stats.samples++;
        f->stats.by_group[g]++;
        if (dropped > 0)
                f->stats.truncated++;
        return 0;
}

/* The id of a frame's name: perf's, or for "[unknown]" (and nothing) the perf map's. */
static int frame_id(struct profile_folder *f, uint64_t ip, const char *name, size_t len, uint32_t *ret) {
        bool unknown = len == 0 || (len >= 9 && memcmp(name, "[unknown]", 9) == 0);
        const struct ip_slot *c = ip_slot(f, ip);
        if (c->kind == (unknown ? IP_UNKNOWN : IP_NAMED)) {
                if (unknown) {
                        *ret = c->id;
                        return 0;
                }
                const char *known = intern_name(&f->names, c->id);
                size_t i = 0, known_len = intern_len(&f->names, c->id);
                if (known_len == MIN(len, (size_t) NAME_BYTES_MAX))
                        while (i < known_len && known[i] == sanitized(name[i]))
                                i++;
                if (i == known_len && i > 0) {
                        *ret = c->id;
                        return 0;
                }
        }
        uint32_t id;
        int r;
        ssize_t k = unknown ? map_index(f->map, ip) : -1;
        if (k >= 0 && f->map_ids[k]) {
                id = f->map_ids[k] - 1;
                r = 0;
        } else if (k >= 0) {
                r = intern_sanitized(f, f->map->e[k].name, strlen(f->map->e[k].name), &id);
                if (r >= 0)
                        f->map_ids[k] = id + 1;
        } else if (unknown)
                r = intern(f, "[unknown]", strlen("[unknown]"), &id);
        else
                r = intern_sanitized(f, name, len, &id);
        if (r >= 0)
                r = ip_remember(f, ip, unknown ? IP_UNKNOWN : IP_NAMED, id);
        if (r < 0)
                return r;
        *ret = id;
        return 0;
}

/* The frame in front of the ones read (perf prints the leaf first); past FRAMES_CAP the
 * leaf side makes room, only the PROFILE_FOLD_DEPTH_MAX nearest the root are kept. */
static void push_frame(struct profile_folder *f, uint32_t id, uint64_t ip) {
        if (f->top == KEY_HEAD) {
                memmove(f->key + KEY_END - PROFILE_FOLD_DEPTH_MAX, f->key + KEY_HEAD, PROFILE_FOLD_DEPTH_MAX * sizeof *f->key);
                f->top = KEY_END - PROFILE_FOLD_DEPTH_MAX;
        }
        f->key[--f->top] = id;
        f->n_frames++;
        f->hash = stack_hash_step(f->hash, id);
        if (ip < KERNEL_IP_MIN)
                f->all_kernel = false;
}

static const uint8_t hex_digit[256] = {
        ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
        ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
        ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};                                      /* a hex digit's value + 1; 0 for any other byte */

/* The ip in hex at s (at most 17 digits read: more is not an ip); *ret_end after its digits. */
static uint64_t parse_ip(const char *s, const char *end, const char **ret_end) {
        uint64_t ip = 0;
        const char *p = s;
        for (; p < end && p - s <= 16 && hex_digit[(unsigned char) *p]; p++)
                ip = ip << 4 | (unsigned) (hex_digit[(unsigned char) *p] - 1);
        *ret_end = p;
        return ip;
}

/* "   ip name": the ip in hex, then the name to the end of the line. */
static int add_frame(struct profile_folder *f, const char *line, size_t len) {
        size_t i = 0;
        while (i < len && (line[i] == ' ' || line[i] == '\t'))
                i++;
        const char *digits_end;
        uint64_t ip = parse_ip(line + i, line + len, &digits_end);
        size_t digits = (size_t) (digits_end - (line + i));
        if (digits == 0 || digits > 16)
                return 0; /* not a frame line: skipped */
        i += digits;
        if (i < len && line[i] == ' ')
                i++;
        uint32_t id;
        int r = frame_id(f, ip, line + i, len - i, &id);
        if (r < 0)
                return r;
        push_frame(f, id, ip);
        return 0;
}

/* The group of the thread named comm, remembered per name: a sample's header costs a hash of
 * its name, not the group rules' prefixes. */
static enum profile_group comm_group(struct profile_folder *f, const char *comm, size_t len) {
        struct comm_slot *s = &f->comms[fnv1a64(comm, len) & (COMM_SLOTS - 1)];
        if (!s->used || strcmp(s->comm, comm) != 0) {
                memcpy(s->comm, comm, len + 1);
                s->used = true;
                s->group = (uint8_t) profile_group_of_comm(comm, f->jvm);
        }
        return s->group;
}

/* "comm tid" (a comm may hold spaces: the tid is the last word). */
static void begin_sample(struct profile_folder *f, const char *line, size_t len) {
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
                len--;
        size_t word = len;
        while (word > 0 && line[word - 1] != ' ' && line[word - 1] != '\t')
                word--;
        size_t comm = word;
        while (comm > 0 && (line[comm - 1] == ' ' || line[comm - 1] == '\t'))
                comm--;
        if (comm == 0) /* one word: a comm without tid */
                comm = len;
        comm = MIN(comm, sizeof f->comm - 1);
        memcpy(f->comm, line, comm);
        f->comm[comm] = '\0';
        sanitize(f->comm);
        f->comm_group = comm_group(f, f->comm, strlen(f->comm));
        f->in_sample = true;
        f->top = KEY_END;
        f->n_frames = 0;
        f->hash = STACK_HASH_SEED;
        f->all_kernel = true;
}

static bool blank(const char *line, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (line[i] != ' ' && line[i] != '\t')
                        return false;
        return true;
}

int profile_folder_line(struct profile_folder *f, const char *line, size_t len) {
        len = MIN(len, (size_t) PROFILE_FOLD_LINE_MAX - 1);
        if (blank(line, len))
                return end_sample(f);
        if (line[0] == ' ' || line[0] == '\t')
                return f->in_sample ? add_frame(f, line, len) : 0;
        int r = end_sample(f);
        if (r < 0)
                return r;
        begin_sample(f, line, len);
        return 0;
}

#define BYTES(c) (UINT64_C(0x0101010101010101) * (c))

/* Eight characters of perf's ip column: their hex value, and (bit i for character i) which are
 * hex digits and which are spaces. */
static uint64_t column8(uint64_t x, unsigned *ret_digits, unsigned *ret_spaces) {
        uint64_t ascii = ~x & BYTES(0x80);
        uint64_t digit = (x + BYTES(0x80 - '0')) & ~(x + BYTES(0x7f - '9')) & ascii;
        uint64_t lower = (x + BYTES(0x80 - 'a')) & ~(x + BYTES(0x7f - 'f')) & ascii;
        uint64_t t = x ^ BYTES(' ');
        uint64_t space = ~((((t & BYTES(0x7f)) + BYTES(0x7f)) | t) & BYTES(0x80)) & BYTES(0x80);
        *ret_digits = (unsigned) ((((digit | lower) >> 7) * UINT64_C(0x0102040810204080)) >> 56);
        *ret_spaces = (unsigned) (((space >> 7) * UINT64_C(0x0102040810204080)) >> 56);
        uint64_t v = (x & BYTES(0x0f)) + 9 * ((x >> 6) & BYTES(0x01)); /* a space is 0 */
        v = __builtin_bswap64(v);
        v = (v | (v >> 4)) & UINT64_C(0x00ff00ff00ff00ff);
        v = (v | (v >> 8)) & UINT64_C(0x0000ffff0000ffff);
        return (v | (v >> 16)) & UINT64_C(0xffffffff);
}

/* perf's "%16llx": an ip right-aligned in 16 columns, read without a branch per character
 * (how many are digits varies from line to line). False unless spaces, then at least one digit,
 * and nothing else. */
static bool parse_ip_column(const char *s, uint64_t *ret) {
        uint64_t a, b;
        unsigned da, sa, db, sb;
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        uint64_t hi = column8(a, &da, &sa), lo = column8(b, &db, &sb);
        unsigned digits = da | db << 8, spaces = sa | sb << 8;
        *ret = hi << 32 | lo;
        return (digits | spaces) == 0xffff && (spaces & (spaces + 1)) == 0 && spaces != 0xffff;
}

/* A line read ahead: for a frame line that parses, its ip and name. */
struct line_ahead {
        const char *line, *nl, *name;
        uint64_t ip;
};

#define LINES_AHEAD 32

static void line_ahead_parse(const struct profile_folder *f, struct line_ahead *l) {
        const char *s = l->line, *digits_end;
        uint64_t ip;
        if (l->nl - s >= 18 && s[0] == '\t' && s[17] == ' ' && parse_ip_column(s + 1, &ip))
                l->name = s + 18; /* as perf prints it: "\t%16llx name" */
        else {
                if (*s != ' ' && *s != '\t')
                        return;
                while (s < l->nl && (*s == ' ' || *s == '\t'))
                        s++;
                ip = parse_ip(s, l->nl, &digits_end);
                if (digits_end == s || digits_end - s > 16 || digits_end == l->nl || *digits_end != ' ')
                        return;
                l->name = digits_end + 1;
        }
        l->ip = ip;
        __builtin_prefetch(&f->ips[(ip * UINT64_C(0x9e3779b97f4a7c15)) >> f->ips_shift]);
}

/* A frame line whose ip was seen with the same name (compared in place) taken without copying
 * or hashing its text; false when it needs profile_folder_line(). */
static bool line_ahead_known(struct profile_folder *f, const struct line_ahead *l) {
        if (!l->name || !f->in_sample || l->nl - l->line >= PROFILE_FOLD_LINE_MAX - 1)
                return false; /* not a frame, or a line profile_folder_line() cuts */
        const struct ip_slot *c = ip_slot(f, l->ip);
        size_t len = (size_t) (l->nl - l->name);
        bool same = c->kind == IP_UNKNOWN ? len == strlen("[unknown]") && memcmp(l->name, "[unknown]", len) == 0
                  : c->kind == IP_NAMED   ? len == intern_len(&f->names, c->id) &&
                                                    memcmp(l->name, intern_name(&f->names, c->id), len) == 0
                                          : false;
        if (same)
                push_frame(f, c->id, l->ip);
        return same;
}

/* The whole lines of [p, lim) (its last byte a newline), LINES_AHEAD at a time: their ips'
 * slots are fetched from memory together rather than one cache miss after another. */
static int fold_lines(struct profile_folder *f, const char *p, const char *lim) {
        while (p < lim) {
                struct line_ahead ahead[LINES_AHEAD];
                size_t n = 0;
                for (; n < LINES_AHEAD && p < lim; n++) {
                        const char *nl = memchr(p, '\n', (size_t) (lim - p));
                        ahead[n] = (struct line_ahead){ .line = p, .nl = nl };
                        line_ahead_parse(f, &ahead[n]);
                        p = nl + 1;
                }
                for (size_t i = 0; i < n; i++) {
                        if (line_ahead_known(f, &ahead[i]))
                                continue;
                        int r = profile_folder_line(f, ahead[i].line, (size_t) (ahead[i].nl - ahead[i].line));
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int profile_folder_read(struct profile_folder *f, FILE *in) {
        _cleanup_free_ char *buf = malloc(READ_BLOCK);
        size_t have = 0;
        bool rest_of_long_line = false; /* a line longer than the block: only its head counts */
        int r = 0;
        if (!buf)
                return -ENOMEM;
        for (;;) {
                size_t n = fread(buf + have, 1, READ_BLOCK - have, in);
                if (n == 0)
                        break;
                have += n;
                const char *nl = memrchr(buf, '\n', have), *p = buf;
                size_t done;
                if (nl) {
                        done = (size_t) (nl + 1 - buf);
                        if (rest_of_long_line) {
                                p = (const char *) memchr(buf, '\n', done) + 1;
                                rest_of_long_line = false;
                        }
                        r = fold_lines(f, p, buf + done);
                } else if (have == READ_BLOCK) {
                        done = have;
                        if (!rest_of_long_line)
                                r = profile_folder_line(f, buf, have);
                        rest_of_long_line = true;
                } else
                        continue;
                if (r < 0)
                        return r;
                memmove(buf, buf + done, have - done);
                have -= done;
        }
        if (ferror(in))
                return -EIO;
        if (have > 0 && !rest_of_long_line) {
                r = profile_folder_line(f, buf, have);
                if (r < 0)
                        return r;
        }
        return end_sample(f);
}

/* A stack's folded text, then sorted by it: the text is what the order is of. */
struct folded_line {
        const char *text;
        uint64_t count;
};

static int cmp_line(const void *a, const void *b) {
        return strcmp(((const struct folded_line *) a)->text, ((const struct folded_line *) b)->text);
}

int profile_folder_write(struct profile_folder *f, FILE *out, size_t max_bytes) {
        size_t n = 0, bytes = 0, text_len = 0;
        for (size_t i = 0; i < f->table_cap; i++)
                for (size_t k = 0; f->table[i].off && k < f->table[i].n; k++)
                        text_len += intern_len(&f->names, f->arena[f->table[i].off + k]) + 1;
        _cleanup_free_ char *text = malloc(text_len + 1);
        _cleanup_free_ struct folded_line *lines = calloc(f->n_stacks + 1, sizeof *lines);
        if (!text || !lines)
                return -ENOMEM;
        char *p = text;
        for (size_t i = 0; i < f->table_cap; i++) {
                const struct stack_entry *s = &f->table[i];
                if (!s->off)
                        continue;
                lines[n++] = (struct folded_line){ p, s->count };
                for (size_t k = 0; k < s->n; k++) {
                        uint32_t id = f->arena[s->off + k];
                        memcpy(p, intern_name(&f->names, id), intern_len(&f->names, id));
                        p += intern_len(&f->names, id);
                        *p++ = k + 1 < s->n ? ';' : '\0';
                }
        }
        qsort(lines, n, sizeof *lines, cmp_line);
        for (size_t i = 0; i < n; i++) {
                int w = fprintf(out, "%s %" PRIu64 "\n", lines[i].text, lines[i].count);
                if (w < 0)
                        return -EIO;
                bytes += (size_t) w;
                if (bytes > max_bytes)
                        return -EFBIG;
        }
        return fflush(out) == 0 ? 0 : -EIO;
}

void profile_folder_stats(const struct profile_folder *f, struct profile_fold_stats *ret) {
        *ret = f->stats;
}
