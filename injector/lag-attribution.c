/* lag-attribution.c: the ideal injector's replay (lag-attribution.h). Each loop's connections
 * are a min-heap of the times they come free; a request takes the top, the earliest. Before it,
 * two passes find each loop's stalls: the span of the run's events, then a map of the buckets in
 * which the loop sent or received something; runs of empty buckets make the stalls. */
#include "injector/lag-attribution.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"

/* Buckets [from, to) of one loop's map in which it neither sent nor received anything. */
struct stall {
        uint64_t from, to;
};

/* Where the events fall: loop i's buckets are bits [i * n, (i + 1) * n) of map. */
struct activity {
        uint64_t *map;
        int64_t t0, width;
        uint64_t n;
        unsigned threads;
};

struct span {
        int64_t first, last;
        bool any;
};

struct replay {
        int64_t *free_ns;       /* every loop's heap, one after another */
        unsigned *heap_at;      /* loop i's heap starts at free_ns[heap_at[i]] */
        unsigned *heap_len;
        const struct activity *act;
        const struct stall *stalls;
        size_t *stall_next;     /* loop i: its first stall that may still cover a request's wait */
        size_t *stall_counted;  /* loop i: its stalls before this one are in its debt */
        int64_t *debt_ns;       /* loop i: time its stalls took since it was last on time */
        const size_t *stall_end;
        unsigned threads;
        struct lag_attribution result;
};

static bool was_sent(const struct timeline_record *r) {
        return r->error != TIMELINE_ERR_NOT_SENT;
}

static void span_record(const struct timeline_record *r, void *userdata) {
        struct span *s = userdata;
        if (!was_sent(r))
                return;
        int64_t lo = MIN(r->scheduled_ns, MIN(r->submit_ns, r->done_ns));
        int64_t hi = MAX(r->submit_ns, r->done_ns);
        s->first = s->any ? MIN(s->first, lo) : lo;
        s->last = s->any ? MAX(s->last, hi) : hi;
        s->any = true;
}

static uint64_t bucket_of(const struct activity *a, int64_t t) {
        return MIN(((uint64_t) t - (uint64_t) a->t0) / (uint64_t) a->width, a->n - 1);
}

static void mark(struct activity *a, unsigned loop, int64_t t) {
        uint64_t bit = (uint64_t) loop * a->n + bucket_of(a, t);
        a->map[bit / 64] |= UINT64_C(1) << (bit % 64);
}

static void mark_record(const struct timeline_record *r, void *userdata) {
        struct activity *a = userdata;
        if (!was_sent(r))
                return;
        mark(a, r->conn % a->threads, r->submit_ns);
        mark(a, r->conn % a->threads, r->done_ns);
}

static bool is_marked(const struct activity *a, unsigned loop, uint64_t b) {
        uint64_t bit = (uint64_t) loop * a->n + b;
        return a->map[bit / 64] >> (bit % 64) & 1;
}

/* Loop's runs of at least min_run empty buckets, into out (when not NULL); their number. */
static size_t find_stalls(const struct activity *a, unsigned loop, uint64_t min_run, struct stall *out) {
        size_t found = 0;
        uint64_t from = 0;
        for (uint64_t b = 0; b <= a->n; b++) {
                if (b < a->n && !is_marked(a, loop, b))
                        continue;
                if (b - from >= min_run) {
                        if (out)
                                out[found] = (struct stall){ from, b };
                        found++;
                }
                from = b + 1;
        }
        return found;
}

