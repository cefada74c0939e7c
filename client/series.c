/* series.c: slicelab series: a cell's metric over the experiments with some labels, in time
 * order, its change points and why they moved (GET /v1/series), and for CI the exit status 3 when
 * the series' newest level is a regression: the last change point (the one the newest experiment's
 * segment starts at) shifted the metric the bad way (latency up, throughput down; either way for
 * a metric whose name does not say) by more than --threshold percent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"

static char *series_path(struct http *h, const struct client_options *o) {
        _cleanup_free_ char *cell = http_escape(h, o->cell), *metric = http_escape(h, o->metric);
        char *p = NULL;
        if (asprintf(&p, "/v1/series?cell=%s&metric=%s", cell, metric) < 0)
                abort();
        p = http_path_add(h, p, "alpha", o->alpha);
        p = http_path_add(h, p, "min_segment", o->min_segment);
        for (int i = 0; i < o->n_labels; i++)
                p = http_path_add(h, p, "label", o->labels[i]);
        return p;
}

/* " [low, high]": as values, or as signed percents of a shift. */
static void print_interval(const cJSON *ci, bool percent) {
        double lo, hi;
        if (!json_print_num(ci, "low", &lo) || !json_print_num(ci, "high", &hi))
                return;
        if (percent)
                printf(" [%+.1f%%, %+.1f%%]", lo * 100, hi * 100);
        else
                printf(" [%.6g, %.6g]", lo, hi);
}

static void print_experiments(const cJSON *list) {
        printf("%-5s %-26s %-26s %12s  %s\n", "#", "EXPERIMENT", "CREATED", "VALUE", "95% CI");
        const cJSON *e;
        cJSON_ArrayForEach(e, list) {
                double index = 0, v;
                json_print_num(e, "index", &index);
                printf("%-5.0f %-26s %-26s ", index, json_print_str(e, "id"), json_print_str(e, "created_at"));
                if (json_print_num(e, "value", &v)) {
                        printf("%12.6g ", v);
                        print_interval(cJSON_GetObjectItemCaseSensitive(e, "ci95"), false);
                } else
                        printf("%12s  (no succeeded run with the metric)", "-");
                printf("\n");
        }
}

static void print_why(const cJSON *why) {
        const cJSON *d;
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(why, "differences")) {
                _cleanup_free_ char *a = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "a"));
                _cleanup_free_ char *b = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "b"));
                printf("    %s %s: %.*s -> %.*s\n", strcmp(json_print_str(d, "source"), "host") == 0 ? "host fact" : "definition field",
                       json_print_str(d, "field"), UTF8_PREFIX(a ? a : "?", 100), UTF8_PREFIX(b ? b : "?", 100));
        }
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(why, "hosts_compared")))
                printf("    (host facts missing on one side: the hosts could not be compared)\n");
        static const char *const sides[] = { "before_only", "after_only" };
        const cJSON *findings = cJSON_GetObjectItemCaseSensitive(why, "findings");
        for (size_t i = 0; i < ELEMENTSOF(sides); i++) {
                const cJSON *f;
                cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(findings, sides[i]))
                        printf("    finding only %s: %s (%s): %s\n", i == 0 ? "before" : "after", json_print_str(f, "kind"),
                               json_print_str(f, "severity"), json_print_str(f, "claim"));
                char omitted_name[32];
                double omitted = 0;
                snprintf(omitted_name, sizeof omitted_name, "%s_omitted", sides[i]);
                if (json_print_num(findings, omitted_name, &omitted) && omitted > 0)
                        printf("    (%.0f more findings only %s, not listed)\n", omitted, i == 0 ? "before" : "after");
        }
}

static void print_change_points(const cJSON *list) {
        const cJSON *cp;
        cJSON_ArrayForEach(cp, list) {
                const cJSON *before = cJSON_GetObjectItemCaseSensitive(cp, "before"), *after = cJSON_GetObjectItemCaseSensitive(cp, "after");
                double bi = 0, ai = 0, shift, p = NAN;
                json_print_num(before, "index", &bi);
                json_print_num(after, "index", &ai);
                json_print_num(cp, "p_value", &p);
                printf("\nchange point between #%.0f (%s) and #%.0f (%s):", bi, json_print_str(before, "experiment_id"), ai,
                       json_print_str(after, "experiment_id"));
                if (json_print_num(cp, "shift", &shift)) {
                        printf(" %+.1f%%", shift * 100);
                        print_interval(cJSON_GetObjectItemCaseSensitive(cp, "shift_ci95"), true);
                }
                printf(" (p %.3g, %s)\n", p, json_print_str(cp, "shift_method"));
                const cJSON *why = cJSON_GetObjectItemCaseSensitive(cp, "why");
                if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(why, "differences")) == 0)
                        printf("    no definition field or host fact differs\n");
                print_why(why);
        }
}

/* The last change point's shift, when it is worse than threshold (a fraction) the bad way. */
static bool regressed(const cJSON *series, double threshold, double *ret_shift) {
        const cJSON *cps = cJSON_GetObjectItemCaseSensitive(series, "change_points");
        const cJSON *last = cJSON_GetArrayItem(cps, cJSON_GetArraySize(cps) - 1);
        const char *worse = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(series, "worse_when"));
        double shift;
        if (!last || !json_print_num(last, "shift", &shift))
                return false;
        *ret_shift = shift;
        if (worse && strcmp(worse, "higher") == 0)
                return shift > threshold;
        if (worse && strcmp(worse, "lower") == 0)
                return shift < -threshold;
        return fabs(shift) > threshold;
}

int cmd_series(struct http *h, const struct client_options *o) {
        _cleanup_free_ char *path = series_path(h, o);
        _cleanup_json_ cJSON *j = NULL;
        int k = http_get_json(h, path, &j);
        if (k != 0)
                return k;
        double shift = 0;
        bool bad = regressed(j, o->threshold_pct / 100, &shift);
        if (o->json) {
                json_print(j);
                return bad ? EXIT_REGRESSION : EXIT_OK;
        }
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "experiments");
        printf("%s of cell %s over %d experiments (worse when %s)\n", json_print_str(j, "metric"), json_print_str(j, "cell"),
               cJSON_GetArraySize(list), json_print_str(j, "worse_when"));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "truncated")))
                printf("(the newest only: older experiments were left out)\n");
        print_experiments(list);
        const cJSON *cps = cJSON_GetObjectItemCaseSensitive(j, "change_points");
        if (cJSON_GetArraySize(cps) == 0)
                printf("\nno change point\n");
        print_change_points(cps);
        if (bad)
                printf("\nregression: the newest experiments' level is %+.1f%% from the one before the last change point, beyond --threshold %g%%\n",
                       shift * 100, o->threshold_pct);
        return bad ? EXIT_REGRESSION : EXIT_OK;
}
