/* rule-frequency.c: the mean frequency of a cell's CPUs during the measure phase (mean over its
 * runs of the mean over its CPUs, from the sampled scaling_cur_freq) more than 5% from the
 * baseline's. Medium: cells then differ in clock speed as well as in what the experiment
 * varies (the seed's 8-CPU cells ran slower clocks under powersave). */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>

#define MAX_DIFF 0.05

static bool mean_mhz(const struct findings_cell *c, double *ret) {
        double sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < c->n_runs; i++) {
                const cJSON *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->runs[i].metrics, "cpu"), "freq_mhz"), *v;
                double run_sum = 0;
                size_t k = 0;
                cJSON_ArrayForEach(v, f) {
                        const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, "mean");
                        if (cJSON_IsNumber(m) && m->valuedouble > 0) {
                                run_sum += m->valuedouble;
                                k++;
                        }
                }
                if (k > 0) {
                        sum += run_sum / (double) k;
                        n++;
                }
        }
        if (n == 0)
                return false;
        *ret = sum / (double) n;
        return true;
}

void findings_rule_frequency(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        double b;
        if (!mean_mhz(base, &b))
                return;
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                double m;
                const struct findings_cell *cell = &in->cells[ci];
                if (ci == in->baseline || !mean_mhz(cell, &m) || fabs(m / b - 1) <= MAX_DIFF)
                        continue;
                char claim[400];
                snprintf(claim, sizeof claim, "cell %s's CPUs ran at %.0f MHz on average, %.0f%% %s than %s's %.0f MHz",
                         cell->name, m, fabs(m / b - 1) * 100, m > b ? "faster" : "slower", base->name, b);
                cJSON *f = findings_append(out, "frequency", FINDING_MEDIUM, log(m / b), claim,
                                           "use the performance governor on the run's CPUs, disable turbo/boost, or compare cells on CPUs of the same kind");
                findings_add_cell(f, cell->name);
                findings_add_cell(f, base->name);
                findings_add_evidence(f, "cpu.freq_mhz.mean", cell, m, b);
        }
}
