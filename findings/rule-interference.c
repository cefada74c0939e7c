/* rule-interference.c: two ways other work competes with a cell's SUT. (1) The injector's CPUs
 * (load.cpus) overlap the cell's: the load competes with the SUT it measures. (2) Work outside
 * the run's slices used the cell's CPUs during measure: run metrics cpu.other_busy_share (busy
 * time on those CPUs from /proc/stat less the slices' usage there, over their capacity) above
 * OTHER_SHARE in a run. That counts everything not in the slices: other processes, the
 * daemon's own threads (sampling, the event loop), kernel work (interrupts, softirqs such as
 * the loopback network's, kworkers) and a hypervisor's steal; an A/A run on an idle 2-CPU VM
 * stays well below it. Both medium. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#include "basic/cpulist.h"

#define OTHER_SHARE 0.10

static void load_overlap(const struct findings_input *in, cJSON *out) {
        const cJSON *load = cJSON_GetObjectItemCaseSensitive(in->definition, "load");
        const char *lcpus = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(load, "cpus"));
        struct cpulist lc;
        if (!cJSON_GetObjectItemCaseSensitive(load, "target") || !lcpus || cpulist_parse(lcpus, &lc) < 0)
                return;
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                const char *scpus = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cell->def, "cpus"));
                struct cpulist sc;
                if (!scpus || cpulist_parse(scpus, &sc) < 0 || !cpulist_intersects(&lc, &sc))
                        continue;
                char claim[300];
                snprintf(claim, sizeof claim, "cell %s's SUT CPUs (%s) overlap the injector's (%s): the load competes with the service it measures",
                         cell->name, scpus, lcpus);
                cJSON *f = findings_append(out, "interference", FINDING_MEDIUM, 1, claim,
                                           "give load.cpus CPUs that no cell uses");
                findings_add_cell(f, cell->name);
                findings_add_evidence_text(f, "cpus", cell, scpus, lcpus);
        }
}

/* The runs of cell whose other work passed OTHER_SHARE, with the largest share and its seconds. */
static void other_work(const struct findings_cell *cell, cJSON *out) {
        const char *ids[FINDINGS_RUNS_MAX];
        size_t n = 0;
        double worst = 0, worst_s = 0, v, s;
        for (size_t i = 0; i < cell->n_runs && i < FINDINGS_RUNS_MAX; i++) {
                if (!findings_metric(&cell->runs[i], "cpu.other_busy_share", &v) || v <= OTHER_SHARE)
                        continue;
                ids[n++] = cell->runs[i].id;
                if (v > worst) {
                        worst = v;
                        worst_s = findings_metric(&cell->runs[i], "cpu.other_busy_s", &s) ? s : NAN;
                }
        }
        if (n == 0)
                return;
        char claim[400];
        snprintf(claim, sizeof claim, "work outside the run's slices used up to %.0f%% of cell %s's CPUs during measure (%.2f s of CPU) in %zu of its %zu runs: other processes, the daemon or the kernel competed with the SUT",
                 100 * worst, cell->name, worst_s, n, cell->n_runs);
        cJSON *f = findings_append(out, "interference", FINDING_MEDIUM, worst, claim,
                                   "run on a quiet machine, or keep other work off the cells' CPUs (isolcpus, a cpuset for the rest of the system)");
        findings_add_cell(f, cell->name);
        findings_add_evidence_runs(f, "cpu.other_busy_share", cell->name, worst, NAN, ids, n);
}

void findings_rule_interference(const struct findings_input *in, cJSON *out) {
        load_overlap(in, out);
        for (size_t ci = 0; ci < in->n_cells; ci++)
                other_work(&in->cells[ci], out);
}
