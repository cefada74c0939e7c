/* rule-memory.c: OOM kills in a cell's runs (high: processes died mid-measure), and a memory
 * peak at 90% or more of the cell's memory_max (medium: reclaim and the JVM's heap sizing
 * work against the limit). */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#define NEAR_LIMIT 0.9

static double memory_max(const struct findings_input *in, const struct findings_cell *cell) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cell->def, "memory_max");
        if (!cJSON_IsNumber(v))
                v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->definition, "sut"), "memory_max");
        return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN;
}

void findings_rule_memory(const struct findings_input *in, cJSON *out) {
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                double ooms, peak = 0, limit = memory_max(in, cell), v;
                char claim[400];
                if (findings_sum(cell, "cgroup.oom_kills", &ooms) && ooms > 0) {
                        snprintf(claim, sizeof claim, "cell %s's SUT slice saw %.0f OOM kills over %zu runs", cell->name, ooms, cell->n_runs);
                        cJSON *f = finding_new(out, "memory", FINDING_HIGH, ooms, claim, "raise memory_max or lower the heap (-Xmx) below it");
                        finding_add_cell(f, cell->name);
                        finding_add_evidence(f, "cgroup.oom_kills", cell, ooms, NAN);
                }
                for (size_t i = 0; i < cell->n_runs; i++)
                        if (findings_metric(&cell->runs[i], "cgroup.memory_peak_bytes", &v) && v > peak)
                                peak = v;
                if (!isfinite(limit) || peak < NEAR_LIMIT * limit)
                        continue;
                snprintf(claim, sizeof claim, "cell %s's SUT peaked at %.0f MiB, %.0f%% of its memory_max of %.0f MiB",
                         cell->name, peak / 1048576, 100 * peak / limit, limit / 1048576);
                cJSON *f = finding_new(out, "memory", FINDING_MEDIUM, peak / limit, claim,
                                       "leave headroom: memory_max well above the heap plus the JVM's native memory");
                finding_add_cell(f, cell->name);
                finding_add_evidence(f, "cgroup.memory_peak_bytes", cell, peak, limit);
        }
}
