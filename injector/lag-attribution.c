/* lag-attribution.c: the ideal injector's replay (lag-attribution.h). Each loop's connections
 * are a min-heap of the times they come free; a request takes the top, the earliest. */
#include "injector/lag-attribution.h"

#include <errno.h>
#include <stdlib.h>

#include "basic/macro.h"

struct replay {
        int64_t *free_ns;       /* every loop's heap, one after another */
        unsigned *heap_at;      /* loop i's heap starts at free_ns[heap_at[i]] */
        unsigned *heap_len;
        unsigned threads;
        struct lag_attribution result;
};

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
        if (r->error == TIMELINE_ERR_NOT_SENT || p->threads == 0)
                return;   /* never held a connection */
        unsigned loop = r->conn % p->threads;
        int64_t *heap = p->free_ns + p->heap_at[loop];
        if (p->heap_len[loop] == 0)
                return;
        int64_t ideal_submit = MAX(r->scheduled_ns, heap[0]);
        heap[0] = ideal_submit + MAX(r->done_ns - r->submit_ns, INT64_C(0));
        sift_down(heap, p->heap_len[loop], 0);
        int64_t lag;
        if (!latency_of(r, LATENCY_LAG, &lag) || lag <= LATENCY_LATE_NS)
                return;
        p->result.late++;
        p->result.late_server += ideal_submit - r->scheduled_ns > LATENCY_LATE_NS;
}

int lag_attribution_compute(const struct timeline_source *src, unsigned connections, unsigned threads,
                            struct lag_attribution *ret) {
        if (connections == 0 || threads == 0)
                return -EINVAL;
        _cleanup_free_ int64_t *free_ns = calloc(connections, sizeof *free_ns);
        _cleanup_free_ unsigned *heap_at = calloc(threads, sizeof *heap_at);
        _cleanup_free_ unsigned *heap_len = calloc(threads, sizeof *heap_len);
        if (!free_ns || !heap_at || !heap_len)
                return -ENOMEM;
        /* Connection i belongs to loop i % threads; every one is free from the start. */
        for (unsigned i = 0; i < connections; i++) {
                heap_len[i % threads]++;
                free_ns[i] = INT64_MIN;
        }
        for (unsigned i = 1; i < threads; i++)
                heap_at[i] = heap_at[i - 1] + heap_len[i - 1];
        struct replay p = { .free_ns = free_ns, .heap_at = heap_at, .heap_len = heap_len, .threads = threads };
        int r = timeline_source_for_each(src, replay_record, &p);
        if (r < 0)
                return r;
        *ret = p.result;
        return 0;
}
