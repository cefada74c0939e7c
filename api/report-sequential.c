/* report-sequential.c: the report's `sequential` section, recomputed from the stored runs as the
 * scheduler decides (daemon/sequential-stop.c): the same rounds, the same statistics. */
#include "api/report-sequential.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/error.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/sequential.h"
#include "definition/definition.h"
#include "storage/rounds.h"

#define METHOD_TEXT                                                                                                  \
        "confidence sequence for the mean of the rounds' paired log ratios (Lai 1976, as stated by Wang and "         \
        "Ramdas 2023; normal mixture of precision 0.1), running intersection, Bonferroni over the comparisons"

static cJSON *comparison_json(const struct definition *d, size_t cell, const char *metric,
                              const struct sequential_outcome *o) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "cell", d->cells[cell].name);
        cJSON_AddStringToObject(c, "baseline", d->cells[d->stop.baseline].name);
        cJSON_AddStringToObject(c, "metric", metric);
        cJSON_AddStringToObject(c, "decision", sequential_decision_name(o->decision));
        if (o->round > 0)
                cJSON_AddNumberToObject(c, "round", o->round);
        else
                cJSON_AddNullToObject(c, "round");
        cJSON_AddNumberToObject(c, "pairs", (double) o->interval.n);
        if (o->interval.n > 0 && isfinite(o->interval.ratio))
                cJSON_AddNumberToObject(c, "ratio", o->interval.ratio);
        else
                cJSON_AddNullToObject(c, "ratio");
        if (o->interval.bounded) {
                cJSON *i = cJSON_AddObjectToObject(c, "interval");
                cJSON_AddNumberToObject(i, "low", o->interval.low);
                cJSON_AddNumberToObject(i, "high", o->interval.high);
        } else
                cJSON_AddNullToObject(c, "interval");
        return c;
}

/* "decided", "running", or why it ended undecided */
static const char *state_of(const struct sequential_outcome *o, size_t n, unsigned rounds, unsigned max_rounds, bool finished) {
        bool decided = n > 0;
        for (size_t i = 0; i < n; i++)
                decided = decided && o[i].decision != SEQUENTIAL_UNDECIDED;
        if (decided)
                return "decided";
        if (!finished)
                return "running";
        return rounds >= max_rounds ? "undecided: iterations.max reached" : "undecided: ended before iterations.max";
}

static cJSON *section_json(const struct definition *d, const struct sequential_plan *plan, const struct sequential_outcome *o,
                           size_t n, unsigned rounds, bool finished) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "method", METHOD_TEXT);
        cJSON_AddNumberToObject(s, "level", plan->level);
        cJSON_AddNumberToObject(s, "level_each", 1 - sequential_plan_alpha(plan));
        cJSON_AddNumberToObject(s, "difference_pct", d->stop.difference_pct);
        cJSON_AddNumberToObject(s, "min_rounds", plan->min_rounds);
        cJSON_AddNumberToObject(s, "max_rounds", plan->max_rounds);
        cJSON_AddNumberToObject(s, "rounds", rounds);
        cJSON_AddStringToObject(s, "state", state_of(o, n, rounds, plan->max_rounds, finished));
        cJSON *list = cJSON_AddArrayToObject(s, "comparisons");
        size_t k = 0;
        for (size_t cell = 0; cell < d->n_cells; cell++) {
                if (cell == d->stop.baseline)
                        continue;
                for (size_t m = 0; m < plan->n_metrics; m++, k++)
                        cJSON_AddItemToArray(list, comparison_json(d, cell, plan->metrics[m], &o[k]));
        }
        return s;
}

int report_sequential_json(struct db_conn *db, const char *id, const cJSON *definition, bool finished, cJSON **ret) {
        /* most definitions have no stop rule: not worth parsing one again per GET */
        if (!cJSON_HasObjectItem(definition, "stop")) {
                *ret = NULL;
                return 0;
        }
        _cleanup_free_ char *text = cJSON_PrintUnformatted(definition);
        if (!text)
                return -ENOMEM;
        _cleanup_(definition_freep) struct definition *d = NULL;
        struct error err = { 0 };
        int r = definition_parse(text, strlen(text), NULL, &d, &err);
        if (r < 0)
                return r;
        if (!d->stop.enabled) {
                *ret = NULL;
                return 0;
        }
        struct sequential_plan plan;
        definition_stop_plan(d, &plan);
        size_t n = sequential_plan_comparisons(&plan);
        unsigned rounds;
        _cleanup_free_ struct sequential_outcome *o = calloc(MAX(n, (size_t) 1), sizeof *o);
        if (!o)
                return -ENOMEM;
        if ((r = rounds_ended(db, id, &rounds)) < 0 || (r = rounds_evaluate(db, id, &plan, rounds, o)) < 0)
                return r;
        *ret = section_json(d, &plan, o, n, rounds, finished);
        return 0;
}
