/* report.c: `report` (the seed-style table contrib/demo.sh prints, then findings and the
 * verdict when the report carries them), `findings` and `compare`. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"
#include "client/load-hosts.h"
#include "client/run-failures.h"

#define ROW_FORMAT "%-24s %-22s %-12s %-10s %-9s %-9s %-10s %-12s %-14s %-18s %s\n"

static const cJSON *metric(const cJSON *cell, const char *key) {
        return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cell, "metrics"), key);
}

static bool metric_mean(const cJSON *cell, const char *key, double *ret) {
        return json_print_num(metric(cell, key), "mean", ret);
}

/* value rounded to decimals and unit, or "-" */
static const char *fmt(char *buf, size_t size, bool have, double v, int decimals, const char *unit) {
        if (!have)
                snprintf(buf, size, "-");
        else
                snprintf(buf, size, "%.*f%s", decimals, v, unit);
        return buf;
}

/* The mean a metric's interval belongs to: the geometric mean (marked "g") where the interval is
 * of it (interval_of), else the arithmetic mean; so that no interval stands beside another mean. */
static bool interval_center(const cJSON *stats, double *ret, const char **ret_mark) {
        bool geometric = strcmp(json_print_str(stats, "interval_of"), "geometric_mean") == 0;
        *ret_mark = geometric ? "g" : "";
        return json_print_num(stats, geometric ? "geometric_mean" : "mean", ret);
}

/* The cell's throughput (requests, or a control benchmark's ops): "1000g [980-1020]", the mean
 * its 95% interval belongs to and the interval. */
static const char *throughput(const cJSON *cell, char *buf, size_t size, const char **key) {
        double center, lo, hi;
        const char *mark;
        *key = metric(cell, "throughput_rps") ? "throughput_rps" : "ops_per_s";
        const cJSON *m = metric(cell, *key);
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(m, "ci95");
        if (!interval_center(m, &center, &mark))
                return fmt(buf, size, false, 0, 0, "");
        if (json_print_num(ci, "low", &lo) && json_print_num(ci, "high", &hi))
                snprintf(buf, size, "%.0f%s [%.0f-%.0f]", center, mark, lo, hi);
        else
                snprintf(buf, size, "%.0f%s", center, mark);
        return buf;
}

static const char *ratio(const cJSON *cell, const char *key, char *buf, size_t size) {
        const cJSON *ratios = cJSON_GetObjectItemCaseSensitive(cell, "ratios");
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(ratios, key);
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(r, "ci95");
        double v, lo, hi;
        if (cJSON_IsNull(ratios) || !ratios)
                return snprintf(buf, size, "1 (baseline)"), buf;
        if (!json_print_num(r, "ratio", &v))
                return snprintf(buf, size, "-"), buf;
        if (json_print_num(ci, "low", &lo) && json_print_num(ci, "high", &hi))
                snprintf(buf, size, "%.3f (%.3f-%.3f)%s%s", v, lo, hi,
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "excludes_one")) ? " *" : "",
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "approximate")) ? " ~" : "");
        else
                snprintf(buf, size, "%.3f", v);
        return buf;
}

/* The governors of the cell's first succeeded run's CPUs, "a,b" (the report has no strings). */
static void governors(struct http *h, const cJSON *runs, const char *cell, char *buf, size_t size) {
        const cJSON *r, *g;
        snprintf(buf, size, "n/a");
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(runs, "runs")) {
                if (strcmp(json_print_str(r, "cell"), cell) != 0 ||
                    strcmp(json_print_str(r, "state"), "succeeded") != 0)
                        continue;
                _cleanup_free_ char *path = http_path(h, "/v1/runs/", json_print_str(r, "id"), "");
                _cleanup_json_ cJSON *run = NULL;
                if (http_get_json(h, path, &run) != 0)
                        return;
                size_t n = 0;
                cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "metrics"), "cpu"), "governor")) {
                        const char *s = str_or(cJSON_GetStringValue(g), "n/a");
                        if (n > 0 && strstr(buf, s))
                                continue;
                        n += (size_t) snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "," : "", s);
                }
                return;
        }
}

