/* timeline-stats.c: counts and exact percentiles of a timeline file. */
#include "injector/timeline-stats.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"

#define READ_RECORDS 16384
#define BUCKET_BITS 12
#define BUCKETS (1u << BUCKET_BITS)

const char *const percentile_names[_PCT_MAX] = { "p50", "p90", "p99", "p999", "p9999", "max" };
const char *const latency_kind_names[_LATENCY_MAX] = { "scheduled", "submit", "lag" };

/* In parts per 10000, so ranks are computed in integers: 0.99 * n in floating point may land
 * just above an integer and round the rank up by one. */
static const uint64_t percentile_parts[_PCT_MAX] = { 5000, 9000, 9900, 9990, 9999, 10000 };

uint64_t percentile_rank(enum percentile p, uint64_t n) {
        uint64_t r = (n * percentile_parts[p] + 9999) / 10000;
        return r == 0 ? 1 : r;
}

static bool latency_of(const struct timeline_record *r, enum latency_kind k, int64_t *ret) {
        if (r->flags & TIMELINE_WARMUP)
                return false;
        switch (k) {
        case LATENCY_SCHEDULED:
                if (r->status == 0)
                        return false;
                *ret = r->done_ns - r->scheduled_ns;
                return true;
        case LATENCY_SUBMIT:
                if (r->status == 0)
                        return false;
                *ret = r->done_ns - r->submit_ns;
                return true;
        case LATENCY_LAG:
                if (r->error == TIMELINE_ERR_NOT_SENT)
                        return false;
                *ret = r->submit_ns - r->scheduled_ns;
                return true;
        default:
                return false;
        }
}

/* One wanted rank of one latency: its value lies in [lo, hi], and it is the rank-th smallest of
 * the values in that range. */
struct target {
        enum latency_kind kind;
        uint64_t rank;
        int64_t lo, hi;
        unsigned shift;         /* this pass's bucket width is 2^shift */
};

struct reader {
        int fd;
        off_t offset;
        uint64_t count;
        struct timeline_record *buf;
};

/* Call fn for every record, in blocks of READ_RECORDS. */
static int for_each_record(struct reader *rd, void (*fn)(const struct timeline_record *, void *),
                           void *userdata) {
        for (uint64_t done = 0; done < rd->count;) {
                size_t want = (size_t) MIN((uint64_t) READ_RECORDS, rd->count - done);
                size_t bytes = want * sizeof(struct timeline_record);
                ssize_t got = read_full(rd->fd, rd->buf, bytes,
                                        rd->offset + (off_t) (done * sizeof(struct timeline_record)));
                if (got < 0)
                        return (int) got;
                if ((size_t) got < bytes)
                        return -EIO;   /* shorter than the caller said */
                for (size_t i = 0; i < want; i++)
                        fn(&rd->buf[i], userdata);
                done += want;
        }
        return 0;
}

struct count_pass {
        struct timeline_stats *st;
        int64_t min[_LATENCY_MAX], max[_LATENCY_MAX];
};

static void count_record(const struct timeline_record *r, void *userdata) {
        struct count_pass *c = userdata;
        struct timeline_stats *st = c->st;
        st->records++;
        if (r->flags & TIMELINE_WARMUP) {
                st->warmup++;
                return;
        }
        st->measured++;
        if (r->status == 0)
                st->errors[MIN((unsigned) r->error, (unsigned) _TIMELINE_ERR_MAX - 1)]++;
        else {
                st->status_class[MIN(r->status / 100u, 9u)]++;
                if (r->status >= 200 && r->status < 300)
                        st->ok++;
                else
                        st->http_errors++;
        }
        if (r->error != TIMELINE_ERR_NOT_SENT)
                st->sent++;
        for (int k = 0; k < _LATENCY_MAX; k++) {
                int64_t v;
                if (!latency_of(r, (enum latency_kind) k, &v))
                        continue;
                if (st->n[k] == 0 || v < c->min[k])
                        c->min[k] = v;
                if (st->n[k] == 0 || v > c->max[k])
                        c->max[k] = v;
                st->n[k]++;
        }
}

