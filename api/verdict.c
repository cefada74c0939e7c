/* verdict.c: pass/fail of the definition's checks (see verdict.h), on the same figures as the
 * report (api/cell-stats). */
#include "api/verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/cell-stats.h"
#include "basic/json-util.h"
#include "basic/utf8.h"

struct bounds {
        bool has_min, has_max;
        double min, max;
};

static const char *get_string(const cJSON *o, const char *key) {
        return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static struct bounds read_bounds(const cJSON *check) {
        const cJSON *min = cJSON_GetObjectItemCaseSensitive(check, "min");
        const cJSON *max = cJSON_GetObjectItemCaseSensitive(check, "max");
        return (struct bounds){ .has_min = cJSON_IsNumber(min), .min = cJSON_IsNumber(min) ? min->valuedouble : 0,
                                .has_max = cJSON_IsNumber(max), .max = cJSON_IsNumber(max) ? max->valuedouble : 0 };
}

/* min on low, max on high: for a plain value both are the value itself. */
static bool within(const struct bounds *b, double low, double high) {
        return (!b->has_min || low >= b->min) && (!b->has_max || high <= b->max);
}

/* The list of figures of metric in cell (NULL when the cell has none). */
static const cJSON *metric_list(const cJSON *rows, const char *cell, const char *metric, cJSON **gathered) {
        *gathered = cell_gather(rows, cell);
        return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(*gathered, "values"), metric);
}

_printf_(2, 3) static void fail_with(cJSON *o, const char *fmt, ...) {
        char note[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(note, sizeof note, fmt, ap);
        va_end(ap);
        note[utf8_complete_len(note, strlen(note))] = '\0';
        if (!cJSON_HasObjectItem(o, "n"))
                cJSON_AddNumberToObject(o, "n", 0);
        cJSON_AddNullToObject(o, "value");
        cJSON_AddNullToObject(o, "ci95");
        cJSON_AddNullToObject(o, "basis");
        cJSON_AddBoolToObject(o, "passed", false);
        cJSON_AddStringToObject(o, "note", note);
}

static void add_result(cJSON *o, double value, bool has_ci, double low, double high, const char *basis,
                       bool passed, const char *note) {
        cJSON_AddNumberToObject(o, "value", value);
        if (has_ci) {
                cJSON *ci = cJSON_AddObjectToObject(o, "ci95");
                cJSON_AddNumberToObject(ci, "low", low);
                cJSON_AddNumberToObject(ci, "high", high);
        } else
                cJSON_AddNullToObject(o, "ci95");
        cJSON_AddStringToObject(o, "basis", basis);
        cJSON_AddBoolToObject(o, "passed", passed);
        json_add_string_or_null(o, "note", note);
}

static void evaluate_plain(cJSON *o, const struct bounds *b, const cJSON *list, const char *metric, const char *cell) {
        struct stats_summary s;
        if (!cell_metric_describe(list, &s)) {
                fail_with(o, "no succeeded run of cell %s reported %s", cell, metric);
                return;
        }
        cJSON_AddNumberToObject(o, "n", (double) s.n);
        double v = s.mean; /* the value itself when n == 1 */
        add_result(o, v, false, 0, 0, s.n == 1 ? "value" : "mean", within(b, v, v),
                   s.n == 1 ? "a single succeeded run: checked on its value, not on a mean" : NULL);
}

static void evaluate_ratio(cJSON *o, const struct bounds *b, const cJSON *list, const cJSON *base,
                           const char *metric, const char *cell, const char *ratio_to) {
        struct stats_summary sx, sb;
        if (!cell_metric_describe(list, &sx)) {
                fail_with(o, "no succeeded run of cell %s reported %s", cell, metric);
                return;
        }
        if (!cell_metric_describe(base, &sb)) {
                fail_with(o, "no succeeded run of cell %s reported %s", ratio_to, metric);
                return;
        }
        cJSON_AddNumberToObject(o, "n", (double) sx.n);
        cJSON_AddNumberToObject(o, "n_ratio_to", (double) sb.n);
        struct stats_ratio r;
        const char *method;
        if (cell_metric_ratio(list, base, &r, &method) < 0 || !r.have_ratio) {
                fail_with(o, "the ratio is undefined: the mean of %s in cell %s is 0", metric, ratio_to);
                return;
        }
        if (sx.n == 1 || sb.n == 1) {
                add_result(o, r.ratio, false, 0, 0, "ratio_value", within(b, r.ratio, r.ratio),
                           "a side has a single succeeded run: checked on the ratio of the values, without an interval");
                return;
        }
        if (!r.have_ci) {
                cJSON_AddNumberToObject(o, "value", r.ratio);
                cJSON_AddNullToObject(o, "ci95");
                cJSON_AddNullToObject(o, "basis");
                cJSON_AddBoolToObject(o, "passed", false);
                cJSON_AddStringToObject(o, "note", "the ratio's 95% interval is unbounded (the baseline's mean is not clearly away from 0)");
                return;
        }
        add_result(o, r.ratio, true, r.ci_low, r.ci_high, "ratio_interval", within(b, r.ci_low, r.ci_high), NULL);
}

/* The stop rule's comparison of cell against ratio_to for metric, when it has one. */
static const cJSON *stop_comparison(const cJSON *sequential, const char *cell, const char *ratio_to, const char *metric) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(sequential, "comparisons")) {
                const char *cc = get_string(c, "cell"), *cb = get_string(c, "baseline"), *cm = get_string(c, "metric");
                if (cc && cb && cm && strcmp(cc, cell) == 0 && strcmp(cb, ratio_to) == 0 && strcmp(cm, metric) == 0)
                        return c;
        }
        return NULL;
}