/* The runs' steady-state classes (metrics.steady_state): "3 warmup", "2 flat, 1 warmup", "-". */
static const char *steady_states(const cJSON *cell, char *buf, size_t size) {
        const cJSON *c, *classes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cell, "steady_state"), "classes");
        size_t n = 0;
        snprintf(buf, size, "-");
        cJSON_ArrayForEach(c, classes) {
                if (!cJSON_IsNumber(c) || c->valuedouble <= 0 || n >= size)
                        continue;
                n += (size_t) snprintf(buf + n, size - n, "%s%.0f %s", n ? ", " : "", c->valuedouble, c->string);
        }
        return buf;
}

/* " (2 of 3 steady)" unless every run of the cell was found steady (the cell's warmup.auto): of
 * the runs that say how their warmup ended, so that a run that does not is counted in neither. */
static void warmup_steady(const cJSON *warmup, char *buf, size_t size) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(warmup, "auto");
        double runs, steady, not_steady;
        buf[0] = '\0';
        if (!json_print_num(warmup, "runs", &runs) || !json_print_num(a, "steady", &steady) ||
            !json_print_num(a, "not_steady", &not_steady) || steady == runs)
                return;
        snprintf(buf, size, " (%.0f of %.0f steady)", steady, steady + not_steady);
}

/* The warmup the runs had (the cell's warmup, from metrics.warmup_s): "21.2 s" when all lasted
 * the same within 0.1 s (counted in whole ms, so that 21.1 and 21.2 are within it), else the
 * range "19.8-23.1 s"; then how many were steady with warmup "auto"; "-" without one. */
static const char *warmup(const cJSON *cell, char *buf, size_t size) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(cell, "warmup");
        double lo, hi, mean;
        char steady[40];
        if (!json_print_num(w, "min_s", &lo) || !json_print_num(w, "max_s", &hi) || !json_print_num(w, "mean_s", &mean))
                return fmt(buf, size, false, 0, 0, "");
        warmup_steady(w, steady, sizeof steady);
        if (llround(hi * 1000) - llround(lo * 1000) <= 100)
                snprintf(buf, size, "%.1f s%s", mean, steady);
        else
                snprintf(buf, size, "%.1f-%.1f s%s", lo, hi, steady);
        return buf;
}

static void print_row(struct http *h, const cJSON *cell, const cJSON *runs) {
        char tp[48], p99[24], gc[24], jit[24], cc[40], thr[24], gov[64], rt[64], a[16], b[16], steady[80], wu[80];
        const char *key;
        double v, w, periods, throttled;
        bool have;

        throughput(cell, tp, sizeof tp, &key);
        have = metric_mean(cell, "latency_us.scheduled.p99", &v);
        fmt(p99, sizeof p99, have, v / 1000, 1, " ms");
        have = metric_mean(cell, "gc.pause_total_ms", &v);
        fmt(gc, sizeof gc, have, v, 1, " ms");
        have = metric_mean(cell, "jit.compile_time_s", &v);
        fmt(jit, sizeof jit, have, v, 2, " s");
        have = metric_mean(cell, "jvm.CICompilerCount", &v);
        fmt(a, sizeof a, have, v, 0, "");
        have = metric_mean(cell, "jvm.ParallelGCThreads", &w);
        fmt(b, sizeof b, have, w, 0, "");
        snprintf(cc, sizeof cc, "%s/%s", a, b);
        have = metric_mean(cell, "cgroup.nr_periods", &periods) && periods > 0 &&
               metric_mean(cell, "cgroup.nr_throttled", &throttled);
        fmt(thr, sizeof thr, have, have ? 100 * throttled / periods : 0, 1, "%");
        governors(h, runs, json_print_str(cell, "name"), gov, sizeof gov);
        printf(ROW_FORMAT, json_print_str(cell, "name"), tp, p99, gc, jit, cc, thr, gov, warmup(cell, wu, sizeof wu),
               steady_states(cell, steady, sizeof steady), ratio(cell, key, rt, sizeof rt));
}

