/* rule-throttling.c: a cell whose SUT slice was throttled by its CPU quota in at least 5% of
 * its CFS periods (high from 20%), with the throttled time, set against its latency tail: the
 * share of its slowest 1% of requests scheduled in a second (of the 1 s series) with throttled
 * periods. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#define MEDIUM_SHARE 0.05
#define HIGH_SHARE 0.20

static bool throttled_share(const struct findings_cell *c, double *ret) {
        double periods, throttled;
        if (!findings_sum(c, "cgroup.nr_periods", &periods) || !findings_sum(c, "cgroup.nr_throttled", &throttled) ||
            periods <= 0)
                return false;
        *ret = throttled / periods;
        return true;
}

/* Tail requests in throttled seconds over tail requests, across the runs that know both. */
static bool tail_share(const struct findings_cell *c, double *ret) {
        double tail = 0, in = 0;
        for (size_t i = 0; i < c->n_runs; i++) {
                const struct findings_tail *t = &c->runs[i].tail;
                if (t->have && t->have_throttle) {
                        tail += (double) t->tail;
                        in += (double) t->in_throttled;
                }
        }
        if (tail <= 0)
                return false;
        *ret = in / tail;
        return true;
}

void findings_rule_throttling(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        double base_share = NAN, base_tail = NAN, base_s = NAN;
        if (!throttled_share(base, &base_share))
                base_share = NAN;
        if (!tail_share(base, &base_tail))
                base_tail = NAN;
        if (!findings_sum(base, "cgroup.throttled_s", &base_s))
                base_s = NAN;
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                double share, tail = NAN, secs = NAN;
                if (!throttled_share(cell, &share) || share < MEDIUM_SHARE)
                        continue;
                bool have_tail = tail_share(cell, &tail);
                if (!findings_sum(cell, "cgroup.throttled_s", &secs))
                        secs = NAN;
                char claim[640], tail_text[200] = "";
                if (have_tail)
                        snprintf(tail_text, sizeof tail_text,
                                 "; %.0f%% of its requests at or above p99 were scheduled in seconds with throttling", tail * 100);
                snprintf(claim, sizeof claim,
                         "cell %s's SUT was throttled by its CPU quota in %.1f%% of its scheduler periods (%.2f s throttled over %zu runs)%s",
                         cell->name, share * 100, isfinite(secs) ? secs : 0, cell->n_runs, tail_text);
                cJSON *f = findings_append(out, "throttling", share >= HIGH_SHARE ? FINDING_HIGH : FINDING_MEDIUM, share, claim,
                                           "a quota lets the JVM's GC and JIT threads use its CPUs in bursts that exhaust the "
                                           "period: give the cell whole CPUs (a cpuset the size of the quota) instead, raise "
                                           "cpu_quota or allow cpu_burst_us, or size the JVM for the quota");
                findings_add_cell(f, cell->name);
                findings_add_evidence(f, "cgroup.throttled_share", cell, share, ci == in->baseline ? NAN : base_share);
                findings_add_evidence(f, "cgroup.throttled_s", cell, secs, ci == in->baseline ? NAN : base_s);
                if (have_tail)
                        findings_add_evidence(f, "tail.in_throttled_seconds_share", cell, tail,
                                              ci == in->baseline ? NAN : base_tail);
        }
}
