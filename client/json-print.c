/* json-print.c: reading and printing the daemon's JSON for the client's commands (see
 * json-print.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "client/exit-status.h"
#include "client/json-print.h"

void json_print(const cJSON *j) {
        _cleanup_free_ char *s = cJSON_Print(j);
        printf("%s\n", s);
}

const char *json_print_str(const cJSON *j, const char *key) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, key));
        return str_or(s, "-");
}

bool json_print_num(const cJSON *j, const char *key, double *ret) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, key);
        if (!cJSON_IsNumber(n))
                return false;
        *ret = n->valuedouble;
        return true;
}

bool json_print_num_at(const cJSON *j, const char *path, double *ret) {
        const char *dot;
        while ((dot = strchr(path, '.'))) {
                char key[64];
                if ((size_t) (dot - path) >= sizeof key)
                        return false;
                snprintf(key, sizeof key, "%.*s", (int) (dot - path), path);
                j = cJSON_GetObjectItemCaseSensitive(j, key);
                path = dot + 1;
        }
        return json_print_num(j, path, ret);
}

/* Neither waiting nor finished: a phase of a run under way. */
static bool under_way(const char *state) {
        static const char *const not[] = { "queued", "succeeded", "failed", "cancelled", "interrupted" };
        for (size_t i = 0; i < ELEMENTSOF(not); i++)
                if (strcmp(state, not[i]) == 0)
                        return false;
        return true;
}

struct json_print_progress json_print_progress(const cJSON *exp) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(exp, "progress"), *s;
        struct json_print_progress ret = { 0 };
        size_t n = 0;
        json_print_num(p, "done", &ret.done);
        json_print_num(p, "total", &ret.total);
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(p, "by_state")) {
                if (!cJSON_IsNumber(s) || s->valuedouble <= 0 || !under_way(s->string))
                        continue;
                int k = snprintf(ret.phases + n, sizeof ret.phases - n, "%s%.0f %s", n ? ", " : "",
                                 s->valuedouble, s->string);
                if (k < 0 || (size_t) k >= sizeof ret.phases - n) {
                        ret.phases[n] = '\0';
                        break;
                }
                n += (size_t) k;
        }
        return ret;
}

char *json_print_labels(const cJSON *labels) {
        const cJSON *l;
        char *s = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&s, &size);
        if (!f)
                abort();
        cJSON_ArrayForEach(l, labels)
                fprintf(f, "%s%s=%s", l == labels->child ? "" : ", ", l->string, json_print_str(labels, l->string));
        if (!labels || !labels->child)
                fputc('-', f);
        if (fclose(f) != 0)
                abort();
        return s;
}

cJSON *json_print_text(const char *s, size_t n) {
        _cleanup_free_ char *out = utf8_sanitize_dup(s, n);
        if (!out)
                abort();
        cJSON *j = cJSON_CreateString(out);
        if (!j)
                abort();
        return j;
}

/* "MEAN req/s (LOW-HIGH)" of a Stats, or "-" */
static const char *stats_rps(const cJSON *stats, char *buf, size_t size) {
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(stats, "ci95");
        double mean, lo, hi;
        if (!json_print_num(stats, "mean", &mean))
                snprintf(buf, size, "-");
        else if (json_print_num(ci, "low", &lo) && json_print_num(ci, "high", &hi))
                snprintf(buf, size, "%.0f req/s (%.0f-%.0f)", mean, lo, hi);
        else
                snprintf(buf, size, "%.0f req/s", mean);
        return buf;
}

void json_print_capacity(const cJSON *cells) {
        static const char per_sla[] = "capacity.per_sla.";
        const cJSON *cell, *m;
        bool any = false;
        char buf[96];

        cJSON_ArrayForEach(cell, cells) {
                const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(cell, "metrics");
                const cJSON *max = cJSON_GetObjectItemCaseSensitive(metrics, "capacity.max_rps");
                if (!max)
                        continue;
                if (!any)
                        printf("\ncapacity (the highest rate that met every SLA, mean and 95%% interval):\n");
                any = true;
                printf("  %s: max %s", json_print_str(cell, "name"), stats_rps(max, buf, sizeof buf));
                printf(", critical %s", stats_rps(cJSON_GetObjectItemCaseSensitive(metrics, "capacity.critical_rps"),
                                                   buf, sizeof buf));
                cJSON_ArrayForEach(m, metrics)
                        if (strncmp(m->string, per_sla, sizeof per_sla - 1) == 0)
                                printf(", %s %s", m->string + sizeof per_sla - 1, stats_rps(m, buf, sizeof buf));
                printf("\n");
        }
}

static void print_comparison(const cJSON *c, double rounds, double max_rounds) {
        double round, ratio;
        const cJSON *interval = cJSON_GetObjectItemCaseSensitive(c, "interval");
        printf("  %s vs %s %s: %s", json_print_str(c, "cell"), json_print_str(c, "baseline"), json_print_str(c, "metric"),
               json_print_str(c, "decision"));
        if (json_print_num(c, "round", &round))
                printf(" at round %.0f", round);
        else
                printf(" at round %.0f of %.0f", rounds, max_rounds);
        if (json_print_num(c, "ratio", &ratio))
                printf(", ratio %.3f", ratio);
        if (cJSON_IsObject(interval))
                printf(" [%.3f-%.3f]", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(interval, "low")),
                       cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(interval, "high")));
        else
                printf(" (no bound yet: too few rounds for the level)");
        printf("\n");
}

void json_print_sequential(const cJSON *sequential) {
        double rounds = 0, max_rounds = 0, level = 0, each = 0, margin = 0;
        const cJSON *c;
        if (!cJSON_IsObject(sequential))
                return;
        json_print_num(sequential, "rounds", &rounds);
        json_print_num(sequential, "max_rounds", &max_rounds);
        json_print_num(sequential, "level", &level);
        json_print_num(sequential, "level_each", &each);
        json_print_num(sequential, "difference_pct", &margin);
        printf("stop rule: %s after %.0f of at most %.0f rounds (confidence sequences, %g%% shared: %g%% each; "
               "equivalent within %g%%):\n",
               json_print_str(sequential, "state"), rounds, max_rounds, level * 100, each * 100, margin);
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(sequential, "comparisons"))
                print_comparison(c, rounds, max_rounds);
}

int json_print_get(struct http *h, bool json, const char *path, void (*show)(const cJSON *j)) {
        _cleanup_json_ cJSON *j = NULL;
        int k = http_get_json(h, path, &j);
        if (k != 0)
                return k;
        if (json)
                json_print(j);
        else
                show(j);
        return EXIT_OK;
}
