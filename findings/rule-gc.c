/* rule-gc.c: garbage collection that differs from the baseline or reaches the latency tail.
 * Per cell: pause count, total, max and p99 (means over runs) and the share of its slowest 1%
 * of requests (at or above each run's p99 from scheduled) that were in flight during a GC or
 * safepoint pauses on the same clock (findings-tail.c). It fires when that share reaches 10%,
 * or when the pause total is at least 1.5x (or at most 1/1.5) the baseline's and the
 * difference is above 1% of the measure window per run. It is medium (high with a share from
 * 50%) when the cell differs from the baseline that way, or its share exceeds the baseline's by
 * 10 points and significantly (one-sided Fisher exact test, p < 0.05); a share alike in every
 * cell is info (it explains the tail, not a difference). */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#include "basic/macro.h"
#include "basic/stats.h"

#define MEDIUM_OVERLAP 0.10
#define HIGH_OVERLAP 0.50
#define TOTAL_RATIO 1.5
#define TOTAL_MIN_SHARE 0.01    /* of the measure window */
#define TOTAL_MIN_MS 1.0        /* when the window is unknown */
#define P_MAX 0.05

struct gc_figures {
        double pauses, total_ms, max_ms, p99_ms;        /* means over runs; NAN unknown */
        double overlap;                                 /* share of tail requests in a pause; NAN unknown */
        uint64_t tail, in_pause;
        const char *runs[FINDINGS_RUNS_MAX];            /* the runs whose timelines were read */
        size_t n_runs;
};

static double mean_of(const struct findings_cell *c, const char *path) {
        double sum;
        double x[FINDINGS_RUNS_MAX];
        size_t n = findings_values(c, path, x, FINDINGS_RUNS_MAX);
        if (n == 0 || !findings_sum(c, path, &sum))
                return NAN;
        return sum / (double) n;
}

static void figures(const struct findings_cell *c, struct gc_figures *g) {
        *g = (struct gc_figures){
                .pauses = mean_of(c, "gc.pauses"),
                .total_ms = mean_of(c, "gc.pause_total_ms"),
                .max_ms = mean_of(c, "gc.pause_max_ms"),
                .p99_ms = mean_of(c, "gc.pause_p99_ms"),
                .overlap = NAN,
        };
        for (size_t i = 0; i < c->n_runs && g->n_runs < FINDINGS_RUNS_MAX; i++) {
                const struct findings_tail *t = &c->runs[i].tail;
                if (!t->have || t->tail == 0)
                        continue;
                g->tail += t->tail;
                g->in_pause += t->in_pause;
                g->runs[g->n_runs++] = c->runs[i].id;
        }
        if (g->tail > 0)
                g->overlap = (double) g->in_pause / (double) g->tail;
}

/* The measure window in ms from the definition; 0 when unknown. */
static double window_ms(const struct findings_input *in) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->definition, "load"), "measure_s");
        return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble * 1000 : 0;
}

/* Pause totals that differ by the ratio and by enough of the window to matter (a few ms of
 * GC either way in seconds of measure explain nothing, and two iterations vary that much). */
static bool totals_differ(const struct findings_input *in, const struct gc_figures *g, const struct gc_figures *b) {
        double w = window_ms(in), min_ms = w > 0 ? TOTAL_MIN_SHARE * w : TOTAL_MIN_MS;
        if (!isfinite(g->total_ms) || !isfinite(b->total_ms) || fabs(g->total_ms - b->total_ms) <= min_ms)
                return false;
        double lo = MIN(g->total_ms, b->total_ms), hi = MAX(g->total_ms, b->total_ms);
        return lo <= 0 || hi / lo >= TOTAL_RATIO;
}

void findings_rule_gc(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        struct gc_figures b;
        figures(base, &b);
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                struct gc_figures g;
                figures(cell, &g);
                bool differ = ci != in->baseline && totals_differ(in, &g, &b);
                bool overlap = isfinite(g.overlap) && g.overlap >= MEDIUM_OVERLAP;
                if (!differ && !overlap)
                        continue;
                char claim[768], part[384] = "";
                int len = 0;
                if (isfinite(g.overlap))
                        len = snprintf(claim, sizeof claim,
                                       "%.0f%% of the requests at or above p99 in cell %s (%llu of %llu) were in flight during a GC or safepoint pause on the injector's clock",
                                       g.overlap * 100, cell->name, (unsigned long long) g.in_pause, (unsigned long long) g.tail);
                else
                        len = snprintf(claim, sizeof claim, "cell %s's GC differs", cell->name);
                if (ci != in->baseline && isfinite(g.total_ms) && isfinite(b.total_ms))
                        snprintf(part, sizeof part, "; its pauses total %.1f ms per run against %.1f ms in %s (%.0f vs %.0f pauses, max %.1f vs %.1f ms)",
                                 g.total_ms, b.total_ms, base->name, isfinite(g.pauses) ? g.pauses : 0,
                                 isfinite(b.pauses) ? b.pauses : 0, isfinite(g.max_ms) ? g.max_ms : 0, isfinite(b.max_ms) ? b.max_ms : 0);
                if (len > 0 && (size_t) len < sizeof claim)
                        snprintf(claim + len, sizeof claim - (size_t) len, "%s", part);
                /* GC that reaches the tail alike in every cell explains no difference between them:
                 * worth knowing (info), not a reason the cells differ */
                bool reaches_more = overlap && ci != in->baseline && isfinite(b.overlap) &&
                                    g.overlap - b.overlap >= MEDIUM_OVERLAP &&
                                    stats_fisher_greater(g.in_pause, g.tail, b.in_pause, b.tail) < P_MAX;
                enum findings_severity sev = !differ && !reaches_more ? FINDING_INFO
                                           : overlap && g.overlap >= HIGH_OVERLAP ? FINDING_HIGH : FINDING_MEDIUM;
                cJSON *f = findings_append(out, "gc", sev, isfinite(g.overlap) ? g.overlap : 0, claim,
                                           "give the heap room (-Xmx, -Xmn), allocate less per request, or use a collector "
                                           "with shorter pauses; compare the GC events (GET /v1/runs/{id}/gc) with the slow requests");
                findings_add_cell(f, cell->name);
                bool vs = ci != in->baseline;
                if (isfinite(g.overlap))
                        findings_add_evidence_runs(f, "tail.gc_overlap_share", cell->name, g.overlap, vs ? b.overlap : NAN,
                                                   g.runs, g.n_runs);
                findings_add_evidence(f, "gc.pause_total_ms", cell, g.total_ms, vs ? b.total_ms : NAN);
                findings_add_evidence(f, "gc.pauses", cell, g.pauses, vs ? b.pauses : NAN);
                findings_add_evidence(f, "gc.pause_max_ms", cell, g.max_ms, vs ? b.max_ms : NAN);
                findings_add_evidence(f, "gc.pause_p99_ms", cell, g.p99_ms, vs ? b.p99_ms : NAN);
        }
}