/* Lengths saturate: only a timeline written wrong spans long enough to overflow. */
static int64_t add_saturating(int64_t a, int64_t b) {
        int64_t sum;
        return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

static int64_t stall_length_ns(const struct activity *a, const struct stall *s) {
        int64_t ns;
        return __builtin_mul_overflow((int64_t) (s->to - s->from), a->width, &ns) ? INT64_MAX : ns;
}

/* Whether a request of loop, due at scheduled and sent at submit, waited through a stall; the
 * stalls it waited through go into the loop's debt once each. Requests come in schedule order,
 * so stalls that ended before one was due are passed for good. */
static bool waited_through_stall(struct replay *p, unsigned loop, int64_t scheduled, int64_t submit) {
        if (!p->act)
                return false;
        uint64_t due = bucket_of(p->act, scheduled), sent = bucket_of(p->act, submit);
        size_t *next = &p->stall_next[loop], *counted = &p->stall_counted[loop];
        while (*next < p->stall_end[loop] && p->stalls[*next].to <= due)
                (*next)++;
        *counted = MAX(*counted, *next);
        for (; *counted < p->stall_end[loop] && p->stalls[*counted].from < sent; (*counted)++) {
                int64_t took = stall_length_ns(p->act, &p->stalls[*counted]);
                p->debt_ns[loop] = add_saturating(p->debt_ns[loop], took);
                p->result.stalls++;
                p->result.stalls_ns = add_saturating(p->result.stalls_ns, took);
                p->result.stall_max_ns = MAX(p->result.stall_max_ns, took);
        }
        return *next < p->stall_end[loop] && p->stalls[*next].from < sent;
}

/* A late request the injector had a free connection for: stalled when it waited through a
 * stall, or came after one while the loop was still catching up and its lag is within the time
 * the loop's stalls took since it was last on time (the backlog they left, drained at the
 * injector's finite pace); beyond that debt, the injector fell behind by itself. */
static bool late_through_stalls(struct replay *p, unsigned loop, const struct timeline_record *r, int64_t lag) {
        bool through = waited_through_stall(p, loop, r->scheduled_ns, r->submit_ns);
        return through || (p->debt_ns[loop] > 0 && lag - LATENCY_LATE_NS <= p->debt_ns[loop]);
}

static void sift_down(int64_t *h, unsigned n, unsigned i) {
        for (;;) {
                unsigned l = 2 * i + 1, r = l + 1, m = i;
                if (l < n && h[l] < h[m])
                        m = l;
                if (r < n && h[r] < h[m])
                        m = r;
                if (m == i)
                        return;
                int64_t t = h[i];
                h[i] = h[m];
                h[m] = t;
                i = m;
        }
}

static void replay_record(const struct timeline_record *r, void *userdata) {
        struct replay *p = userdata;
        if (!was_sent(r))
                return;   /* never held a connection */
        unsigned loop = r->conn % p->threads;
        int64_t *heap = p->free_ns + p->heap_at[loop];
        if (p->heap_len[loop] == 0)
                return;
        int64_t ideal_submit = MAX(r->scheduled_ns, heap[0]);
        heap[0] = ideal_submit + MAX(r->done_ns - r->submit_ns, INT64_C(0));
        sift_down(heap, p->heap_len[loop], 0);
        int64_t lag;
        if (!latency_of(r, LATENCY_LAG, &lag))
                return;
        if (lag <= LATENCY_LATE_NS) {
                p->debt_ns[loop] = 0;   /* on time again: whatever the stalls left is drained */
                return;
        }
        p->result.late++;
        if (ideal_submit - r->scheduled_ns > LATENCY_LATE_NS)
                p->result.late_server++;
        else if (late_through_stalls(p, loop, r, lag))
                p->result.late_stalled++;
}

/* The activity map of src's sent records; a->map stays NULL when none was sent. */
static int map_activity(const struct timeline_source *src, unsigned threads, struct activity *a) {
        struct span s = { 0 };
        int r = timeline_source_for_each(src, span_record, &s);
        if (r < 0 || !s.any)
                return r;
        /* Unsigned: a span past INT64_MAX, from a record written wrong, must not overflow. */
        uint64_t span = (uint64_t) s.last - (uint64_t) s.first + 1, per_loop = LAG_MAP_BITS / threads;
        a->t0 = s.first;
        a->width = (int64_t) MAX((uint64_t) LAG_BUCKET_NS, span / per_loop + 1);
        a->threads = threads;
        a->n = span / (uint64_t) a->width + 1;
        a->map = calloc((a->n * threads + 63) / 64, sizeof *a->map);
        if (!a->map)
                return -ENOMEM;
        return timeline_source_for_each(src, mark_record, a);
}

/* Every loop's stalls, one loop after another; stall_at[i] .. stall_at[i + 1] are loop i's. */
static int list_stalls(const struct activity *a, size_t *stall_at, struct stall **ret) {
        uint64_t min_run = MAX((uint64_t) 1, ((uint64_t) LAG_STALL_NS + (uint64_t) a->width - 1) / (uint64_t) a->width);
        stall_at[0] = 0;
        for (unsigned i = 0; i < a->threads; i++)
                stall_at[i + 1] = stall_at[i] + find_stalls(a, i, min_run, NULL);
        struct stall *list = calloc(MAX(stall_at[a->threads], (size_t) 1), sizeof *list);
        if (!list)
                return -ENOMEM;
        for (unsigned i = 0; i < a->threads; i++)
                find_stalls(a, i, min_run, list + stall_at[i]);
        *ret = list;
        return 0;
}

int lag_attribution_compute(const struct timeline_source *src, unsigned connections, unsigned threads,
                            struct lag_attribution *ret) {
        if (connections == 0 || threads == 0)
                return -EINVAL;
        _cleanup_free_ int64_t *free_ns = calloc(connections, sizeof *free_ns);
        _cleanup_free_ unsigned *heap_at = calloc(threads, sizeof *heap_at);
        _cleanup_free_ unsigned *heap_len = calloc(threads, sizeof *heap_len);
        _cleanup_free_ size_t *stall_at = calloc(threads + 1, sizeof *stall_at);
        _cleanup_free_ size_t *stall_next = calloc(threads, sizeof *stall_next);
        _cleanup_free_ size_t *stall_counted = calloc(threads, sizeof *stall_counted);
        _cleanup_free_ int64_t *debt_ns = calloc(threads, sizeof *debt_ns);
        if (!free_ns || !heap_at || !heap_len || !stall_at || !stall_next || !stall_counted || !debt_ns)
                return -ENOMEM;
        /* Connection i belongs to loop i % threads; every one is free from the start. */
        for (unsigned i = 0; i < connections; i++) {
                heap_len[i % threads]++;
                free_ns[i] = INT64_MIN;
        }
        for (unsigned i = 1; i < threads; i++)
                heap_at[i] = heap_at[i - 1] + heap_len[i - 1];
        struct activity act = { 0 };
        int r = map_activity(src, threads, &act);
        _cleanup_free_ uint64_t *map = act.map;
        if (r < 0)
                return r;
        _cleanup_free_ struct stall *stalls = NULL;
        if (map) {
                r = list_stalls(&act, stall_at, &stalls);
                if (r < 0)
                        return r;
                memcpy(stall_next, stall_at, threads * sizeof *stall_next);
        }
        struct replay p = { .free_ns = free_ns, .heap_at = heap_at, .heap_len = heap_len, .act = map ? &act : NULL,
                            .stalls = stalls, .stall_next = stall_next, .stall_counted = stall_counted, .debt_ns = debt_ns,
                            .stall_end = stall_at + 1, .threads = threads };
        r = timeline_source_for_each(src, replay_record, &p);
        if (r < 0)
                return r;
        *ret = p.result;
        return 0;
}
