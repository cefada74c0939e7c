/* timeline-merge.c: a k-way merge of block-read files, with a linear pick (n is a few loops). */
#include "injector/timeline-merge.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/timeline-format.h"
#include "injector/timeline-ring.h"

struct part {
        int fd;
        off_t offset;
        struct timeline_record block[TIMELINE_BLOCK_RECORDS];
        size_t n, pos;
};

/* 1 with a record at p->pos, 0 when the part is done, or a negative errno. */
static int part_fill(struct part *p) {
        if (p->pos < p->n)
                return 1;
        ssize_t got = read_full(p->fd, p->block, sizeof p->block, p->offset);
        if (got < 0)
                return (int) got;
        if (got % (ssize_t) sizeof(struct timeline_record) != 0)
                return -EIO;
        p->offset += got;
        p->n = (size_t) got / sizeof(struct timeline_record);
        p->pos = 0;
        return p->n > 0;
}

int timeline_merge(int out, const int *in, unsigned n, uint64_t *ret) {
        _cleanup_free_ struct part *parts = calloc(n, sizeof *parts);
        _cleanup_free_ struct timeline_record *buf = calloc(TIMELINE_BLOCK_RECORDS, sizeof *buf);
        if (!parts || !buf)
                return -ENOMEM;
        for (unsigned i = 0; i < n; i++)
                parts[i].fd = in[i];
        uint64_t total = 0;
        size_t used = 0;
        for (;;) {
                int best = -1;
                for (unsigned i = 0; i < n; i++) {
                        int r = part_fill(&parts[i]);
                        if (r < 0)
                                return r;
                        if (r > 0 && (best < 0 || parts[i].block[parts[i].pos].scheduled_ns <
                                                  parts[best].block[parts[best].pos].scheduled_ns))
                                best = (int) i;
                }
                if (best < 0 || used == TIMELINE_BLOCK_RECORDS) {
                        int r = write_full(out, buf, used * sizeof *buf);
                        if (r < 0)
                                return r;
                        total += used;
                        used = 0;
                        if (best < 0)
                                break;
                }
                buf[used++] = parts[best].block[parts[best].pos++];
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