/* A ratio the stop rule decides is checked on its confidence sequence; one it left undecided
 * fails as undecided (the data did not say, whatever the fixed-sample interval would). */
static void evaluate_stop(cJSON *o, const struct bounds *b, const cJSON *c, const cJSON *sequential) {
        const char *decision = get_string(c, "decision");
        const cJSON *interval = cJSON_GetObjectItemCaseSensitive(c, "interval");
        const cJSON *ratio = cJSON_GetObjectItemCaseSensitive(c, "ratio");
        double rounds = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sequential, "rounds"));
        cJSON_AddNumberToObject(o, "n", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "pairs")));
        if (!decision || strcmp(decision, "undecided") == 0 || !cJSON_IsObject(interval) || !cJSON_IsNumber(ratio)) {
                fail_with(o, "undecided: the stop rule's confidence sequence did not decide this ratio after %.0f rounds", rounds);
                return;
        }
        double low = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(interval, "low"));
        double high = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(interval, "high"));
        char note[160];
        snprintf(note, sizeof note, "checked on the stop rule's confidence sequence (%s at round %.0f), not a 95%% interval", decision,
                 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "round")));
        add_result(o, ratio->valuedouble, true, low, high, "sequence_interval", within(b, low, high), note);
}

cJSON *verdict_json(const cJSON *definition, const cJSON *rows, const cJSON *sequential, bool final) {
        const cJSON *checks = cJSON_GetObjectItemCaseSensitive(definition, "checks");
        if (!cJSON_IsArray(checks) || cJSON_GetArraySize(checks) == 0)
                return NULL;
        cJSON *v = cJSON_CreateObject();
        cJSON *out = cJSON_CreateArray();
        bool all = true;
        const cJSON *check;
        cJSON_ArrayForEach(check, checks) {
                cJSON *o = cJSON_Duplicate(check, true);
                cJSON_AddItemToArray(out, o);
                const char *metric = get_string(check, "metric"), *cell = get_string(check, "cell");
                const char *ratio_to = get_string(check, "ratio_to");
                struct bounds b = read_bounds(check);
                _cleanup_json_ cJSON *gx = NULL, *gb = NULL;
                const cJSON *list = metric_list(rows, cell ? cell : "", metric ? metric : "", &gx);
                const cJSON *stop = ratio_to && cell && metric ? stop_comparison(sequential, cell, ratio_to, metric) : NULL;
                if (stop)
                        evaluate_stop(o, &b, stop, sequential);
                else if (ratio_to)
                        evaluate_ratio(o, &b, list, metric_list(rows, ratio_to, metric, &gb), metric, cell, ratio_to);
                else
                        evaluate_plain(o, &b, list, metric, cell);
                all = all && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "passed"));
        }
        cJSON_AddBoolToObject(v, "passed", all);
        cJSON_AddBoolToObject(v, "final", final);
        cJSON_AddItemToObject(v, "checks", out);
        return v;
}
