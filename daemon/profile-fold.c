/* profile-fold.c: perf script's samples folded into counted stacks by thread group (see
 * profile-fold.h): a perf map lookup, the group rules and a hash table of distinct stacks. */
#include "daemon/profile-fold.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
        *ret = TAKE_PTR(m);
        return 0;
}

/* The last entry starting at or below ip, if ip is inside it. */
const char *profile_map_lookup(const struct profile_map *m, uint64_t ip) {
        size_t lo = 0, hi = m ? m->n : 0;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (m->e[mid].start <= ip)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo > 0 && ip < m->e[lo - 1].end ? m->e[lo - 1].name : NULL;
}

struct profile_map *profile_map_free(struct profile_map *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n; i++)
                free(m->e[i].name);
        free(m->e);
        free(m);
        return NULL;
}

/* ---- folding ----------------------------------------------------------------------------- */

struct stack_count {
        char *key;
        uint64_t count;
};

struct profile_folder {
        bool jvm;
        const struct profile_map *map;
        /* the sample being read: its thread and frames, leaf first as perf prints them */
        bool in_sample;
        char comm[64];
        char *frames;                   /* names, each NUL-terminated, one after the other */
        size_t frames_len, frames_cap;
        size_t n_frames, n_dropped;
        bool all_kernel;
        /* distinct stacks: open addressing, a power of two, at most half full */
        struct stack_count *table;
        size_t table_cap, n_stacks;
        char *key;                      /* scratch for one folded stack */
        size_t key_cap;
        struct profile_fold_stats stats;
};

int profile_folder_new(bool jvm, const struct profile_map *map, struct profile_folder **ret) {
        _cleanup_(profile_folder_freep) struct profile_folder *f = calloc(1, sizeof *f);
        if (!f)
                return -ENOMEM;
        f->jvm = jvm;
        f->map = map;
        f->table_cap = 4096;
        f->table = calloc(f->table_cap, sizeof *f->table);
        if (!f->table)
                return -ENOMEM;
        *ret = TAKE_PTR(f);
        return 0;
}

struct profile_folder *profile_folder_free(struct profile_folder *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->table_cap; i++)
                free(f->table[i].key);
        free(f->table);
        free(f->frames);
        free(f->key);
        free(f);
        return NULL;
}

static uint64_t hash_key(const char *s) {
        uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * UINT64_C(1099511628211);
        return h;
}

static struct stack_count *slot_of(struct stack_count *table, size_t cap, const char *key) {
        size_t i = hash_key(key) & (cap - 1);
        while (table[i].key && strcmp(table[i].key, key) != 0)
                i = (i + 1) & (cap - 1);
        return &table[i];
}

static int grow(struct profile_folder *f) {
        size_t cap = f->table_cap * 2;
        struct stack_count *t = calloc(cap, sizeof *t);
        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < f->table_cap; i++)
                if (f->table[i].key)
                        *slot_of(t, cap, f->table[i].key) = f->table[i];
        free(f->table);
        f->table = t;
        f->table_cap = cap;
        return 0;
}

static int count_stack(struct profile_folder *f, const char *key) {
        struct stack_count *s = slot_of(f->table, f->table_cap, key);
        if (s->key) {
                s->count++;
                return 0;
        }
        if (f->n_stacks >= PROFILE_FOLD_STACKS_MAX) {
                f->stats.overflow++;
                return 0; /* the caller folds it into the group's overflow stack */
        }
        if ((f->n_stacks + 1) * 2 > f->table_cap) {
                int r = grow(f);
                if (r < 0)
                        return r;
                s = slot_of(f->table, f->table_cap, key);
        }
        if (!(s->key = strdup(key)))
                return -ENOMEM;
        s->count = 1;
        f->n_stacks++;
        return 0;
}

static int key_append(struct profile_folder *f, size_t *len, const char *s) {
        size_t l = strlen(s);
        if (*len + l + 2 > f->key_cap) {
                size_t cap = MAX(f->key_cap * 2, *len + l + 2 + 256);
                char *k = realloc(f->key, cap);
                if (!k)
                        return -ENOMEM;
                f->key = k;
                f->key_cap = cap;
        }
        if (*len > 0)
                f->key[(*len)++] = ';';
        memcpy(f->key + *len, s, l + 1);
        *len += l;
        return 0;
}

