/* findings-tail.c: one pass over a run's timeline, in scheduled order, that finds its slowest
 * requests (at or above the run's p99 from scheduled) and which of them were in flight during
 * GC or safepoint pauses (covering at least 5% of their time in flight), or were scheduled in a
 * second in which the SUT's slice was throttled.
 * It keeps two cursors and nothing per request, so a timeline of any length streams through
 * in blocks (the store's, or a test's array). */
#include "findings/findings.h"

#include "basic/timeline-format.h"

void findings_tail_begin(struct findings_tail_scan *s, int64_t threshold_ns, const struct findings_span *pauses,
                         size_t n_pauses, const struct findings_span *throttled, size_t n_throttled,
                         bool have_throttle) {
        *s = (struct findings_tail_scan){
                .threshold_ns = threshold_ns,
                .pauses = pauses,
                .n_pauses = n_pauses,
                .throttled = throttled,
                .n_throttled = n_throttled,
                .result = { .have = true, .have_throttle = have_throttle },
        };
}

/* Whether pauses cover at least FINDINGS_PAUSE_SHARE of [from, to]. Pauses that ended before
 * `from` can never overlap a later request (they are scheduled no earlier), so the cursor only
 * moves forward; pauses may nest (a GC pause inside its safepoint), hence the scan from the
 * cursor to the first one starting after `to`, and the cover capped at the whole flight. A
 * share rather than any overlap: a request 100 ms in flight nearly always meets some
 * microsecond safepoint, which explains nothing about it. */
static bool in_pause(struct findings_tail_scan *s, int64_t from, int64_t to) {
        while (s->pause_pos < s->n_pauses && s->pauses[s->pause_pos].to_ns <= from)
                s->pause_pos++;
        int64_t covered = 0;
        for (size_t i = s->pause_pos; i < s->n_pauses && s->pauses[i].from_ns < to; i++) {
                int64_t a = s->pauses[i].from_ns > from ? s->pauses[i].from_ns : from;
                int64_t b = s->pauses[i].to_ns < to ? s->pauses[i].to_ns : to;
                if (b > a)
                        covered += b - a;
        }
        return covered > 0 && (double) covered >= FINDINGS_PAUSE_SHARE * (double) (to - from);
}

static bool in_throttled(struct findings_tail_scan *s, int64_t t) {
        while (s->throttled_pos < s->n_throttled && s->throttled[s->throttled_pos].to_ns <= t)
                s->throttled_pos++;
        return s->throttled_pos < s->n_throttled && s->throttled[s->throttled_pos].from_ns <= t;
}

void findings_tail_feed(struct findings_tail_scan *s, const struct timeline_record *r, size_t n) {
        for (size_t i = 0; i < n; i++) {
                if ((r[i].flags & TIMELINE_WARMUP) || r[i].status == 0)
                        continue;
                int64_t lat = r[i].done_ns - r[i].scheduled_ns;
                if (lat < s->threshold_ns)
                        continue;
                s->result.tail++;
                if (in_pause(s, r[i].scheduled_ns, r[i].done_ns))
                        s->result.in_pause++;
                if (in_throttled(s, r[i].scheduled_ns))
                        s->result.in_throttled++;
        }
}
