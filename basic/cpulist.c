/* cpulist.c: parsing and set operations on Linux cpulist strings. */
#include "basic/cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/macro.h"

static int parse_cpu_number(const char **p, unsigned *ret) {
        if (!isdigit((unsigned char) **p))
                return -EINVAL;
        unsigned long v = 0;
        while (isdigit((unsigned char) **p)) {
                v = v * 10 + (unsigned long) (**p - '0');
                if (v >= CPULIST_MAX)
                        return -ERANGE;
                (*p)++;
        }
        *ret = (unsigned) v;
        return 0;
}

int cpulist_parse(const char *s, struct cpulist *ret) {
        struct cpulist c = { 0 };
        const char *p = s;
        if (!s || !*s)
                return -EINVAL;
        for (;;) {
                unsigned lo, hi;
                int r = parse_cpu_number(&p, &lo);
                if (r < 0)
                        return r;
                hi = lo;
                if (*p == '-') {
                        p++;
                        r = parse_cpu_number(&p, &hi);
                        if (r < 0)
                                return r;
                        if (hi < lo)
                                return -EINVAL;
                }
                for (unsigned i = lo; i <= hi; i++)
                        cpulist_set(&c, i);
                if (*p == '\0')
                        break;
                if (*p != ',')
                        return -EINVAL;
                p++;
        }
        *ret = c;
        return 0;
}

int cpulist_format(const struct cpulist *c, char *buf, size_t size) {
        size_t len = 0;
        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        for (int lo = cpulist_next(c, -1); lo >= 0;) {
                int hi = lo;
                while (hi + 1 < CPULIST_MAX && cpulist_test(c, (unsigned) hi + 1))
                        hi++;
                int n = hi == lo ? snprintf(buf + len, size - len, "%s%d", len ? "," : "", lo)
                                 : snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", lo, hi);
                if (n < 0 || (size_t) n >= size - len)
                        return -ENOBUFS;
                len += (size_t) n;
                lo = cpulist_next(c, hi);
        }
        return 0;
}

int cpulist_read_file(const char *path, struct cpulist *ret) {
        _cleanup_free_ char *line = NULL;
        int r = read_one_line(path, &line);
        if (r < 0)
                return r;
        if (line[0] == '\0') {
                *ret = (struct cpulist){ 0 };
                return 0;
        }
        return cpulist_parse(line, ret);
}

int cpulist_read_online(struct cpulist *ret) {
        return cpulist_read_file("/sys/devices/system/cpu/online", ret);
}

void cpulist_set(struct cpulist *c, unsigned cpu) {
        if (cpu < CPULIST_MAX)
                c->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

bool cpulist_test(const struct cpulist *c, unsigned cpu) {
        return cpu < CPULIST_MAX && (c->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cpulist_count(const struct cpulist *c) {
        unsigned n = 0;
        for (size_t i = 0; i < ELEMENTSOF(c->bits); i++)
                n += (unsigned) __builtin_popcountll(c->bits[i]);
        return n;
}

bool cpulist_is_subset(const struct cpulist *sub, const struct cpulist *of) {
        for (size_t i = 0; i < ELEMENTSOF(sub->bits); i++)
                if (sub->bits[i] & ~of->bits[i])
                        return false;
        return true;
}

bool cpulist_intersects(const struct cpulist *a, const struct cpulist *b) {
        for (size_t i = 0; i < ELEMENTSOF(a->bits); i++)
                if (a->bits[i] & b->bits[i])
                        return true;
        return false;
}

void cpulist_union(struct cpulist *into, const struct cpulist *other) {
        for (size_t i = 0; i < ELEMENTSOF(into->bits); i++)
                into->bits[i] |= other->bits[i];
}

int cpulist_next(const struct cpulist *c, int prev) {
        for (unsigned i = (unsigned) (prev + 1); i < CPULIST_MAX; i++) {
                uint64_t w = c->bits[i / 64] >> (i % 64);
                if (w == 0) {
                        i = (i / 64) * 64 + 63; /* skip the rest of this word */
                        continue;
                }
                return (int) (i + (unsigned) __builtin_ctzll(w));
        }
        return -1;
}
