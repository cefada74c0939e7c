/* findings-tail.c: one pass over a run's timeline, in scheduled order, that finds its slowest
 * requests (at or above the run's p99 from scheduled) and which of them were in flight during
 * GC or safepoint pauses (covering at least 5% of their time in flight), or were scheduled in a
 * second in which the SUT's slice was throttled.
 * It keeps the pauses' union with its running length and a cursor over the throttled seconds,
 * nothing per request, so a timeline of any length streams through in blocks (the store's, or a
 * test's array), and every figure of it (a flight of years, a million pauses) costs a lookup. */
#include "findings/findings.h"

#include <errno.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/timeline-format.h"

static int span_cmp(const void *a, const void *b) {
        const struct findings_span *x = a, *y = b;
        return x->from_ns < y->from_ns ? -1 : x->from_ns > y->from_ns;
}

/* The union of the pauses, in order, and the time each of its spans has before it. Pauses may
 * nest (a GC pause inside its safepoint): a nested one adds nothing to what the outer covers. */
static int pauses_union(struct findings_tail_scan *s, const struct findings_span *pauses, size_t n) {
        struct findings_span *u = malloc(MAX(n, (size_t) 1) * sizeof *u);
        uint64_t *covered = malloc(MAX(n, (size_t) 1) * sizeof *covered);
        if (!u || !covered) {
                free(u);
                free(covered);
                return -ENOMEM;
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (pauses[i].to_ns > pauses[i].from_ns)
                        u[k++] = pauses[i];
        qsort(u, k, sizeof *u, span_cmp);
        size_t m = 0;
        uint64_t before = 0;
        for (size_t i = 0; i < k; i++) {
                if (m > 0 && u[i].from_ns <= u[m - 1].to_ns) {
                        u[m - 1].to_ns = MAX(u[m - 1].to_ns, u[i].to_ns);
                        continue;
                }
                if (m > 0)
                        before += (uint64_t) u[m - 1].to_ns - (uint64_t) u[m - 1].from_ns;
                covered[m] = before;
                u[m++] = u[i];
        }
        s->pauses = u;
        s->covered = covered;
        s->n_pauses = m;
        return 0;
}

int findings_tail_begin(struct findings_tail_scan *s, int64_t threshold_ns, const struct findings_span *pauses,
                        size_t n_pauses, const struct findings_span *throttled, size_t n_throttled,
                        bool have_throttle) {
        struct findings_tail_scan n = {
                .threshold_ns = threshold_ns,
                .throttled = throttled,
                .n_throttled = n_throttled,
                .result = { .have = true, .have_throttle = have_throttle },
        };
        int r = pauses_union(&n, pauses, n_pauses);
        if (r < 0)
                return r;
        *s = n;
        return 0;
}

void findings_tail_done(struct findings_tail_scan *s) {
        free(s->pauses);
        free(s->covered);
        s->pauses = NULL;
        s->covered = NULL;
        s->n_pauses = 0;
}

/* The union's time before t: the spans that start before t, the last of them cut at t. */
static uint64_t covered_before(const struct findings_tail_scan *s, int64_t t) {
        size_t lo = 0, hi = s->n_pauses;        /* the first span starting at or after t */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (s->pauses[mid].from_ns < t)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo == 0)
                return 0;
        const struct findings_span *p = &s->pauses[lo - 1];
        return s->covered[lo - 1] + ((uint64_t) MIN(t, p->to_ns) - (uint64_t) p->from_ns);
}

/* Whether pauses cover at least FINDINGS_PAUSE_SHARE of [from, to]. A share rather than any
 * overlap: a request 100 ms in flight nearly always meets some microsecond safepoint, which
 * explains nothing about it. */
static bool in_pause(const struct findings_tail_scan *s, int64_t from, int64_t to) {
        if (to <= from)
                return false;
        uint64_t covered = covered_before(s, to) - covered_before(s, from);
        return covered > 0 && (double) covered >= FINDINGS_PAUSE_SHARE * (double) ((uint64_t) to - (uint64_t) from);
}

static bool in_throttled(struct findings_tail_scan *s, int64_t t) {
        while (s->throttled_pos < s->n_throttled && s->throttled[s->throttled_pos].to_ns <= t)
                s->throttled_pos++;
        return s->throttled_pos < s->n_throttled && s->throttled[s->throttled_pos].from_ns <= t;
}

void findings_tail_feed(struct findings_tail_scan *s, const struct timeline_record *r, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int64_t lat;
                if ((r[i].flags & TIMELINE_WARMUP) || r[i].status == 0 ||
                    __builtin_sub_overflow(r[i].done_ns, r[i].scheduled_ns, &lat) || lat < s->threshold_ns)
                        continue;
                s->result.tail++;
                if (in_pause(s, r[i].scheduled_ns, r[i].done_ns))
                        s->result.in_pause++;
                if (in_throttled(s, r[i].scheduled_ns))
                        s->result.in_throttled++;
        }
}
