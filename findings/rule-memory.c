/* rule-memory.c: OOM kills in a cell's runs (high: processes died mid-measure), a memory peak
 * at 90% or more of the cell's memory_max (medium: reclaim and the JVM's heap sizing work
 * against the limit), and swap in use (medium: the figures then include the disk's): the SUT
 * slice's at the measure's end (cgroup.swap_bytes) or the host's at its start or end
 * (host_swap_bytes), above 0 in any run. */
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

static void oom_and_peak(const struct findings_input *in, const struct findings_cell *cell, cJSON *out) {
        double ooms, peak = 0, limit = memory_max(in, cell), v;
        char claim[400];
        if (findings_sum(cell, "cgroup.oom_kills", &ooms) && ooms > 0) {
                snprintf(claim, sizeof claim, "cell %s's SUT slice saw %.0f OOM kills over %zu runs", cell->name, ooms, cell->n_runs);
                cJSON *f = findings_append(out, "memory", FINDING_HIGH, ooms, claim, "raise memory_max or lower the heap (-Xmx) below it");
                findings_add_cell(f, cell->name);
                findings_add_evidence(f, "cgroup.oom_kills", cell, ooms, NAN);
        }
        for (size_t i = 0; i < cell->n_runs; i++)
                if (findings_metric(&cell->runs[i], "cgroup.memory_peak_bytes", &v) && v > peak)
                        peak = v;
        if (!isfinite(limit) || peak < NEAR_LIMIT * limit)
                return;
        snprintf(claim, sizeof claim, "cell %s's SUT peaked at %.0f MiB, %.0f%% of its memory_max of %.0f MiB",
                 cell->name, peak / 1048576, 100 * peak / limit, limit / 1048576);
        cJSON *f = findings_append(out, "memory", FINDING_MEDIUM, peak / limit, claim,
                                   "leave headroom: memory_max well above the heap plus the JVM's native memory");
        findings_add_cell(f, cell->name);
        findings_add_evidence(f, "cgroup.memory_peak_bytes", cell, peak, limit);
}

/* The runs of cell where metric was above 0 into ids; the largest value into *max. */
static size_t runs_above_zero(const struct findings_cell *cell, const char *metric, const char **ids, double *max) {
        size_t n = 0;
        double v;
        *max = 0;
        for (size_t i = 0; i < cell->n_runs && i < FINDINGS_RUNS_MAX; i++)
                if (findings_metric(&cell->runs[i], metric, &v) && v > 0) {
                        ids[n++] = cell->runs[i].id;
                        *max = fmax(*max, v);
                }
        return n;
}

static void swap(const struct findings_cell *cell, cJSON *out) {
        const char *sut_ids[FINDINGS_RUNS_MAX], *host_ids[FINDINGS_RUNS_MAX];
        double sut_max, host_max;
        size_t n_sut = runs_above_zero(cell, "cgroup.swap_bytes", sut_ids, &sut_max);
        size_t n_host = runs_above_zero(cell, "host_swap_bytes", host_ids, &host_max);
        if (n_sut == 0 && n_host == 0)
                return;
        char claim[400];
        if (n_sut > 0)
                snprintf(claim, sizeof claim, "cell %s's SUT had up to %.1f MiB in swap at the end of measure in %zu of its %zu runs: its figures include the disk's",
                         cell->name, sut_max / 1048576, n_sut, cell->n_runs);
        else
                snprintf(claim, sizeof claim, "the host had up to %.1f MiB in swap during the measure of %zu of cell %s's %zu runs: paging may have slowed them",
                         host_max / 1048576, n_host, cell->name, cell->n_runs);
        cJSON *f = findings_append(out, "memory", FINDING_MEDIUM, fmax(sut_max, host_max) / 1048576, claim,
                                   "set memory_max (swap is turned off for the slice then), free memory on the host, or swapoff");
        findings_add_cell(f, cell->name);
        if (n_sut > 0)
                findings_add_evidence_runs(f, "cgroup.swap_bytes", cell->name, sut_max, NAN, sut_ids, n_sut);
        if (n_host > 0)
                findings_add_evidence_runs(f, "host_swap_bytes", cell->name, host_max, NAN, host_ids, n_host);
}

void findings_rule_memory(const struct findings_input *in, cJSON *out) {
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                oom_and_peak(in, &in->cells[ci], out);
                swap(&in->cells[ci], out);
        }
}