static void print_findings(const cJSON *findings) {
        const cJSON *f;
        cJSON_ArrayForEach(f, findings) {
                /* The id first: claims name other findings by it ("F5 (throttling) ... can explain it"). */
                printf("%s [%s] %s: %s\n", json_print_str(f, "id"), json_print_str(f, "severity"), json_print_str(f, "kind"),
                       json_print_str(f, "claim"));
                if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "suggestion")))
                        printf("    suggestion: %s\n", json_print_str(f, "suggestion"));
        }
}

static void print_verdict(const cJSON *verdict) {
        const cJSON *c;
        printf("checks: %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(verdict, "passed")) ? "passed" : "FAILED");
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(verdict, "checks")) {
                double v;
                char val[32];
                bool have = json_print_num(c, "value", &v);
                const cJSON *note = cJSON_GetObjectItemCaseSensitive(c, "note");
                printf("  %-6s %s %s%s%s = %s%s%s\n",
                       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed")) ? "pass" : "FAIL",
                       json_print_str(c, "cell"), json_print_str(c, "metric"),
                       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "ratio_to")) ? " / " : "",
                       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "ratio_to")) ? json_print_str(c, "ratio_to") : "",
                       fmt(val, sizeof val, have, v, 4, ""), cJSON_IsString(note) ? ": " : "",
                       cJSON_IsString(note) ? note->valuestring : "");
        }
}

/* "/v1/experiments/ID/WHAT", with "?baseline=CELL" when baseline is given */
static char *experiment_path(struct http *h, const char *id, const char *what, const char *baseline) {
        _cleanup_free_ char *p = http_path(h, "/v1/experiments/", id, what);
        char *q;
        if (!baseline)
                return TAKE_PTR(p);
        _cleanup_free_ char *b = http_escape(h, baseline);
        if (asprintf(&q, "%s?baseline=%s", p, b) < 0)
                abort();
        return q;
}

/* The baseline asked for, or the definition's first cell. */
static int pick_baseline(struct http *h, const struct client_options *o, const char *id, char **ret) {
        _cleanup_free_ char *path = NULL;
        _cleanup_json_ cJSON *exp = NULL;
        if (o->baseline) {
                *ret = strdup(o->baseline);
                return 0;
        }
        path = experiment_path(h, id, "", NULL);
        int k = http_get_json(h, path, &exp);
        if (k != 0)
                return k;
        const cJSON *cells = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(exp, "definition"), "cells");
        *ret = strdup(json_print_str(cJSON_GetArrayItem(cells, 0), "name"));
        return 0;
}

int cmd_report(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *baseline = NULL, *path = NULL, *rpath = NULL;
        _cleanup_json_ cJSON *report = NULL, *runs = NULL;
        const cJSON *cell;
        int k;

        if ((k = pick_baseline(h, o, id, &baseline)) != 0)
                return k;
        path = experiment_path(h, id, "/report", baseline);
        if ((k = http_get_json(h, path, &report)) != 0)
                return k;
        if (o->json) {
                json_print(report);
                return exit_status_of_experiment(report);
        }
        rpath = experiment_path(h, id, "/runs", NULL);
        if ((k = http_get_json(h, rpath, &runs)) != 0)
                return k;
        printf("experiment %s: %s\n\n", id, json_print_str(report, "status"));
        printf(ROW_FORMAT, "cell", "throughput", "p99 sched", "GC pause", "compile", "CICC/PGC",
               "throttled", "governor", "warmup", "steady state", "ratio to baseline (95% CI)");
        cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(report, "cells"))
                print_row(h, cell, runs);
        printf("\n(throughput in req/s, or ops/s for a benchmark without load: g = the geometric mean, which its 95%% interval\n"
               " [low-high] belongs to, else the arithmetic mean; ratios are of geometric means, or of means (Fieller's) where\n"
               " a value is not above 0; * = the 95%% interval of the ratio excludes 1; ~ = that interval is approximate:\n"
               " fewer than 5 iterations on a side and sides of different sizes)\n");
        json_print_capacity(cJSON_GetObjectItemCaseSensitive(report, "cells"));
        load_hosts_print_summary(h, runs);
        const cJSON *findings = cJSON_GetObjectItemCaseSensitive(report, "findings");
        if (cJSON_GetArraySize(findings) > 0) {
                printf("\nfindings:\n");
                print_findings(findings);
        }
        const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(report, "verdict");
        if (cJSON_IsObject(verdict)) {
                printf("\n");
                print_verdict(verdict);
        }
        const cJSON *sequential = cJSON_GetObjectItemCaseSensitive(report, "sequential");
        if (cJSON_IsObject(sequential)) {
                printf("\n");
                json_print_sequential(sequential);
        }
        if (run_failures_expected(report)) {
                printf("\n");
                if ((k = run_failures_print(h, id, stdout)) != 0)
                        return k;
        }
        return exit_status_of_experiment(report);
}

