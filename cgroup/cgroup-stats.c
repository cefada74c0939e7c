/* cgroup-stats.c: parsers for the counters cgroupfs prints ("key value" lines, PSI lines),
 * shared by the v1 and v2 readers. Pure functions on text, no allocation. */
#include "cgroup/cgroup-internal.h"

#include <stdlib.h>
#include <string.h>

static const char *next_line(const char *line) {
        const char *nl = strchr(line, '\n');
        return nl ? nl + 1 : NULL;
}

int cg_parse_keyed(const char *text, const char *key, uint64_t *ret) {
        size_t klen = strlen(key);
        for (const char *line = text; line && *line; line = next_line(line)) {
                if (strncmp(line, key, klen) != 0 || line[klen] != ' ')
                        continue;
                const char *v = line + klen + 1;
                if (*v < '0' || *v > '9')
                        return -EBADMSG;
                char *end;
                errno = 0;
                unsigned long long n = strtoull(v, &end, 10);
                if (errno || (*end && *end != '\n'))
                        return -EBADMSG;
                *ret = n;
                return 0;
        }
        return -ENOENT;
}

/* One pass over the numbers; ns NULL only counts, so a bad text leaves ns untouched. */
static int percpu_pass(const char *p, uint64_t *ns, size_t *ret_n) {
        size_t n = 0;
        for (;;) {
                while (*p == ' ')
                        p++;
                if (*p == '\n' || *p == '\0')
                        break;
                if (*p < '0' || *p > '9' || n >= CPULIST_MAX)
                        return -EBADMSG;
                char *end;
                errno = 0;
                unsigned long long v = strtoull(p, &end, 10);
                if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
                        return -EBADMSG;
                if (ns)
                        ns[n] = v;
                n++;
                p = end;
        }
        if (n == 0)
                return -EBADMSG;
        *ret_n = n;
        return 0;
}

int cg_parse_percpu(const char *text, uint64_t *ns, size_t *ret_n) {
        size_t n;
        int r = percpu_pass(text, NULL, &n);
        return r < 0 ? r : percpu_pass(text, ns, ret_n);
}

int cg_v1_swap_bytes(bool has_memsw, uint64_t memsw_usage, uint64_t usage, const char *memory_stat, uint64_t *ret) {
        if (has_memsw) {
                /* the two are read one after the other: never a negative swap */
                *ret = memsw_usage > usage ? memsw_usage - usage : 0;
                return 0;
        }
        return memory_stat ? cg_parse_keyed(memory_stat, "swap", ret) : -ENOENT;
}

static int parse_psi_line(const char *line, struct psi_line *ret) {
        struct psi_line p = { .present = true };
        unsigned long long total;
        if (sscanf(line, "%*s avg10=%lf avg60=%lf avg300=%lf total=%llu", &p.avg10, &p.avg60,
                   &p.avg300, &total) != 4)
                return -EBADMSG;
        p.total_us = total;
        *ret = p;
        return 0;
}

int cg_parse_psi(const char *text, struct psi_line *some, struct psi_line *full) {
        struct psi_line s = { 0 }, f = { 0 };
        for (const char *line = text; line && *line; line = next_line(line)) {
                int r = 0;
                if (strncmp(line, "some ", 5) == 0)
                        r = parse_psi_line(line, &s);
                else if (strncmp(line, "full ", 5) == 0)
                        r = parse_psi_line(line, &f);
                if (r < 0)
                        return r;
        }
        if (!s.present)
                return -EBADMSG;
        *some = s;
        *full = f;
        return 0;
}

void cg_read_psi(const char *dir, const char *file, struct psi_line *some, struct psi_line *full) {
        char buf[512];
        *some = (struct psi_line){ 0 };
        *full = (struct psi_line){ 0 };
        if (cg_read_small(dir, file, buf, sizeof buf) < 0)
                return;
        (void) cg_parse_psi(buf, some, full);
}
