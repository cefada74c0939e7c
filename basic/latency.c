/* latency.c: which requests count for each latency, and their exact percentiles over a timeline
 * in memory or in a file. Definitions are in latency.h. */
#include "basic/latency.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/stats.h"

#define READ_RECORDS 16384
#define BUCKET_BITS 12
#define BUCKETS (1u << BUCKET_BITS)

const char *const percentile_names[_PCT_MAX] = { "p50", "p90", "p99", "p999", "p9999", "max" };
const char *const latency_kind_names[_LATENCY_MAX] = { "scheduled", "submit", "lag" };

static const double percentile_percent[_PCT_MAX] = { 50, 90, 99, 99.9, 99.99, 100 };

uint64_t percentile_rank(enum percentile p, uint64_t n) {
        return MAX((uint64_t) stats_nearest_rank((size_t) n, percentile_percent[p]), UINT64_C(1));
}

bool latency_of(const struct timeline_record *r, enum latency_kind k, int64_t *ret) {
        int64_t v;
        bool counts;
        if (r->flags & TIMELINE_WARMUP)
                return false;
        /* A difference past int64 is no clock's (a record read from a store or a file that no
         * injector wrote): it counts for nothing rather than wrap. */
        switch (k) {
        case LATENCY_SCHEDULED:
                counts = r->status != 0 && !__builtin_sub_overflow(r->done_ns, r->scheduled_ns, &v);
                break;
        case LATENCY_SUBMIT:
                counts = r->status != 0 && !__builtin_sub_overflow(r->done_ns, r->submit_ns, &v);
                break;
        case LATENCY_LAG:
                /* A request never sent has no submit time (it holds the end of the run). */
                counts = r->error != TIMELINE_ERR_NOT_SENT && !__builtin_sub_overflow(r->submit_ns, r->scheduled_ns, &v);
                break;
        default:
                return false;
        }
        if (counts)
                *ret = v;
        return counts;
}

static int for_each_in_file(const struct timeline_source *src,
                            void (*fn)(const struct timeline_record *, void *), void *userdata) {
        _cleanup_free_ struct timeline_record *buf = malloc(READ_RECORDS * sizeof *buf);
        if (!buf)
                return -ENOMEM;
        for (uint64_t done = 0; done < src->count;) {
                size_t want = (size_t) MIN((uint64_t) READ_RECORDS, src->count - done);
                size_t bytes = want * sizeof(struct timeline_record);
                ssize_t got = read_full(src->fd, buf, bytes,
                                        src->offset + (off_t) (done * sizeof(struct timeline_record)));
                if (got < 0)
                        return (int) got;
                if ((size_t) got < bytes)
                        return -EIO;   /* shorter than the caller said */
                for (size_t i = 0; i < want; i++)
                        fn(&buf[i], userdata);
                done += want;
        }
        return 0;
}

int timeline_source_for_each(const struct timeline_source *src,
                             void (*fn)(const struct timeline_record *, void *), void *userdata) {
        if (!src->records)
                return for_each_in_file(src, fn, userdata);
        for (uint64_t i = 0; i < src->count; i++)
                fn(&src->records[i], userdata);
        return 0;
}

/* One wanted rank of one latency: its value lies in [lo, hi], and it is the rank-th smallest of
 * the values in that range. */
struct target {
        enum latency_kind kind;
        uint64_t rank;
        int64_t lo, hi;
        unsigned shift;         /* this pass's bucket width is 2^shift */
};

struct count_pass {
        struct latency_stats *st;
        int64_t min[_LATENCY_MAX], max[_LATENCY_MAX];
};

static void count_record(const struct timeline_record *r, void *userdata) {
        struct count_pass *c = userdata;
        for (int k = 0; k < _LATENCY_MAX; k++) {
                int64_t v;
                if (!latency_of(r, (enum latency_kind) k, &v))
                        continue;
                if (c->st->n[k] == 0 || v < c->min[k])
                        c->min[k] = v;
                if (c->st->n[k] == 0 || v > c->max[k])
                        c->max[k] = v;
                c->st->n[k]++;
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

/* Size each open target's buckets for the next pass: false when none is open. */
static bool plan_pass(struct target *targets, size_t n_targets, uint64_t (*counts)[BUCKETS]) {
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
        return open;
}

static size_t make_targets(const struct count_pass *cp, struct target *targets) {
        size_t n = 0;
        for (int k = 0; k < _LATENCY_MAX; k++)
                for (int p = 0; p < _PCT_MAX && cp->st->n[k] > 0; p++) {
                        uint64_t rank = percentile_rank((enum percentile) p, cp->st->n[k]);
                        /* The last rank is the maximum the count found: no pass needed. */
                        targets[n++] = (struct target){
                                .kind = (enum latency_kind) k,
                                .rank = rank,
                                .lo = rank == cp->st->n[k] ? cp->max[k] : cp->min[k],
                                .hi = cp->max[k],
                        };
                }
        return n;
}

int latency_stats_compute(const struct timeline_source *src, struct latency_stats *ret) {
        struct latency_stats st = { .n = { 0 } };
        struct count_pass cp = { .st = &st };
        int r = timeline_source_for_each(src, count_record, &cp);
        if (r < 0)
                return r;

        struct target targets[_LATENCY_MAX * _PCT_MAX];
        size_t n_targets = make_targets(&cp, targets);
        _cleanup_free_ uint64_t (*counts)[BUCKETS] =
                calloc(MAX(n_targets, (size_t) 1), sizeof *counts);
        if (!counts)
                return -ENOMEM;
        while (plan_pass(targets, n_targets, counts)) {
                struct refine_pass rp = { .targets = targets, .n_targets = n_targets,
                                          .counts = counts };
                r = timeline_source_for_each(src, refine_record, &rp);
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
