/* timeline-merge.c: a k-way merge of block-read files, with a linear pick (n is a few loops or
 * load hosts; the pick costs n compares a record, under the read and write of its 40 bytes). */
#include "basic/timeline-merge.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"

/* 80 KiB reads and writes: few syscalls, and n inputs' blocks stay in the cache. */
#define MERGE_BLOCK_RECORDS 2048u

struct part {
        int fd;
        off_t offset;
        int64_t shift_ns;
        uint32_t flags;
        struct timeline_record block[MERGE_BLOCK_RECORDS];
        size_t n, pos;
        bool eof;
};

/* 1 with a record at p->pos, 0 when the part is done, or a negative errno. */
static int part_fill(struct part *p) {
        if (p->pos < p->n)
                return 1;
        if (p->eof) /* no read per record for the parts that ended first */
                return 0;
        ssize_t got = read_full(p->fd, p->block, sizeof p->block, p->offset);
        if (got < 0)
                return (int) got;
        if (got % (ssize_t) sizeof(struct timeline_record) != 0)
                return -EIO;
        p->offset += got;
        p->n = (size_t) got / sizeof(struct timeline_record);
        p->pos = 0;
        p->eof = p->n == 0;
        if (p->shift_ns != 0 || p->flags != 0)
                for (size_t i = 0; i < p->n; i++) {
                        struct timeline_record *r = &p->block[i];
                        r->scheduled_ns -= p->shift_ns;
                        r->submit_ns -= p->shift_ns;
                        r->done_ns -= p->shift_ns;
                        r->flags |= p->flags;
                }
        return p->n > 0;
}

void timeline_merge_header_shift(struct timeline_header *h, int64_t shift_ns) {
        h->start_ns -= shift_ns;
        h->measure_start_ns -= shift_ns;
}

int timeline_merge(int out, const struct timeline_merge_input *in, unsigned n, uint64_t *ret) {
        _cleanup_free_ struct part *parts = calloc(n, sizeof *parts);
        _cleanup_free_ struct timeline_record *buf = calloc(MERGE_BLOCK_RECORDS, sizeof *buf);
        if (!parts || !buf)
                return -ENOMEM;
        for (unsigned i = 0; i < n; i++)
                parts[i] = (struct part){ .fd = in[i].fd, .offset = in[i].offset, .shift_ns = in[i].shift_ns,
                                          .flags = in[i].flags };
        for (unsigned i = 0; i < n; i++) {
                int r = part_fill(&parts[i]);
                if (r < 0)
                        return r;
        }
        uint64_t total = 0;
        size_t used = 0;
        for (;;) {
                /* only the part a record was taken from can run out: it alone is refilled */
                int best = -1;
                for (unsigned i = 0; i < n; i++)
                        if (parts[i].pos < parts[i].n &&
                            (best < 0 || parts[i].block[parts[i].pos].scheduled_ns < parts[best].block[parts[best].pos].scheduled_ns))
                                best = (int) i;
                if (best < 0 || used == MERGE_BLOCK_RECORDS) {
                        int r = write_full(out, buf, used * sizeof *buf);
                        if (r < 0)
                                return r;
                        total += used;
                        used = 0;
                        if (best < 0)
                                break;
                }
                buf[used++] = parts[best].block[parts[best].pos++];
                int r = part_fill(&parts[best]);
                if (r < 0)
                        return r;
        }
        *ret = total;
        return 0;
}

int timeline_merge_part_open(int fd) {
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof target - 1);
        const char *dir = "/tmp";
        if (len > 0 && target[0] == '/') {
                target[len] = '\0';
                dir = dirname(target);
        }
        int part = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (part < 0 && strcmp(dir, "/tmp") != 0)
                part = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        return part < 0 ? negative_errno() : part;
}
