/* timeline-ring.c: ordering and block-writing the per-request records. */
#include "injector/timeline-ring.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"

int timeline_ring_write_header(int fd, int64_t start_ns, int64_t measure_start_ns) {
        struct timeline_header h = timeline_header_make(start_ns, measure_start_ns);
        return write_full(fd, &h, sizeof h);
}

int timeline_ring_rewrite_header(int fd, int64_t start_ns, int64_t measure_start_ns) {
        /* On Linux, pwrite() to an O_APPEND file appends whatever the offset: the flag is off
         * for the write (nothing else writes the file now: the loops are done). */
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0)
                return negative_errno();
        if ((fl & O_APPEND) && fcntl(fd, F_SETFL, fl & ~O_APPEND) < 0)
                return negative_errno();
        struct timeline_header h = timeline_header_make(start_ns, measure_start_ns);
        ssize_t n;
        do
                n = pwrite(fd, &h, sizeof h, 0);
        while (n < 0 && errno == EINTR);
        int r = n < 0 ? negative_errno() : n != (ssize_t) sizeof h ? -EIO : 0;
        if ((fl & O_APPEND) && fcntl(fd, F_SETFL, fl) < 0 && r == 0)
                r = negative_errno();
        return r;
}

int timeline_ring_init(struct timeline_ring *r, int fd, uint64_t capacity) {
        uint64_t cap = 2 * TIMELINE_BLOCK_RECORDS;
        while (cap < capacity && cap < (UINT64_C(1) << 40))
                cap <<= 1;
        struct timeline_record *records = calloc(cap, sizeof *records);
        atomic_uchar *ready = calloc(cap, sizeof *ready);
        if (!records || !ready) {
                free(records);
                free(ready);
                return -ENOMEM;
        }
        *r = (struct timeline_ring){
                .records = records,
                .ready = ready,
                .capacity = cap,
                .mask = cap - 1,
                .fd = fd,
        };
        atomic_init(&r->flushed, 0);
        atomic_init(&r->discarded, 0);
        pthread_mutex_init(&r->flush_lock, NULL);
        return 0;
}

void timeline_ring_done(struct timeline_ring *r) {
        if (!r->records)
                return;
        free(r->records);
        free((void *) r->ready);
        pthread_mutex_destroy(&r->flush_lock);
        r->records = NULL;
        r->ready = NULL;
}

void timeline_ring_discard(struct timeline_ring *r, uint64_t k) {
        atomic_fetch_add_explicit(&r->discarded, 1, memory_order_relaxed);
        atomic_store_explicit(&r->ready[k & r->mask], RING_DISCARDED, memory_order_release);
}

static int writev_all(int fd, struct iovec *iov, int n) {
        while (n > 0) {
                ssize_t k = writev(fd, iov, MIN(n, IOV_MAX));
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                while (n > 0 && (size_t) k >= iov->iov_len) {
                        k -= (ssize_t) iov->iov_len;
                        iov++;
                        n--;
                }
                if (n > 0) {
                        iov->iov_base = (char *) iov->iov_base + k;
                        iov->iov_len -= (size_t) k;
                }
        }
        return 0;
}

/* Write records [from, from + n) of the ring, which do not wrap; discarded ones are left out
 * (rare: at most one per loop, at a stop, so the slow path is a writev around them). */
static int write_records(struct timeline_ring *r, uint64_t from, uint64_t n) {
        struct timeline_record *first = timeline_ring_slot(r, from);
        if (atomic_load_explicit(&r->discarded, memory_order_relaxed) == 0) {
                r->written += n;
                return write_full(r->fd, first, n * sizeof *first);
        }
        struct iovec iov[64];
        int niov = 0;
        uint64_t run = 0;
        for (uint64_t i = 0; i <= n; i++) {
                bool keep = i < n && atomic_load_explicit(&r->ready[(from + i) & r->mask],
                                                          memory_order_relaxed) == RING_READY;
                if (keep) {
                        run++;
                        continue;
                }
                if (run > 0) {
                        if (niov == (int) ELEMENTSOF(iov)) {
                                int e = writev_all(r->fd, iov, niov);
                                if (e < 0)
                                        return e;
                                niov = 0;
                        }
                        iov[niov++] = (struct iovec){ .iov_base = first + i - run, .iov_len = run * sizeof *first };
                        r->written += run;
                        run = 0;
                }
        }
        return writev_all(r->fd, iov, niov);
}

static int flush_locked(struct timeline_ring *r, bool all) {
        uint64_t flushed = atomic_load_explicit(&r->flushed, memory_order_relaxed);
        while (r->scanned < flushed + r->capacity &&
               atomic_load_explicit(&r->ready[r->scanned & r->mask], memory_order_acquire))
                r->scanned++;
        while (r->error == 0) {
                uint64_t pending = r->scanned - flushed;
                uint64_t to_boundary = TIMELINE_BLOCK_RECORDS - flushed % TIMELINE_BLOCK_RECORDS;
                if (pending == 0 || (pending < to_boundary && !all))
                        break;
                /* One block, never past the end of the ring (blocks tile it exactly). */
                uint64_t n = MIN(pending, to_boundary);
                n = MIN(n, r->capacity - (flushed & r->mask));
                int e = write_records(r, flushed, n);
                if (e < 0) {
                        r->error = e;
                        break;
                }
                for (uint64_t k = flushed; k < flushed + n; k++)
                        atomic_store_explicit(&r->ready[k & r->mask], RING_EMPTY, memory_order_relaxed);
                flushed += n;
                atomic_store_explicit(&r->flushed, flushed, memory_order_release);
        }
        return r->error;
}

int timeline_ring_try_flush(struct timeline_ring *r, bool all) {
        if (all)
                pthread_mutex_lock(&r->flush_lock);
        else if (pthread_mutex_trylock(&r->flush_lock) != 0)
                return 0;
        int e = flush_locked(r, all);
        pthread_mutex_unlock(&r->flush_lock);
        return e;
}
