/* timeline-stats.c: counts by outcome and the latency figures of a timeline file. */
#include "injector/timeline-stats.h"

#include "basic/macro.h"

static void count_record(const struct timeline_record *r, void *userdata) {
        struct timeline_stats *st = userdata;
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
}

int timeline_stats_compute(int fd, off_t offset, uint64_t count, struct timeline_stats *ret) {
        const struct timeline_source src = { .fd = fd, .offset = offset, .count = count };
        struct timeline_stats st = { .records = 0 };
        int r = timeline_source_for_each(&src, count_record, &st);
        if (r < 0)
                return r;
        r = latency_stats_compute(&src, &st.latency);
        if (r < 0)
                return r;
        /* Sent is what lag counts: one rule, in latency_of(). */
        st.sent = st.latency.n[LATENCY_LAG];
        *ret = st;
        return 0;
}