static void show_findings(const cJSON *j) {
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")) == 0)
                printf("no findings against baseline %s\n", json_print_str(j, "baseline"));
        else
                print_findings(cJSON_GetObjectItemCaseSensitive(j, "findings"));
}

int cmd_findings(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *path = experiment_path(h, id, "/findings", o->baseline);
        return json_print_get(h, o->json, path, show_findings);
}

/* --- compare: per metric, both sides and the ratio b/a ---------------------------------------- */

static void print_side(const cJSON *stats) {
        double center = 0;
        const char *mark;
        char buf[32];
        bool have = interval_center(stats, &center, &mark);
        printf(" %14s", fmt(buf, sizeof buf, have, center, 3, mark));
}

static void print_compare_metric(const char *name, const cJSON *m) {
        char rt[64];
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "ratio");
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(r, "ci95");
        double v, lo, hi;
        bool have = json_print_num(r, "ratio", &v);

        printf("  %-32s", name);
        print_side(cJSON_GetObjectItemCaseSensitive(m, "a"));
        print_side(cJSON_GetObjectItemCaseSensitive(m, "b"));
        if (!have)
                snprintf(rt, sizeof rt, "-");
        else if (json_print_num(ci, "low", &lo) && json_print_num(ci, "high", &hi))
                snprintf(rt, sizeof rt, "%.3f (%.3f-%.3f)%s", v, lo, hi,
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "approximate")) ? " ~" : "");
        else
                snprintf(rt, sizeof rt, "%.3f", v);
        printf("  %s\n", rt);
}

/* metrics: keyed by metric, each {"a": Stats, "b": Stats, "ratio": Ratio or null} */
static void print_compare_metrics(const cJSON *metrics) {
        const cJSON *m;
        printf("  %-32s %14s %14s  %s\n", "metric", "a (mean; g=geo)", "b (mean; g=geo)", "b/a (95% CI; ~ approximate)");
        cJSON_ArrayForEach(m, metrics)
                print_compare_metric(m->string, m);
}

static void show_compare(const cJSON *j) {
        const cJSON *w, *cell, *d;
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "a"), *b = cJSON_GetObjectItemCaseSensitive(j, "b");
        printf("a: %s %s (%s)\n", json_print_str(a, "experiment_id"), json_print_str(a, "name"),
               json_print_str(a, "status"));
        printf("b: %s %s (%s)\n", json_print_str(b, "experiment_id"), json_print_str(b, "name"),
               json_print_str(b, "status"));
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(j, "differences")) {
                _cleanup_free_ char *va = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "a"));
                _cleanup_free_ char *vb = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "b"));
                printf("differs (%s) %s: %s vs %s\n", json_print_str(d, "source"), json_print_str(d, "field"),
                       str_or(va, "-"), str_or(vb, "-"));
        }
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(j, "warnings"))
                printf("warning: %s\n", str_or(cJSON_GetStringValue(w), "?"));
        cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(j, "cells")) {
                printf("\ncell %s vs %s:\n", json_print_str(cell, "a"), json_print_str(cell, "b"));
                print_compare_metrics(cJSON_GetObjectItemCaseSensitive(cell, "metrics"));
        }
}

int cmd_compare(struct http *h, const struct client_options *o, const char *a, const char *b) {
        _cleanup_free_ char *ea = http_escape(h, a), *eb = http_escape(h, b), *path = NULL;
        if (asprintf(&path, "/v1/compare?a=%s&b=%s", ea, eb) < 0)
                abort();
        return json_print_get(h, o->json, path, show_compare);
}
