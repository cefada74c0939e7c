/* rule-drift.c: a trend across iterations: with at least 4 iterations in a cell, throughput or
 * p99 from scheduled that moves the same way from each iteration to the next, by more than 5%
 * from the first to the last (by chance in 2 of n! orders). Medium: the machine or the
 * service changed during the experiment, and the cell's mean hides it. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#include "basic/macro.h"

#define MIN_RUNS 4
#define MIN_CHANGE 0.05

static const char *const paths[] = { "throughput_rps", "ops_per_s", "latency_us.scheduled.p99" };

void findings_rule_drift(const struct findings_input *in, cJSON *out) {
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                if (cell->n_runs < MIN_RUNS)
                        continue;
                for (size_t m = 0; m < ELEMENTSOF(paths); m++) {
                        double x[FINDINGS_RUNS_MAX];
                        size_t n = findings_values(cell, paths[m], x, FINDINGS_RUNS_MAX);
                        if (n != cell->n_runs || x[0] <= 0)
                                continue;
                        int up = 0, down = 0;
                        for (size_t i = 1; i < n; i++) {
                                up += x[i] > x[i - 1];
                                down += x[i] < x[i - 1];
                        }
                        double change = x[n - 1] / x[0] - 1;
                        if ((up != (int) n - 1 && down != (int) n - 1) || fabs(change) <= MIN_CHANGE)
                                continue;
                        char claim[400];
                        snprintf(claim, sizeof claim, "cell %s's %s %s with every iteration, by %.0f%% from the first to the last of %zu",
                                 cell->name, paths[m], change > 0 ? "rose" : "fell", fabs(change) * 100, n);
                        cJSON *f = findings_append(out, "drift", FINDING_MEDIUM, change, claim,
                                                   "look for what changed during the experiment (other load, heat, a growing data set); "
                                                   "interleaved order spreads such drift over the cells instead of onto one");
                        findings_add_cell(f, cell->name);
                        findings_add_evidence(f, paths[m], cell, x[n - 1], x[0]);
                }
        }
}
