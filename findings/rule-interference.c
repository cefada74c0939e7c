/* rule-interference.c: the injector's CPUs (load.cpus) overlapping a cell's: the load then
 * competes with the SUT it measures. Medium. (CPU time used on a cell's CPUs by work outside
 * the run's slices is not recorded yet, so that half of the rule is not here.) */
#include "findings/rules.h"

#include <stdio.h>

#include "basic/cpulist.h"

void findings_rule_interference(const struct findings_input *in, cJSON *out) {
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
                cJSON *f = finding_new(out, "interference", FINDING_MEDIUM, 1, claim,
                                       "give load.cpus CPUs that no cell uses");
                finding_add_cell(f, cell->name);
                finding_add_evidence_text(f, "cpus", cell, scpus, lcpus);
        }
}