struct refine_pass {
        struct target *targets;
        size_t n_targets;
        uint64_t (*counts)[BUCKETS];
};

static void refine_record(const struct timeline_record *r, void *userdata) {
        struct refine_pass *p = userdata;
        int64_t v[_LATENCY_MAX];
        bool have[_LATENCY_MAX];
        for (int k = 0; k < _LATENCY_MAX; k++)
                have[k] = latency_of(r, (enum latency_kind) k, &v[k]);
        for (size_t i = 0; i < p->n_targets; i++) {
                struct target *t = &p->targets[i];
                if (t->lo == t->hi || !have[t->kind])
                        continue;
                int64_t x = v[t->kind];
                if (x < t->lo || x > t->hi)
                        continue;
                p->counts[i][((uint64_t) x - (uint64_t) t->lo) >> t->shift]++;
        }
}

static unsigned bit_length(uint64_t x) {
        return x == 0 ? 0 : 64 - (unsigned) __builtin_clzll(x);
}

/* After a pass: narrow each target to the bucket that holds its rank. */
static void narrow(struct target *t, const uint64_t *counts) {
        uint64_t below = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
                if (below + counts[b] >= t->rank) {
                        t->rank -= below;
                        uint64_t lo = (uint64_t) t->lo + ((uint64_t) b << t->shift);
                        uint64_t hi = lo + ((UINT64_C(1) << t->shift) - 1);
                        t->lo = (int64_t) lo;
                        if ((int64_t) hi < t->hi)
                                t->hi = (int64_t) hi;
                        return;
                }
                below += counts[b];
        }
}

int timeline_stats_compute(int fd, off_t offset, uint64_t count, struct timeline_stats *ret) {
        _cleanup_free_ struct timeline_record *buf = malloc(READ_RECORDS * sizeof *buf);
        if (!buf)
                return -ENOMEM;
        struct reader rd = { .fd = fd, .offset = offset, .count = count, .buf = buf };
        struct timeline_stats st = { .records = 0 };
        struct count_pass cp = { .st = &st };
        int r = for_each_record(&rd, count_record, &cp);
        if (r < 0)
                return r;

        struct target targets[_LATENCY_MAX * _PCT_MAX];
        size_t n_targets = 0;
        for (int k = 0; k < _LATENCY_MAX; k++)
                for (int p = 0; p < _PCT_MAX && st.n[k] > 0; p++)
                        targets[n_targets++] = (struct target){
                                .kind = (enum latency_kind) k,
                                .rank = percentile_rank((enum percentile) p, st.n[k]),
                                .lo = cp.min[k],
                                .hi = cp.max[k],
                        };
        _cleanup_free_ uint64_t (*counts)[BUCKETS] = calloc(MAX(n_targets, (size_t) 1), sizeof *counts);
        if (!counts)
                return -ENOMEM;
        for (;;) {
                bool open = false;
                for (size_t i = 0; i < n_targets; i++) {
                        struct target *t = &targets[i];
                        if (t->lo == t->hi)
                                continue;
                        open = true;
                        unsigned bits = bit_length((uint64_t) t->hi - (uint64_t) t->lo);
                        t->shift = bits > BUCKET_BITS ? bits - BUCKET_BITS : 0;
                        memset(counts[i], 0, sizeof counts[i]);
                }
                if (!open)
                        break;
                struct refine_pass rp = { .targets = targets, .n_targets = n_targets, .counts = counts };
                r = for_each_record(&rd, refine_record, &rp);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n_targets; i++)
                        if (targets[i].lo != targets[i].hi)
                                narrow(&targets[i], counts[i]);
        }
        size_t i = 0;
        for (int k = 0; k < _LATENCY_MAX; k++)
                for (int p = 0; p < _PCT_MAX && st.n[k] > 0; p++)
                        st.pct[k][p] = targets[i++].lo;
        *ret = st;
        return 0;
}