/* group;root;...;leaf of the sample read, then counted. */
static int end_sample(struct profile_folder *f) {
        if (!f->in_sample)
                return 0;
        f->in_sample = false;
        enum profile_group g = f->n_frames > 0 && f->all_kernel ? PROFILE_GROUP_KERNEL
                                                                : profile_group_of_comm(f->comm, f->jvm);
        const char *names[PROFILE_FOLD_DEPTH_MAX];
        size_t n = 0, len = 0;
        for (const char *p = f->frames; p < f->frames + f->frames_len; p += strlen(p) + 1)
                names[n++] = p;
        int r = key_append(f, &len, group_names[g]);
        if (r >= 0 && f->n_dropped > 0)
                r = key_append(f, &len, "[truncated]");
        for (size_t i = n; r >= 0 && i > 0; i--)
                r = key_append(f, &len, names[i - 1]);
        if (r >= 0 && n == 0)
                r = key_append(f, &len, "[no stack]");
        uint64_t overflow = f->stats.overflow;
        if (r >= 0)
                r = count_stack(f, f->key);
        if (r >= 0 && f->stats.overflow != overflow) {
                len = 0;
                r = key_append(f, &len, group_names[g]);
                if (r >= 0)
                        r = key_append(f, &len, "[too many stacks]");
                struct stack_count *s = r >= 0 ? slot_of(f->table, f->table_cap, f->key) : NULL;
                if (s && s->key)
                        s->count++;
                else if (s && f->n_stacks < PROFILE_FOLD_STACKS_MAX + _PROFILE_GROUP_MAX) {
                        /* one overflow stack per group may pass the bound */
                        if (!(s->key = strdup(f->key)))
                                return -ENOMEM;
                        s->count = 1;
                        f->n_stacks++;
                }
        }
        if (r < 0)
                return r;
        f->stats.samples++;
        f->stats.by_group[g]++;
        if (f->n_dropped > 0)
                f->stats.truncated++;
        return 0;
}

/* A name that cannot break the format: ';' separates frames, the last ' ' the count. */
static void sanitize(char *s) {
        for (; *s; s++)
                if (*s == ';' || (unsigned char) *s < 0x20)
                        *s = ':';
}

static int add_frame(struct profile_folder *f, const char *line, size_t len) {
        char buf[PROFILE_FOLD_LINE_MAX], *end;
        size_t i = strspn(line, " \t");
        len = MIN(len - i, sizeof buf - 1);
        memcpy(buf, line + i, len);
        buf[len] = '\0';
        errno = 0;
        uint64_t ip = strtoull(buf, &end, 16);
        if (errno || end == buf)
                return 0; /* not a frame line: skipped */
        const char *name = *end == ' ' ? end + 1 : end;
        if (name[0] == '\0' || strncmp(name, "[unknown]", 9) == 0) {
                const char *jit = profile_map_lookup(f->map, ip);
                name = jit ? jit : "[unknown]";
        }
        if (ip < KERNEL_IP_MIN)
                f->all_kernel = false;
        if (f->n_frames >= PROFILE_FOLD_DEPTH_MAX) {
                /* leaf first: drop the oldest kept (the leaf side), keep the root side */
                size_t first = strlen(f->frames) + 1;
                memmove(f->frames, f->frames + first, f->frames_len - first);
                f->frames_len -= first;
                f->n_frames--;
                f->n_dropped++;
        }
        size_t l = strlen(name) + 1;
        if (f->frames_len + l > f->frames_cap) {
                size_t cap = MAX(f->frames_cap * 2, f->frames_len + l + 1024);
                char *p = realloc(f->frames, cap);
                if (!p)
                        return -ENOMEM;
                f->frames = p;
                f->frames_cap = cap;
        }
        memcpy(f->frames + f->frames_len, name, l);
        sanitize(f->frames + f->frames_len);
        f->frames_len += l;
        f->n_frames++;
        return 0;
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
        f->in_sample = true;
        f->frames_len = 0;
        f->n_frames = f->n_dropped = 0;
        f->all_kernel = true;
}

int profile_folder_line(struct profile_folder *f, const char *line, size_t len) {
        len = MIN(len, (size_t) PROFILE_FOLD_LINE_MAX - 1);
        if (len == 0 || strspn(line, " \t") >= len)
                return end_sample(f);
        if (line[0] == ' ' || line[0] == '\t')
                return f->in_sample ? add_frame(f, line, len) : 0;
        int r = end_sample(f);
        if (r < 0)
                return r;
        begin_sample(f, line, len);
        return 0;
}

int profile_folder_read(struct profile_folder *f, FILE *in) {
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        int r;
        while ((n = getline(&line, &cap, in)) >= 0) {
                size_t len = (size_t) n;
                if (len > 0 && line[len - 1] == '\n')
                        len--;
                r = profile_folder_line(f, line, len);
                if (r < 0)
                        return r;
        }
        if (ferror(in))
                return -EIO;
        return end_sample(f);
}

static int cmp_key(const void *a, const void *b) {
        const struct stack_count *x = a, *y = b;
        return strcmp(x->key, y->key);
}

int profile_folder_write(struct profile_folder *f, FILE *out, size_t max_bytes) {
        _cleanup_free_ struct stack_count *sorted = calloc(f->n_stacks + 1, sizeof *sorted);
        size_t n = 0, bytes = 0;
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < f->table_cap; i++)
                if (f->table[i].key)
                        sorted[n++] = f->table[i];
        qsort(sorted, n, sizeof *sorted, cmp_key);
        for (size_t i = 0; i < n; i++) {
                int w = fprintf(out, "%s %" PRIu64 "\n", sorted[i].key, sorted[i].count);
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
