/* findings-sequential.c: the stop rule read from the stored definition (canonical JSON; an
 * imported one was checked by definition_parse() before it was stored) and followed over the
 * cells' succeeded runs by round, as storage/rounds.c does for the report. */
#include "findings/findings-sequential.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

static bool read_plan(const struct findings_input *in, struct findings_stop *s) {
        const cJSON *stop = cJSON_GetObjectItemCaseSensitive(in->definition, "stop");
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(in->definition, "iterations");
        const char *base = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(stop, "baseline"));
        double min = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "min"));
        double max = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "max"));
        double level = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(stop, "level"));
        double margin = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(stop, "difference_pct"));
        if (!cJSON_IsObject(stop) || !base || !isfinite(min) || !isfinite(max) || min < 1 || max < min ||
            max > FINDINGS_RUNS_MAX || !(level > 0 && level < 1) || !(margin > 0))
                return false;
        if (in->baseline >= in->n_cells || strcmp(in->cells[in->baseline].name, base) != 0)
                return false;
        const cJSON *m;
        size_t n = 0;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(stop, "metrics")) {
                if (!cJSON_IsString(m) || n == FINDINGS_STOP_METRICS_MAX)
                        return false;
                s->metrics[n++] = m->valuestring;
        }
        s->plan = (struct sequential_plan){
                .baseline = in->baseline, .n_cells = in->n_cells, .metrics = s->metrics, .n_metrics = n,
                .min_rounds = (unsigned) min, .max_rounds = (unsigned) max, .level = level, .margin = margin / 100,
        };
        return n > 0;
}

bool findings_stop_of(const struct findings_input *in, struct findings_stop *ret) {
        struct findings_stop s = { 0 };
        if (!in->definition || !read_plan(in, &s))
                return false;
        for (size_t c = 0; c < in->n_cells; c++)
                for (size_t r = 0; r < in->cells[c].n_runs; r++)
                        if (in->cells[c].runs[r].iteration <= s.plan.max_rounds)
                                s.rounds = MAX(s.rounds, in->cells[c].runs[r].iteration);
        *ret = s;
        return true;
}

/* x[round] of a cell's metric, NaN where no succeeded run has it (a run's iteration is
 * 1-based, as the API's). */
static void by_round(const struct findings_cell *cell, const char *path, unsigned rounds, double *x) {
        for (unsigned r = 0; r < rounds; r++)
                x[r] = NAN;
        for (size_t i = 0; i < cell->n_runs; i++) {
                unsigned it = cell->runs[i].iteration;
                double v;
                if (it >= 1 && it <= rounds && findings_metric(&cell->runs[i], path, &v))
                        x[it - 1] = v;
        }
}

bool findings_stop_outcome(const struct findings_input *in, const struct findings_stop *s, size_t cell, const char *path,
                           struct sequential_outcome *ret) {
        bool named = false;
        for (size_t m = 0; m < s->plan.n_metrics; m++)
                named = named || strcmp(s->metrics[m], path) == 0;
        if (!named || cell == s->plan.baseline || cell >= in->n_cells)
                return false;
        double x[FINDINGS_RUNS_MAX], b[FINDINGS_RUNS_MAX];
        by_round(&in->cells[cell], path, s->rounds, x);
        by_round(&in->cells[s->plan.baseline], path, s->rounds, b);
        sequential_follow(x, b, s->rounds, s->plan.min_rounds, sequential_plan_alpha(&s->plan), s->plan.margin, ret);
        return true;
}

void findings_stop_apply(const struct findings_input *in, size_t cell, struct findings_compared *c, size_t n) {
        struct findings_stop s;
        if (!findings_stop_of(in, &s))
                return;
        for (size_t i = 0; i < n; i++) {
                struct sequential_outcome o;
                if (!findings_stop_outcome(in, &s, cell, c[i].metric->path, &o))
                        continue;
                c[i].sequential = true;
                c[i].stop = o;
                c[i].stop_level = s.plan.level;
                c[i].stop_comparisons = sequential_plan_comparisons(&s.plan);
                c[i].stop_rounds = s.rounds;
                c[i].r = (struct stats_ratio){
                        .have_ratio = o.interval.n > 0,
                        .ratio = o.interval.ratio,
                        .of_geometric_means = true,
                        .have_ci = o.interval.bounded,
                        .ci_low = o.interval.low,
                        .ci_high = o.interval.high,
                        .excludes_one = o.decision == SEQUENTIAL_DIFFERENT,
                };
        }
}

void findings_stop_text(char *buf, size_t size, const struct findings_compared *c) {
        int n = snprintf(buf, size, "%g%% confidence sequence of the stop rule, shared by %zu comparison%s; ", c->stop_level * 100,
                         c->stop_comparisons, c->stop_comparisons == 1 ? "" : "s");
        if (n < 0 || (size_t) n >= size)
                return;
        if (c->stop.decision != SEQUENTIAL_UNDECIDED)
                snprintf(buf + n, size - (size_t) n, "%s at round %u", sequential_decision_name(c->stop.decision), c->stop.round);
        else
                snprintf(buf + n, size - (size_t) n, "undecided after %u rounds", c->stop_rounds);
}
