/* test-findings.c: every rule with fixtures: it fires on the evidence and stays silent
 * without it. Fixtures are the stored data as JSON (runs' metrics, samples, the tail scan's
 * counts); the governor and frequency fixtures go through a sysfs-like cpufreq tree read by
 * host/ exactly as a run records it. Also the streaming tail scan, and the ordering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/cpulist.h"
#include "basic/json-util.h"
#include "basic/timeline-format.h"
#include "findings/findings-compare.h"
#include "findings/findings.h"
#include "findings/profile-shares.h"
#include "findings/rules.h"
#include "host/host-cpufreq.h"
#include "test-tmp.h"

#define MAX_CELLS 4
#define MAX_RUNS 8

struct fixture {
        cJSON *root;
        struct findings_input in;
        struct findings_cell cells[MAX_CELLS];
        struct findings_run runs[MAX_CELLS][MAX_RUNS];
};

/* {"definition":{..},"baseline":0,"cells":[{"name","def","runs":[{"id","metrics","samples",
 *  "tail":{"tail","in_pause","in_throttled","have_throttle"}}]}]} */
static void fixture_load(struct fixture *f, const char *json) {
        memset(f, 0, sizeof *f);
        f->root = cJSON_Parse(json);
        assert_non_null(f->root);
        f->in.experiment_id = "exp";
        f->in.definition = cJSON_GetObjectItem(f->root, "definition");
        f->in.baseline = (size_t) cJSON_GetNumberValue(cJSON_GetObjectItem(f->root, "baseline"));
        if (f->in.baseline > MAX_CELLS)
                f->in.baseline = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(f->root, "cells")) {
                struct findings_cell *cell = &f->cells[f->in.n_cells];
                cell->name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
                cell->def = cJSON_GetObjectItem(c, "def");
                cell->runs = f->runs[f->in.n_cells];
                const cJSON *r;
                cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "runs")) {
                        struct findings_run *run = &cell->runs[cell->n_runs++];
                        run->id = cJSON_GetStringValue(cJSON_GetObjectItem(r, "id"));
                        run->iteration = (unsigned) cell->n_runs;
                        run->metrics = cJSON_GetObjectItem(r, "metrics");
                        run->samples = cJSON_GetObjectItem(r, "samples");
                        run->profile = cJSON_GetStringValue(cJSON_GetObjectItem(r, "profile"));
                        run->profile_len = run->profile ? strlen(run->profile) : 0;
                        const cJSON *t = cJSON_GetObjectItem(r, "tail");
                        if (t)
                                run->tail = (struct findings_tail){
                                        .have = true,
                                        .tail = (uint64_t) cJSON_GetNumberValue(cJSON_GetObjectItem(t, "tail")),
                                        .in_pause = (uint64_t) cJSON_GetNumberValue(cJSON_GetObjectItem(t, "in_pause")),
                                        .in_throttled = (uint64_t) cJSON_GetNumberValue(cJSON_GetObjectItem(t, "in_throttled")),
                                        .have_throttle = cJSON_IsTrue(cJSON_GetObjectItem(t, "have_throttle")),
                                };
                }
                f->in.n_cells++;
        }
        f->in.cells = f->cells;
}

static void fixture_done(struct fixture *f) {
        cJSON_Delete(f->root);
}

/* The findings of one rule over a fixture. */
static cJSON *run_rule(findings_rule_fn fn, const char *json) {
        struct fixture f;
        fixture_load(&f, json);
        cJSON *out = cJSON_CreateArray();
        fn(&f.in, out);
        /* the rule's findings reference nothing of the fixture: keep them after it is gone */
        fixture_done(&f);
        return out;
}

/* How many findings of kind (and severity, NULL = any) name cell (NULL = any). */
static int count(const cJSON *out, const char *kind, const char *severity, const char *cell) {
        int n = 0;
        const cJSON *f;
        cJSON_ArrayForEach(f, out) {
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), kind) != 0)
                        continue;
                if (severity && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "severity")), severity) != 0)
                        continue;
                bool named = cell == NULL;
                const cJSON *c;
                cJSON_ArrayForEach(c, cJSON_GetObjectItem(f, "cells"))
                        named = named || strcmp(cJSON_GetStringValue(c), cell) == 0;
                n += named;
        }
        return n;
}

static const char *claim_of(const cJSON *out, int i) {
        return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(out, i), "claim"));
}

/* Two cells of 3 runs with the given metrics objects. */
static char *two_cells(const char *def, const char *a1, const char *a2, const char *a3, const char *b1,
                       const char *b2, const char *b3) {
        char *s = NULL;
        int n = asprintf(&s,
                         "{\"definition\":%s,\"baseline\":0,\"cells\":["
                         "{\"name\":\"A\",\"def\":{\"name\":\"A\",\"cpus\":\"1\"},\"runs\":[{\"id\":\"a1\",\"metrics\":%s},{\"id\":\"a2\",\"metrics\":%s},{\"id\":\"a3\",\"metrics\":%s}]},"
                         "{\"name\":\"B\",\"def\":{\"name\":\"B\",\"cpus\":\"0-1\",\"cpu_quota\":1.0},\"runs\":[{\"id\":\"b1\",\"metrics\":%s},{\"id\":\"b2\",\"metrics\":%s},{\"id\":\"b3\",\"metrics\":%s}]}]}",
                         def, a1, a2, a3, b1, b2, b3);
        assert_true(n > 0);
        return s;
}

#define DEF "{\"load\":{\"target\":\"http://127.0.0.1:1/\",\"rate\":1000,\"connections\":16,\"measure_s\":10,\"cpus\":\"0\"}}"

/* ---- difference ---- */

#define LAT(p50, p99, p999) "\"latency_us\":{\"scheduled\":{\"p50\":" #p50 ",\"p99\":" #p99 ",\"p999\":" #p999 "}}"
#define CG(periods, throttled, secs) "\"cgroup\":{\"nr_periods\":" #periods ",\"nr_throttled\":" #throttled ",\"throttled_s\":" #secs "}"

static void test_difference(void **state) {
        _cleanup_free_ char *slower = two_cells(DEF,
                "{\"throughput_rps\":1000," LAT(100, 6200, 9000) "}", "{\"throughput_rps\":1010," LAT(101, 6100, 9100) "}",
                "{\"throughput_rps\":990," LAT(99, 6300, 8900) "}",
                "{\"throughput_rps\":730," LAT(300, 46000, 60000) "}", "{\"throughput_rps\":740," LAT(310, 46600, 61000) "}",
                "{\"throughput_rps\":725," LAT(305, 47000, 59000) "}");
        cJSON *out = run_rule(findings_rule_difference, slower);
        assert_int_equal(count(out, "difference", "high", "B"), 4);
        bool said = false;
        for (int i = 0; i < cJSON_GetArraySize(out); i++)
                said = said || strstr(claim_of(out, i), "geometric mean of throughput is 27% lower than in A (98.75% interval, "
                                                        "Bonferroni over 4 metrics: ") != NULL;
        assert_true(said);
        cJSON_Delete(out);

        /* A/A: noise of a few percent, no finding above info, and it says so */
        _cleanup_free_ char *same = two_cells(DEF,
                "{\"throughput_rps\":1000," LAT(100, 6200, 9000) "}", "{\"throughput_rps\":1030," LAT(104, 6500, 9400) "}",
                "{\"throughput_rps\":980," LAT(98, 6000, 8800) "}",
                "{\"throughput_rps\":1010," LAT(101, 6400, 9300) "}", "{\"throughput_rps\":990," LAT(99, 6100, 8900) "}",
                "{\"throughput_rps\":1020," LAT(103, 6300, 9100) "}");
        out = run_rule(findings_rule_difference, same);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "difference", "info", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "no significant difference"));
        assert_non_null(strstr(claim_of(out, 0), "includes 1"));
        assert_non_null(strstr(claim_of(out, 0), "(98.75% interval, Bonferroni over 4 metrics)"));
        cJSON_Delete(out);
}

/* Two cells of 2 runs each: throughput as given, latencies alike. */
static char *two_by_two(double a1, double a2, double b1, double b2) {
        char *s = NULL;
        int n = asprintf(&s,
                         "{\"definition\":{},\"baseline\":0,\"cells\":["
                         "{\"name\":\"A\",\"runs\":[{\"id\":\"a1\",\"metrics\":{\"throughput_rps\":%g," LAT(100, 6200, 9000) "}},"
                         "{\"id\":\"a2\",\"metrics\":{\"throughput_rps\":%g," LAT(101, 6300, 9100) "}}]},"
                         "{\"name\":\"B\",\"runs\":[{\"id\":\"b1\",\"metrics\":{\"throughput_rps\":%g," LAT(101, 6250, 9050) "}},"
                         "{\"id\":\"b2\",\"metrics\":{\"throughput_rps\":%g," LAT(100, 6210, 9020) "}}]}]}",
                         a1, a2, b1, b2);
        assert_true(n > 0);
        return s;
}

/* The case that printed "ratio 1.032, 95% CI 1.014-1.051 includes 1": 2 iterations a side,
 * throughput 3% apart, excluded by the 95% interval but not by the one the rule decides with (4
 * metrics: 98.75%; by scipy, log-Welch: 95% 1.0136-1.0506, 98.75% 0.9945-1.0708). The claim
 * prints the interval it decided with, and the noise rule gives that metric the hint. */
static void test_difference_level(void **state) {
        _cleanup_free_ char *json = two_by_two(1000, 1006, 1032, 1038);
        cJSON *out = run_rule(findings_rule_difference, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "difference", "info", "B"), 1);
        const char *claim = claim_of(out, 0);
        assert_non_null(strstr(claim, "no significant difference from A (98.75% interval, Bonferroni over 4 metrics)"));
        assert_non_null(strstr(claim, "throughput (ratio of geometric means 1.032, interval 0.994-1.071 includes 1)"));
        assert_null(strstr(claim, "1.014"));
        assert_null(strstr(claim, "approximate"));
        cJSON_Delete(out);

        out = run_rule(findings_rule_noise, json);
        bool hint = false;
        for (int i = 0; i < cJSON_GetArraySize(out); i++)
                hint = hint || (strstr(claim_of(out, i), "(98.75% interval, Bonferroni over 4 metrics) are too wide to decide a 3% "
                                                         "difference: throughput_rps (0.994-1.071)") &&
                                strstr(claim_of(out, i), "iterations per cell would decide it with 80% power"));
        assert_true(hint);
        cJSON_Delete(out);
}

/* Few iterations on a side and sides of different sizes: the interval is approximate, and the
 * finding says so. */
static void test_difference_approximate(void **state) {
        const char *json =
                "{\"definition\":{},\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"runs\":[{\"id\":\"a1\",\"metrics\":{\"throughput_rps\":1000}},{\"id\":\"a2\",\"metrics\":{\"throughput_rps\":1010}}]},"
                "{\"name\":\"B\",\"runs\":[{\"id\":\"b1\",\"metrics\":{\"throughput_rps\":700}},{\"id\":\"b2\",\"metrics\":{\"throughput_rps\":705}},"
                "  {\"id\":\"b3\",\"metrics\":{\"throughput_rps\":702}},{\"id\":\"b4\",\"metrics\":{\"throughput_rps\":698}}]}]}";
        cJSON *out = run_rule(findings_rule_difference, json);
        assert_int_equal(count(out, "difference", "high", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "(95% interval: "));
        assert_non_null(strstr(claim_of(out, 0), "approximate: fewer than 5 iterations on a side and sides of different sizes"));
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0), "approximate")));
        cJSON_Delete(out);

        /* undecided at 2 vs 4: the noise rule's hint says its intervals are approximate too */
        const char *wide =
                "{\"definition\":{},\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"runs\":[{\"id\":\"a1\",\"metrics\":{\"throughput_rps\":1000}},{\"id\":\"a2\",\"metrics\":{\"throughput_rps\":1040}}]},"
                "{\"name\":\"B\",\"runs\":[{\"id\":\"b1\",\"metrics\":{\"throughput_rps\":990}},{\"id\":\"b2\",\"metrics\":{\"throughput_rps\":1050}},"
                "  {\"id\":\"b3\",\"metrics\":{\"throughput_rps\":1010}},{\"id\":\"b4\",\"metrics\":{\"throughput_rps\":1030}}]}]}";
        out = run_rule(findings_rule_noise, wide);
        bool said = false;
        for (int i = 0; i < cJSON_GetArraySize(out); i++)
                said = said || (strstr(claim_of(out, i), "too wide") &&
                                strstr(claim_of(out, i), "; the intervals are approximate: fewer than 5 iterations on a side"));
        assert_true(said);
        cJSON_Delete(out);

        /* the same sizes: not approximate */
        _cleanup_free_ char *even = two_by_two(1000, 1010, 700, 705);
        out = run_rule(findings_rule_difference, even);
        for (int i = 0; i < cJSON_GetArraySize(out); i++)
                assert_null(strstr(claim_of(out, i), "approximate"));
        cJSON_Delete(out);
}

/* Two runs a side, p99 only (one metric: 95%), the cell's values ln 0.8 below the baseline's and
 * each side spread by +-h on the log scale: Welch's interval is exp(ln 0.8 +- t(0.975, 2) h sqrt 2),
 * t = 4.303 (df 2). The A/A run in CI that read "20% lower, interval 4.6% to 32.7%" was called
 * high by its point estimate; its interval supports 4.6%. */
static char *p99_two_by_two(double h) {
        char *s = NULL;
        int n = asprintf(&s,
                         "{\"definition\":{},\"baseline\":0,\"cells\":["
                         "{\"name\":\"A\",\"runs\":[{\"id\":\"a1\",\"metrics\":{\"latency_us\":{\"scheduled\":{\"p99\":%.6f}}}},"
                         "{\"id\":\"a2\",\"metrics\":{\"latency_us\":{\"scheduled\":{\"p99\":%.6f}}}}]},"
                         "{\"name\":\"B\",\"runs\":[{\"id\":\"b1\",\"metrics\":{\"latency_us\":{\"scheduled\":{\"p99\":%.6f}}}},"
                         "{\"id\":\"b2\",\"metrics\":{\"latency_us\":{\"scheduled\":{\"p99\":%.6f}}}}]}]}",
                         5000 * exp(h), 5000 * exp(-h), 4000 * exp(h), 4000 * exp(-h));
        assert_true(n > 0);
        return s;
}

/* A difference's severity is what its interval supports (its bound nearest 1), not its point
 * estimate: 20% lower with the upper bound at 0.970 (3.0%) is info, at 0.92 (8%) medium, at
 * 0.88 (12%) high. h from the bound: (ln bound - ln 0.8) / (4.303 sqrt 2). */
static void test_difference_severity(void **state) {
        static const struct {
                double bound;
                const char *severity, *says;
        } cases[] = {
                { 0.970, "info", "20% lower than in A (95% interval: 3.0% to 34.0% lower)" },
                { 0.920, "medium", "20% lower than in A (95% interval: 8.0% to 30.4% lower)" },
                { 0.880, "high", "20% lower than in A (95% interval: 12.0% to 27.3% lower)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                double h = (log(cases[i].bound) - log(0.8)) / (4.302653 * sqrt(2));
                _cleanup_free_ char *json = p99_two_by_two(h);
                cJSON *out = run_rule(findings_rule_difference, json);
                assert_int_equal(cJSON_GetArraySize(out), 1);
                assert_int_equal(count(out, "difference", cases[i].severity, "B"), 1);
                if (!strstr(claim_of(out, 0), cases[i].says))
                        fail_msg("case %zu: %s", i, claim_of(out, 0));
                cJSON_Delete(out);
        }
}

/* Two cells of 3 runs (rounds) each, throughput only, under a stop rule on it with baseline A. */
static char *stop_fixture(double a1, double a2, double a3, double b1, double b2, double b3, unsigned max) {
        char def[256], m[6][48];
        const double v[6] = { a1, a2, a3, b1, b2, b3 };
        snprintf(def, sizeof def,
                 "{\"iterations\":{\"min\":3,\"max\":%u},\"stop\":{\"baseline\":\"A\",\"metrics\":[\"throughput_rps\"],"
                 "\"difference_pct\":3,\"level\":0.95}}", max);
        for (size_t i = 0; i < 6; i++)
                snprintf(m[i], sizeof m[i], "{\"throughput_rps\":%g}", v[i]);
        return two_cells(def, m[0], m[1], m[2], m[3], m[4], m[5]);
}

static bool any_claim(const cJSON *out, const char *kind, const char *text) {
        for (int i = 0; i < cJSON_GetArraySize(out); i++) {
                const cJSON *f = cJSON_GetArrayItem(out, i);
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), kind) == 0 && strstr(claim_of(out, i), text))
                        return true;
        }
        return false;
}

/* Under a stop rule the difference and noise rules decide its comparisons with its confidence
 * sequence, as the report's sequential does, and say so: a cell at half the baseline is
 * different at round 3; an undecided one is not sent for a re-run but told iterations.max was
 * reached; one within 3% on every round is equivalent. Values as the fixture's rounds: A's and
 * B's run i are round i's pair (log ratios, the sequence's observations). */
static void test_difference_stop_rule(void **state) {
        _cleanup_free_ char *half = stop_fixture(1000, 1010, 990, 500, 507, 494, 8);
        cJSON *out = run_rule(findings_rule_difference, half);
        assert_int_equal(count(out, "difference", "high", "B"), 1);
        if (!any_claim(out, "difference", "(95% confidence sequence of the stop rule, shared by 1 comparison; different at round 3: "))
                fail_msg("%s", claim_of(out, 0));
        cJSON_Delete(out);

        _cleanup_free_ char *alike = stop_fixture(1000, 1010, 990, 1003, 1012, 995, 3);
        out = run_rule(findings_rule_difference, alike);
        assert_int_equal(count(out, "difference", "info", "B"), 1);
        if (!any_claim(out, "difference", "throughput (ratio of geometric means 1.003, 95% confidence sequence of the stop rule, "
                                          "shared by 1 comparison; equivalent at round 3: interval 0.991-1.015)"))
                fail_msg("%s", claim_of(out, 0));
        cJSON_Delete(out);

        _cleanup_free_ char *noisy = stop_fixture(1000, 1060, 950, 1040, 980, 1010, 3);
        out = run_rule(findings_rule_difference, noisy);
        assert_int_equal(count(out, "difference", "info", "B"), 1);
        if (!any_claim(out, "difference", "95% confidence sequence of the stop rule, shared by 1 comparison; undecided after 3 rounds"))
                fail_msg("%s", claim_of(out, 0));
        cJSON_Delete(out);
        out = run_rule(findings_rule_noise, noisy);
        assert_true(any_claim(out, "noise", "the stop rule left cell B's comparison with A undecided after 3 of at most 3 rounds"));
        assert_true(any_claim(out, "noise", "; iterations.max was reached"));
        assert_false(any_claim(out, "noise", "too wide to decide"));
        cJSON_Delete(out);
}

/* A difference names the findings of its cell that can explain it, by id, ergonomics first;
 * without any it says that no rule explains it. */
static void test_difference_causes(void **state) {
        struct fixture f;
#define RUN(rps, apc, pgc, gc) "{\"throughput_rps\":" #rps ",\"jvm\":{\"ActiveProcessorCount\":" #apc ",\"CICompilerCount\":2,\"ParallelGCThreads\":" #pgc ",\"ConcGCThreads\":0,\"gc\":\"" gc "\",\"MaxHeapSize\":134217728}," CG(100, 0, 0) "}"
#define THROTTLED(rps) "{\"throughput_rps\":" #rps ",\"jvm\":{\"ActiveProcessorCount\":2,\"CICompilerCount\":2,\"ParallelGCThreads\":2,\"ConcGCThreads\":0,\"gc\":\"G1\",\"MaxHeapSize\":134217728}," CG(1000, 997, 12.5) "}"
        _cleanup_free_ char *json = two_cells("{}", RUN(1000, 1, 1, "SerialGC"), RUN(1010, 1, 1, "SerialGC"), RUN(990, 1, 1, "SerialGC"),
                                              THROTTLED(730), THROTTLED(740), THROTTLED(725));
        fixture_load(&f, json);
        cJSON *out = findings_compute(&f.in);
        const cJSON *diff = NULL, *x;
        const char *erg = NULL, *thr = NULL;
        cJSON_ArrayForEach(x, out) {
                const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(x, "kind"));
                const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
                if (strcmp(kind, "difference") == 0 && cJSON_GetObjectItem(x, "causes"))
                        diff = x;
                else if (strcmp(kind, "ergonomics") == 0)
                        erg = id;
                else if (strcmp(kind, "throttling") == 0)
                        thr = id;
        }
        assert_non_null(diff);
        assert_non_null(erg);
        assert_non_null(thr);
        const cJSON *causes = cJSON_GetObjectItem(diff, "causes");
        assert_int_equal(cJSON_GetArraySize(causes), 2);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(causes, 0)), erg);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(causes, 1)), thr);
        char want[128];
        snprintf(want, sizeof want, "; findings %s (ergonomics), %s (throttling) of cell B can explain it, most likely first", erg, thr);
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(diff, "claim")), want));
        assert_null(cJSON_GetObjectItem(diff, "_explain_cell"));
        cJSON_Delete(out);
        fixture_done(&f);

        _cleanup_free_ char *plain = two_cells("{}", "{\"throughput_rps\":1000}", "{\"throughput_rps\":1010}", "{\"throughput_rps\":990}",
                                               "{\"throughput_rps\":730}", "{\"throughput_rps\":740}", "{\"throughput_rps\":725}");
        fixture_load(&f, plain);
        out = findings_compute(&f.in);
        bool said = false;
        cJSON_ArrayForEach(x, out) {
                const cJSON *c = cJSON_GetObjectItem(x, "causes");
                if (c) {
                        assert_int_equal(cJSON_GetArraySize(c), 0);
                        said = strstr(cJSON_GetStringValue(cJSON_GetObjectItem(x, "claim")), "; no finding of cell B explains it") != NULL;
                }
        }
        assert_true(said);
        cJSON_Delete(out);
        fixture_done(&f);
#undef RUN
#undef THROTTLED
}

/* The id of the first finding of kind, or NULL. */
static const char *id_of_kind(const cJSON *out, const char *kind) {
        const cJSON *x;
        cJSON_ArrayForEach(x, out) {
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "kind")), kind) == 0)
                        return cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
        }
        return NULL;
}

static bool lists(const cJSON *ids, const char *id) {
        const cJSON *x;
        cJSON_ArrayForEach(x, ids) {
                if (id && strcmp(cJSON_GetStringValue(x), id) == 0)
                        return true;
        }
        return false;
}

/* The difference finding with causes about the metric path (its first evidence's). */
static const cJSON *difference_in(const cJSON *out, const char *path) {
        const cJSON *x;
        cJSON_ArrayForEach(x, out) {
                const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(x, "evidence"), 0);
                if (cJSON_GetObjectItem(x, "causes") && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "metric")), path) == 0)
                        return x;
        }
        return NULL;
}

/* Throttling only slows: a throttled cell that is faster (2 CPUs at quota 1.5 against 1 CPU)
 * does not have it named as what explains its higher throughput; the same figures slower do. */
static void test_causes_direction(void **state) {
        (void) state;
#define QUOTA(rps) "{\"throughput_rps\":" #rps "," CG(1000, 400, 4.0) "}"
        struct fixture f;
        _cleanup_free_ char *faster = two_cells("{}", "{\"throughput_rps\":1000}", "{\"throughput_rps\":1010}", "{\"throughput_rps\":990}",
                                                QUOTA(1510), QUOTA(1500), QUOTA(1520));
        fixture_load(&f, faster);
        cJSON *out = findings_compute(&f.in);
        const char *thr = id_of_kind(out, "throttling");
        const cJSON *diff = difference_in(out, "throughput_rps");
        assert_non_null(thr);
        assert_non_null(diff);
        assert_false(lists(cJSON_GetObjectItem(diff, "causes"), thr));
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(diff, "claim")), "(better); no finding of cell B explains it"));
        cJSON_Delete(out);
        fixture_done(&f);

        _cleanup_free_ char *slower = two_cells("{}", "{\"throughput_rps\":1000}", "{\"throughput_rps\":1010}", "{\"throughput_rps\":990}",
                                                QUOTA(710), QUOTA(700), QUOTA(720));
        fixture_load(&f, slower);
        out = findings_compute(&f.in);
        thr = id_of_kind(out, "throttling");
        diff = difference_in(out, "throughput_rps");
        assert_non_null(diff);
        assert_true(lists(cJSON_GetObjectItem(diff, "causes"), thr));
        cJSON_Delete(out);
        fixture_done(&f);
#undef QUOTA
}

/* A JIT still compiling at a like size in the baseline's window (1.56 s vs 1.65 s) is not what
 * makes the cell slower: it is listed as shared, and the claim says the baseline has it too;
 * three times the baseline's is a cause. */
static void test_causes_shared_with_baseline(void **state) {
        (void) state;
#define JIT(rps, secs) "{\"throughput_rps\":" #rps ",\"jit\":{\"compile_time_measure_s\":" #secs "}}"
        struct fixture f;
        _cleanup_free_ char *alike = two_cells(DEF, JIT(1000, 1.56), JIT(1010, 1.5), JIT(990, 1.52), JIT(700, 1.65), JIT(710, 1.6),
                                               JIT(690, 1.62));
        fixture_load(&f, alike);
        cJSON *out = findings_compute(&f.in);
        const cJSON *x, *diff = difference_in(out, "throughput_rps");
        const char *jit_b = NULL;
        cJSON_ArrayForEach(x, out) {
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "kind")), "jit") == 0 &&
                    strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(x, "cells"), 0)), "B") == 0)
                        jit_b = cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
        }
        assert_non_null(jit_b);
        assert_non_null(diff);
        assert_false(lists(cJSON_GetObjectItem(diff, "causes"), jit_b));
        assert_true(lists(cJSON_GetObjectItem(diff, "shared"), jit_b));
        char want[160];
        snprintf(want, sizeof want, "; %s (jit) is as large on the baseline A", jit_b);
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(diff, "claim")), want));
        cJSON_Delete(out);
        fixture_done(&f);

        _cleanup_free_ char *more = two_cells(DEF, JIT(1000, 0.5), JIT(1010, 0.5), JIT(990, 0.5), JIT(700, 1.65), JIT(710, 1.6),
                                              JIT(690, 1.62));
        fixture_load(&f, more);
        out = findings_compute(&f.in);
        diff = difference_in(out, "throughput_rps");
        assert_non_null(diff);
        assert_true(lists(cJSON_GetObjectItem(diff, "causes"), id_of_kind(out, "jit")) ||
                    cJSON_GetArraySize(cJSON_GetObjectItem(diff, "causes")) == 1);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(diff, "shared")), 0);
        cJSON_Delete(out);
        fixture_done(&f);
#undef JIT
}

/* One kind, two mechanisms: cell B's CPUs overlap the injector's (A's do not) and both have other
 * work on their CPUs alike (55% and 50%). B's overlap is a cause of its lower throughput; only its
 * other work is shared, not the overlap because A has an interference finding of another kind. */
static void test_causes_same_mechanism(void **state) {
        (void) state;
#define OTHER(rps, share) "{\"throughput_rps\":" #rps ",\"cpu\":{\"other_busy_share\":" #share ",\"other_busy_s\":1}}"
        struct fixture f;
        _cleanup_free_ char *json = two_cells(DEF, OTHER(1000, 0.5), OTHER(1010, 0.5), OTHER(990, 0.5), OTHER(700, 0.55),
                                              OTHER(710, 0.55), OTHER(690, 0.55));
        fixture_load(&f, json);
        cJSON *out = findings_compute(&f.in);
        const cJSON *x, *diff = difference_in(out, "throughput_rps");
        const char *overlap = NULL, *other_b = NULL;
        cJSON_ArrayForEach(x, out) {
                const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(x, "evidence"), 0);
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "kind")), "interference") != 0 ||
                    strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "cell")), "B") != 0)
                        continue;
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "metric")), "cpus") == 0)
                        overlap = cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
                else
                        other_b = cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
        }
        assert_non_null(overlap);
        assert_non_null(other_b);
        assert_non_null(diff);
        assert_true(lists(cJSON_GetObjectItem(diff, "causes"), overlap));
        assert_false(lists(cJSON_GetObjectItem(diff, "shared"), overlap));
        assert_true(lists(cJSON_GetObjectItem(diff, "shared"), other_b));
        assert_false(lists(cJSON_GetObjectItem(diff, "causes"), other_b));
        cJSON_Delete(out);
        fixture_done(&f);
#undef OTHER
}

/* ---- steady state ---- */

#define STEADY(class, start, segend) "{\"throughput_rps\":1000,\"steady_state\":{\"class\":\"" class "\",\"start_s\":" #start ",\"measure_start_s\":10,\"segments\":[{\"start_s\":0,\"end_s\":" #segend ",\"mean\":1,\"variance\":0}]}}"

static void test_steady_state(void **state) {
        (void) state;
        _cleanup_free_ char *json = two_cells(DEF, STEADY("flat", 0, 60), STEADY("flat", 0, 60), STEADY("warmup", 5, 60),
                                              STEADY("no steady state", null, 58), STEADY("warmup", 30, 60), STEADY("warmup", 28, 60));
        cJSON *out = run_rule(findings_rule_steady_state, json);
        assert_int_equal(count(out, "steady_state", NULL, "A"), 0); /* A's warmup ended before its window */
        assert_int_equal(count(out, "steady_state", "high", "B"), 1);
        const char *claim = claim_of(out, 0);
        assert_non_null(strstr(claim, "in cell B 1 of 3 runs never reached a steady state"));
        assert_non_null(strstr(claim, "2 of 3 warmed up, reaching a steady state 28-30 s after the start"));
        assert_non_null(strstr(claim, "the measure window began before the steady state in 2 runs (by up to 20 s)"));
        cJSON_Delete(out);
        _cleanup_free_ char *slow = two_cells(DEF, STEADY("flat", 0, 60), STEADY("flat", 0, 60), STEADY("flat", 0, 60),
                                              STEADY("slowdown", 40, 60), STEADY("flat", 0, 60), STEADY("flat", 0, 60));
        out = run_rule(findings_rule_steady_state, slow);
        assert_int_equal(count(out, "steady_state", NULL, "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "1 of 3 runs slowed down"));
        cJSON_Delete(out);
}
#undef STEADY

/* ---- throttling ---- */


static void test_throttling(void **state) {
        const char *json =
                "{\"definition\":{},\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"runs\":[{\"id\":\"a1\",\"metrics\":{" CG(0, 0, 0) "},\"tail\":{\"tail\":10,\"in_throttled\":0,\"have_throttle\":true}}]},"
                "{\"name\":\"B\",\"runs\":[{\"id\":\"b1\",\"metrics\":{" CG(1000, 997, 12.5) "},\"tail\":{\"tail\":60,\"in_throttled\":57,\"have_throttle\":true}},"
                "                        {\"id\":\"b2\",\"metrics\":{" CG(1000, 997, 12.0) "},\"tail\":{\"tail\":40,\"in_throttled\":38,\"have_throttle\":true}}]},"
                "{\"name\":\"C\",\"runs\":[{\"id\":\"c1\",\"metrics\":{" CG(1000, 20, 0.1) "}}]}]}";
        cJSON *out = run_rule(findings_rule_throttling, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "throttling", "high", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "99.7% of its scheduler periods"));
        assert_non_null(strstr(claim_of(out, 0), "95% of its requests at or above p99"));
        const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0), "evidence"), 0);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "metric")), "cgroup.throttled_share");
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(ev, "runs")), 2);
        cJSON_Delete(out);
}

/* ---- ergonomics ---- */

#define JVM(apc, ci, pgc, gc) "{\"jvm\":{\"ActiveProcessorCount\":" #apc ",\"CICompilerCount\":" #ci ",\"ParallelGCThreads\":" #pgc ",\"ConcGCThreads\":0,\"gc\":\"" gc "\",\"MaxHeapSize\":134217728}}"

static void test_ergonomics(void **state) {
        _cleanup_free_ char *differ = two_cells("{}", JVM(1, 2, 1, "SerialGC"), JVM(1, 2, 1, "SerialGC"), JVM(1, 2, 1, "SerialGC"),
                                                JVM(2, 2, 2, "G1"), JVM(2, 2, 2, "G1"), JVM(2, 2, 2, "G1"));
        cJSON *out = run_rule(findings_rule_ergonomics, differ);
        assert_int_equal(count(out, "ergonomics", "medium", "B"), 1);
        const char *claim = claim_of(out, 0);
        assert_non_null(strstr(claim, "ActiveProcessorCount 2 vs 1"));
        assert_non_null(strstr(claim, "ParallelGCThreads 2 vs 1"));
        assert_non_null(strstr(claim, "gc G1 vs SerialGC"));
        assert_null(strstr(claim, "CICompilerCount 2"));
        const cJSON *ev = cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0), "evidence");
        assert_int_equal(cJSON_GetArraySize(ev), 3);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(ev, 2), "value")), "G1");
        cJSON_Delete(out);

        _cleanup_free_ char *same = two_cells("{}", JVM(1, 2, 1, "SerialGC"), JVM(1, 2, 1, "SerialGC"), JVM(1, 2, 1, "SerialGC"),
                                              JVM(1, 2, 1, "SerialGC"), JVM(1, 2, 1, "SerialGC"), JVM(1, 2, 1, "SerialGC"));
        out = run_rule(findings_rule_ergonomics, same);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

/* ---- gc ---- */

#define GC(n, total, max) "\"gc\":{\"pauses\":" #n ",\"pause_total_ms\":" #total ",\"pause_max_ms\":" #max ",\"pause_p99_ms\":" #max "}"

static void test_gc(void **state) {
        const char *json =
                "{\"definition\":{},\"baseline\":0,\"cells\":["
                "{\"name\":\"light\",\"runs\":[{\"id\":\"l1\",\"metrics\":{" GC(2, 4, 2) "},\"tail\":{\"tail\":20,\"in_pause\":1}}]},"
                "{\"name\":\"heavy\",\"runs\":[{\"id\":\"h1\",\"metrics\":{" GC(41, 812, 97) "},\"tail\":{\"tail\":30,\"in_pause\":16}},"
                "                            {\"id\":\"h2\",\"metrics\":{" GC(40, 790, 90) "},\"tail\":{\"tail\":20,\"in_pause\":10}}]}]}";
        cJSON *out = run_rule(findings_rule_gc, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "gc", "high", "heavy"), 1);
        assert_non_null(strstr(claim_of(out, 0), "52% of the requests at or above p99 in cell heavy (26 of 50)"));
        assert_non_null(strstr(claim_of(out, 0), "801.0 ms per run against 4.0 ms in light"));
        const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0), "evidence"), 0);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "metric")), "tail.gc_overlap_share");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(ev, "runs"), 1)), "h2");
        cJSON_Delete(out);

        /* what an A/A pair on a busy machine showed: 5 of 8 tail requests in a pause against 1 of
         * 8 (not significant), 21 ms of pauses against 12 in a 3 s window (0.3% of it): info */
        const char *aa =
                "{\"definition\":{\"load\":{\"measure_s\":3}},\"baseline\":0,\"cells\":["
                "{\"name\":\"a\",\"runs\":[{\"id\":\"a1\",\"metrics\":{" GC(1, 11.6, 11.6) "},\"tail\":{\"tail\":8,\"in_pause\":1}}]},"
                "{\"name\":\"b\",\"runs\":[{\"id\":\"b1\",\"metrics\":{" GC(3, 21.2, 9.9) "},\"tail\":{\"tail\":8,\"in_pause\":5}}]}]}";
        out = run_rule(findings_rule_gc, aa);
        assert_int_equal(cJSON_GetArraySize(out), 2); /* a's 1 of 8 is above 10% too */
        assert_int_equal(count(out, "gc", "info", NULL), 2);
        cJSON_Delete(out);

        /* the same GC in both cells, a tail that does not meet it: silent */
        const char *quiet =
                "{\"definition\":{},\"baseline\":0,\"cells\":["
                "{\"name\":\"a\",\"runs\":[{\"id\":\"a1\",\"metrics\":{" GC(10, 40, 5) "},\"tail\":{\"tail\":20,\"in_pause\":1}}]},"
                "{\"name\":\"b\",\"runs\":[{\"id\":\"b1\",\"metrics\":{" GC(11, 42, 5) "},\"tail\":{\"tail\":20,\"in_pause\":0}}]}]}";
        out = run_rule(findings_rule_gc, quiet);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

/* The scan over records in blocks, as the store streams them, counts what a whole pass does:
 * the tail (at or above the threshold, measured and answered), the part of it in flight during
 * a pause (nested pauses too), and the part scheduled in throttled seconds. */
static void test_tail_scan(void **state) {
        enum { N = 10000 };
        struct timeline_record *r = calloc(N, sizeof *r);
        assert_non_null(r);
        for (int i = 0; i < N; i++) {
                int64_t s = (int64_t) i * 1000000; /* one per ms */
                int64_t lat = (i % 100 == 0) ? 50000000 : 1000000;
                r[i] = (struct timeline_record){ .scheduled_ns = s, .submit_ns = s, .done_ns = s + lat, .status = 200 };
        }
        r[0].flags = TIMELINE_WARMUP;   /* not measured */
        r[100].status = 0;              /* no answer */
        /* pauses: 5 ms of the 50 ms request 1000 spends in flight (10%), a safepoint with a
         * nested GC pause, a 1 ms one (2% of request 3000's flight: not its cause) */
        const struct findings_span pauses[] = {
                { 1040000000, 1045000000 }, { 3010000000, 3011000000 }, { 5000000000, 5100000000 }, { 5010000000, 5020000000 },
        };
        const struct findings_span throttled[] = { { 2000000000, 3000000000 } };
        struct findings_tail_scan whole, blocks;
        assert_int_equal(findings_tail_begin(&whole, 50000000, pauses, 4, throttled, 1, true), 0);
        findings_tail_feed(&whole, r, N);
        assert_int_equal(findings_tail_begin(&blocks, 50000000, pauses, 4, throttled, 1, true), 0);
        for (int i = 0; i < N; i += 4096)
                findings_tail_feed(&blocks, r + i, (size_t) (N - i < 4096 ? N - i : 4096));
        findings_tail_done(&whole);
        findings_tail_done(&blocks);
        /* 100 slow ones, minus the warmup one and the unanswered one */
        assert_int_equal(whole.result.tail, 98);
        /* request 1000 (in flight 1000-1050 ms) meets the first pause, 5000 the safepoint and its
         * nested pause (once); 5100 starts as the safepoint ends, 4900 ends before it begins,
         * and 3000 met only the 1 ms pause */
        assert_int_equal(whole.result.in_pause, 2);
        assert_int_equal(whole.result.in_throttled, 10);
        assert_memory_equal(&whole.result, &blocks.result, sizeof whole.result);
        free(r);
}

/* Pauses as a store changed behind the daemon may hold them (out of order, overlapping, empty,
 * reaching the end of the clock) and records whose latency is past int64 or whose flight spans
 * the clock: the union counts each instant once, an overflowing latency is no tail. */
static void test_tail_scan_hostile(void **state) {
        enum { PAUSES = 20000 };
        struct findings_span *pauses = calloc(PAUSES + 3, sizeof *pauses);
        assert_non_null(pauses);
        for (int i = 0; i < PAUSES; i++) /* 1 ms every second, last first */
                pauses[i] = (struct findings_span){ (int64_t) (PAUSES - i) * 1000000000, (int64_t) (PAUSES - i) * 1000000000 + 1000000 };
        pauses[PAUSES] = (struct findings_span){ 500000000, 400000000 };                 /* ends before it starts */
        pauses[PAUSES + 1] = (struct findings_span){ 2000000000, 2040000000 };           /* holds the 1 ms at 2 s */
        pauses[PAUSES + 2] = (struct findings_span){ INT64_MAX - 1000, INT64_MAX };
        const struct timeline_record r[] = {
                { .scheduled_ns = INT64_MIN, .done_ns = INT64_MAX, .status = 200 },      /* latency past int64 */
                { .scheduled_ns = 0, .done_ns = INT64_MAX, .status = 200 },               /* all of the clock */
                { .scheduled_ns = 2000000000, .done_ns = 2100000000, .status = 200 },     /* 40 of 100 ms paused */
                { .scheduled_ns = 3000000000, .done_ns = 3100000000, .status = 200 },     /* 1 of 100 ms */
                { .scheduled_ns = INT64_MAX - 2000, .done_ns = INT64_MAX, .status = 200 }, /* half paused */
        };
        struct findings_tail_scan scan;
        assert_int_equal(findings_tail_begin(&scan, 1000, pauses, PAUSES + 3, NULL, 0, false), 0);
        findings_tail_feed(&scan, r, ELEMENTSOF(r));
        findings_tail_done(&scan);
        assert_int_equal(scan.result.tail, 4);
        assert_int_equal(scan.result.in_pause, 2);
        free(pauses);
}

/* ---- injector ---- */

static void test_injector(void **state) {
        /* Tomcat at 1000 req/s on 16 connections: 3.3 ms lag with 45 ms worst latency, then 0.16 ms */
        const char *json =
                "{\"definition\":" DEF ",\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"a1\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":3300},\"submit\":{\"max\":45000}},\"load\":{\"saturated\":true,\"cpu_usage_s\":1,\"nr_throttled\":0}}},"
                "  {\"id\":\"a2\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":160},\"submit\":{\"max\":9000}},\"load\":{\"saturated\":false,\"cpu_usage_s\":1,\"nr_throttled\":0}}}]},"
                "{\"name\":\"B\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"b1\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":2500},\"submit\":{\"max\":5000}},\"load\":{\"saturated\":false,\"cpu_usage_s\":9.8,\"nr_throttled\":0}}},"
                "  {\"id\":\"b2\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":1500},\"submit\":{\"max\":5000}},\"load\":{\"saturated\":false,\"cpu_usage_s\":1,\"nr_throttled\":0}}}]}]}";
        cJSON *out = run_rule(findings_rule_injector, json);
        assert_int_equal(cJSON_GetArraySize(out), 3);
        assert_int_equal(count(out, "injector", "high", "A"), 1);
        assert_non_null(strstr(claim_of(out, 0), "run a1"));
        assert_non_null(strstr(claim_of(out, 0), "every connection was busy: 1000 req/s x 45.0 ms worst latency needs 45 connections, it had 16"));
        assert_non_null(strstr(claim_of(out, 1), "CPU was exhausted"));
        assert_non_null(strstr(claim_of(out, 2), "late wakeups"));
        cJSON_Delete(out);

        const char *fine =
                "{\"definition\":" DEF ",\"baseline\":0,\"cells\":[{\"name\":\"A\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"a2\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":160},\"submit\":{\"max\":9000}},\"load\":{\"saturated\":false}}}]}]}";
        out = run_rule(findings_rule_injector, fine);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

/* The injector's own account (load.late) comes first: mostly the server's late requests name the
 * connections even where rate x worst latency fits them, and mostly its own name the injector
 * even where that product does not fit: not running when most of those waited through its
 * stalls, its own pace otherwise. */
static void test_injector_account(void **state) {
        const char *json =
                "{\"definition\":" DEF ",\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"a1\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":3300},\"submit\":{\"max\":900}},\"load\":{\"saturated\":true,\"cpu_usage_s\":1,\"nr_throttled\":0,"
                "    \"late\":{\"threshold_us\":1000,\"requests\":400,\"server\":390,\"injector\":10}}}}]},"
                "{\"name\":\"B\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"b1\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":2500},\"submit\":{\"max\":45000}},\"load\":{\"saturated\":true,\"cpu_usage_s\":1,\"nr_throttled\":0,"
                "    \"late\":{\"threshold_us\":1000,\"requests\":300,\"server\":0,\"injector\":300}}}}]},"
                "{\"name\":\"C\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"c1\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":2100},\"submit\":{\"max\":900}},\"load\":{\"saturated\":false,\"cpu_usage_s\":1,\"nr_throttled\":0,"
                "    \"late\":{\"threshold_us\":1000,\"requests\":200,\"server\":10,\"stalled\":150,\"injector\":40}}}}]}]}";
        cJSON *out = run_rule(findings_rule_injector, json);
        assert_int_equal(cJSON_GetArraySize(out), 3);
        assert_non_null(strstr(claim_of(out, 0), "every connection was busy: 390 of its 400 late requests would have been late from an ideal injector too"));
        assert_non_null(strstr(claim_of(out, 1), "the injector itself: 300 of its 300 late requests had a free connection"));
        assert_non_null(strstr(claim_of(out, 2), "the injector was not running: 150 of its 200 late requests were due while it neither sent nor received anything"));
        _cleanup_free_ char *text = cJSON_PrintUnformatted(out);
        assert_non_null(strstr(text, "\"load.late.stalled\""));
        cJSON_Delete(out);
}

/* A run on load hosts names the host that fell behind most (a saturated one first), never the
 * coordinator's empty load slice. */
static void test_injector_hosts(void **state) {
        const char *json =
                "{\"definition\":" DEF ",\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"def\":{\"cpus\":\"1\"},\"runs\":["
                "  {\"id\":\"a1\",\"metrics\":{\"latency_us\":{\"lag\":{\"p99\":2600},\"submit\":{\"max\":900}},\"load\":{\"saturated\":true,\"cpu_usage_s\":0,\"nr_throttled\":0,"
                "    \"late\":{\"threshold_us\":1000,\"requests\":300,\"server\":20,\"stalled\":30,\"injector\":250},"
                "    \"hosts\":[{\"host\":\"bench02\",\"lag_p99_us\":5000,\"saturated\":false,\"late\":null},"
                "               {\"host\":\"bench03\",\"lag_p99_us\":2600,\"saturated\":true,"
                "                \"late\":{\"threshold_us\":1000,\"requests\":280,\"server\":10,\"stalled\":20,\"injector\":250}}]}}}]}]}";
        cJSON *out = run_rule(findings_rule_injector, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_non_null(strstr(claim_of(out, 0), "load host bench03 fell behind most (saturated, lag p99 2.60 ms): of its 280 late requests 10 were the server's"));
        assert_null(strstr(claim_of(out, 0), "shared CPUs"));
        cJSON_Delete(out);
}

/* ---- noise and drift ---- */

static void test_noise(void **state) {
        _cleanup_free_ char *noisy = two_cells("{}", "{\"throughput_rps\":1000}", "{\"throughput_rps\":1200}", "{\"throughput_rps\":900}",
                                               "{\"throughput_rps\":1000}", "{\"throughput_rps\":1010}", "{\"throughput_rps\":995}");
        cJSON *out = run_rule(findings_rule_noise, noisy);
        /* A's CoV, and B's ratio to A that cannot decide 3% */
        assert_int_equal(cJSON_GetArraySize(out), 2);
        assert_int_equal(count(out, "noise", "info", "A"), 2);
        bool cov = false, wide = false;
        for (int i = 0; i < 2; i++) {
                cov = cov || strstr(claim_of(out, i), "CoV of 14.") != NULL;
                wide = wide || strstr(claim_of(out, i), "too wide to decide a 3% difference: throughput_rps") != NULL;
        }
        assert_true(cov && wide);
        cJSON_Delete(out);

        /* steady cells, 1% apart, decided: silent */
        _cleanup_free_ char *steady = two_cells("{}", "{\"throughput_rps\":1000}", "{\"throughput_rps\":1001}", "{\"throughput_rps\":999}",
                                                "{\"throughput_rps\":1010}", "{\"throughput_rps\":1011}", "{\"throughput_rps\":1009}");
        out = run_rule(findings_rule_noise, steady);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

static void test_drift(void **state) {
        const char *json =
                "{\"definition\":{},\"baseline\":0,\"cells\":["
                "{\"name\":\"A\",\"runs\":[{\"id\":\"1\",\"metrics\":{\"throughput_rps\":1000}},{\"id\":\"2\",\"metrics\":{\"throughput_rps\":980}},"
                "  {\"id\":\"3\",\"metrics\":{\"throughput_rps\":950}},{\"id\":\"4\",\"metrics\":{\"throughput_rps\":900}}]},"
                "{\"name\":\"B\",\"runs\":[{\"id\":\"5\",\"metrics\":{\"throughput_rps\":1000}},{\"id\":\"6\",\"metrics\":{\"throughput_rps\":980}},"
                "  {\"id\":\"7\",\"metrics\":{\"throughput_rps\":990}},{\"id\":\"8\",\"metrics\":{\"throughput_rps\":900}}]}]}";
        cJSON *out = run_rule(findings_rule_drift, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "drift", "medium", "A"), 1);
        assert_non_null(strstr(claim_of(out, 0), "fell with every iteration, by 10%"));
        cJSON_Delete(out);
}

/* ---- jit ---- */

static void test_jit(void **state) {
        _cleanup_free_ char *json = two_cells(DEF, "{\"jit\":{\"compile_time_measure_s\":0.01}}", "{\"jit\":{\"compile_time_measure_s\":0.0}}",
                                              "{\"jit\":{\"compile_time_measure_s\":null}}", "{\"jit\":{\"compile_time_measure_s\":1.5}}",
                                              "{\"jit\":{\"compile_time_measure_s\":0.05}}", "{\"jit\":{\"compile_time_measure_s\":0.9}}");
        cJSON *out = run_rule(findings_rule_jit, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "jit", "medium", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "in 2 of 3 runs (up to 1.50 s, 15.0% of the window)"));
        cJSON_Delete(out);
        /* every cell compiling alike: worth saying, not a reason they differ */
        _cleanup_free_ char *alike = two_cells(DEF, "{\"jit\":{\"compile_time_measure_s\":1.2}}", "{\"jit\":{\"compile_time_measure_s\":1.0}}",
                                               "{}", "{\"jit\":{\"compile_time_measure_s\":1.1}}", "{}", "{}");
        out = run_rule(findings_rule_jit, alike);
        assert_int_equal(cJSON_GetArraySize(out), 2);
        assert_int_equal(count(out, "jit", "info", NULL), 2);
        cJSON_Delete(out);

        /* the same runs' series say the window began before they were steady: named as one cause */
#define WARM(start, measure) ",\"steady_state\":{\"class\":\"warmup\",\"start_s\":" #start ",\"measure_start_s\":" #measure "}"
        _cleanup_free_ char *late = two_cells(DEF, "{}", "{}", "{}",
                                              "{\"jit\":{\"compile_time_measure_s\":1.5}" WARM(14, 10) "}",
                                              "{\"jit\":{\"compile_time_measure_s\":0.9}" WARM(8, 10) "}",
                                              "{\"jit\":{\"compile_time_measure_s\":0.01}" WARM(16, 10) "}");
        out = run_rule(findings_rule_jit, late);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        if (!strstr(claim_of(out, 0), "in 2 of 3 runs (up to 1.50 s, 15.0% of the window): the warmup was too short; in 1 of those "
                                      "runs the measure window also began before the run was steady (by up to 4.0 s, or it never "
                                      "was: the steady_state finding)"))
                fail_msg("%s", claim_of(out, 0));
        cJSON_Delete(out);
}

/* ---- governor and frequency, from a sysfs-like tree ---- */

/* The metrics "cpu" object a run on cpus records when the tree has these governors and kHz. */
static char *cpu_metrics(const char *root, const char *cpus, const char *const *gov, const char *const *khz) {
        struct cpulist l;
        assert_int_equal(cpulist_parse(cpus, &l), 0);
        for (int i = cpulist_next(&l, -1), k = 0; i >= 0; i = cpulist_next(&l, i), k++) {
                char rel[128];
                snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", i);
                tmp_put(root, rel, gov[k]);
                snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", i);
                tmp_put(root, rel, khz[k]);
        }
        struct host_freq_sampler *s = NULL;
        assert_int_equal(host_freq_sampler_new(root, &l, &s), 0);
        host_freq_sampler_sample(s);
        size_t n;
        const struct host_cpu_freq *c = host_freq_sampler_cpus(s, &n);
        cJSON *m = cJSON_CreateObject();
        cJSON_AddItemToObject(m, "cpu", host_cpu_freq_json(c, n));
        host_freq_sampler_free(s);
        char *text = cJSON_PrintUnformatted(m);
        cJSON_Delete(m);
        return text;
}

static void test_governor_frequency(void **state) {
        _cleanup_tmp_dir_ char *r1 = tmp_dir_new("findings-sysfs"), *r2 = tmp_dir_new("findings-sysfs"),
                                *r3 = tmp_dir_new("findings-sysfs");
        const char *perf[] = { "performance\n", "performance\n" }, *save[] = { "powersave\n", "powersave\n" };
        const char *fast[] = { "3000000\n", "3000000\n" }, *slow[] = { "2400000\n", "2400000\n" }, *near[] = { "2950000\n", "2950000\n" };
        _cleanup_free_ char *a = cpu_metrics(r1, "2-3", perf, fast);
        _cleanup_free_ char *b = cpu_metrics(r2, "2-3", save, slow);
        _cleanup_free_ char *c = cpu_metrics(r3, "2-3", perf, near);
        assert_non_null(strstr(a, "\"2\":\"performance\""));

        /* the seed's case: powersave and 20% slower clocks in B, performance asked for */
        _cleanup_free_ char *seed = two_cells("{\"host\":{\"governor\":\"performance\"}}", a, a, a, b, b, b);
        cJSON *out = run_rule(findings_rule_governor, seed);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "governor", "medium", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "ran the powersave governor, not performance as the definition asked"));
        cJSON_Delete(out);
        _cleanup_free_ char *unasked = two_cells("{}", a, a, a, b, b, b);
        out = run_rule(findings_rule_governor, unasked);
        assert_int_equal(count(out, "governor", "medium", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "A's the performance governor"));
        cJSON_Delete(out);
        out = run_rule(findings_rule_frequency, seed);
        assert_int_equal(count(out, "frequency", "medium", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "2400 MHz on average, 20% slower than A's 3000 MHz"));
        cJSON_Delete(out);

        /* within 5% and the same governor: silent */
        _cleanup_free_ char *close = two_cells("{\"host\":{\"governor\":\"performance\"}}", a, a, a, c, c, c);
        out = run_rule(findings_rule_governor, close);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
        out = run_rule(findings_rule_frequency, close);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
        /* no cpufreq at all (these VMs): silent */
        _cleanup_free_ char *none = two_cells("{\"host\":{\"governor\":\"performance\"}}", "{\"cpu\":null}", "{\"cpu\":null}", "{\"cpu\":null}",
                                              "{\"cpu\":{\"governor\":{\"1\":null},\"freq_mhz\":{\"1\":null}}}", "{}", "{}");
        out = run_rule(findings_rule_governor, none);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
        out = run_rule(findings_rule_frequency, none);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

/* ---- interference, memory, energy ---- */

static void test_interference(void **state) {
        /* cell A on cpu 1, cell B on 0-1 with the load on 0 */
        _cleanup_free_ char *json = two_cells(DEF, "{}", "{}", "{}", "{}", "{}", "{}");
        cJSON *out = run_rule(findings_rule_interference, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "interference", "medium", "B"), 1);
        cJSON_Delete(out);
        _cleanup_free_ char *apart = two_cells("{\"load\":{\"target\":\"http://127.0.0.1:1/\",\"cpus\":\"2\"}}", "{}", "{}", "{}", "{}", "{}", "{}");
        out = run_rule(findings_rule_interference, apart);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

#define OTHER(share, s) "{\"cpu\":{\"governor\":null,\"freq_mhz\":null,\"other_busy_share\":" #share ",\"other_busy_s\":" #s "}}"
#define APART "{\"load\":{\"target\":\"http://127.0.0.1:1/\",\"cpus\":\"2\"}}"

static void test_interference_other_work(void **state) {
        /* other work took 25% and 40% of cell B's CPUs in two of its runs; A's stayed at 1-3% */
        _cleanup_free_ char *json = two_cells(APART, OTHER(0.01, 0.03), OTHER(0.03, 0.09), OTHER(null, null),
                                              OTHER(0.25, 1.5), OTHER(0.02, 0.12), OTHER(0.40, 2.4));
        cJSON *out = run_rule(findings_rule_interference, json);
        assert_int_equal(cJSON_GetArraySize(out), 1);
        assert_int_equal(count(out, "interference", "medium", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "up to 40% of cell B's CPUs during measure (2.40 s of CPU) in 2 of its 3 runs"));
        const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(out, 0), "evidence"), 0);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "metric")), "cpu.other_busy_share");
        assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "value")) == 0.40);
        const cJSON *runs = cJSON_GetObjectItem(ev, "runs");
        assert_int_equal(cJSON_GetArraySize(runs), 2);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(runs, 0)), "b1");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(runs, 1)), "b3");
        cJSON_Delete(out);
        /* at the threshold (10%), below it, null, or not recorded (older runs): silent */
        _cleanup_free_ char *quiet = two_cells(APART, OTHER(0.10, 0.3), OTHER(0.05, 0.15), OTHER(null, null),
                                               "{\"cpu\":null}", "{}", OTHER(0.0, 0.0));
        out = run_rule(findings_rule_interference, quiet);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

static void test_memory(void **state) {
        _cleanup_free_ char *json = two_cells("{\"sut\":{\"memory_max\":1073741824}}",
                "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":500000000}}", "{\"cgroup\":{\"oom_kills\":1,\"memory_peak_bytes\":500000000}}",
                "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":500000000}}",
                "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":1020000000}}", "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":900000000}}",
                "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":null}}");
        cJSON *out = run_rule(findings_rule_memory, json);
        assert_int_equal(cJSON_GetArraySize(out), 2);
        assert_int_equal(count(out, "memory", "high", "A"), 1);
        assert_int_equal(count(out, "memory", "medium", "B"), 1);
        cJSON_Delete(out);
        _cleanup_free_ char *fine = two_cells("{\"sut\":{\"memory_max\":1073741824}}", "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":5e8}}",
                "{}", "{}", "{\"cgroup\":{\"oom_kills\":0,\"memory_peak_bytes\":6e8}}", "{}", "{}");
        out = run_rule(findings_rule_memory, fine);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

#define SWAP(sut, host) "{\"cgroup\":{\"oom_kills\":0,\"swap_bytes\":" #sut "},\"host_swap_bytes\":" #host "}"

static void test_memory_swap(void **state) {
        /* B's SUT had 64 MiB swapped out in run b2; the host swapped during A's a3 */
        _cleanup_free_ char *json = two_cells("{}", SWAP(0, 0), SWAP(0, 0), SWAP(0, 1048576),
                                              SWAP(0, 0), SWAP(67108864, 0), SWAP(null, null));
        cJSON *out = run_rule(findings_rule_memory, json);
        assert_int_equal(cJSON_GetArraySize(out), 2);
        assert_int_equal(count(out, "memory", "medium", "A"), 1);
        assert_int_equal(count(out, "memory", "medium", "B"), 1);
        const cJSON *f;
        cJSON_ArrayForEach(f, out) {
                const char *cell = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "cells"), 0));
                const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItem(f, "evidence"), 0);
                const cJSON *runs = cJSON_GetObjectItem(ev, "runs");
                assert_int_equal(cJSON_GetArraySize(runs), 1);
                if (strcmp(cell, "B") == 0) {
                        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(f, "claim")), "cell B's SUT had up to 64.0 MiB in swap"));
                        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "metric")), "cgroup.swap_bytes");
                        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(runs, 0)), "b2");
                } else {
                        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(f, "claim")), "the host had up to 1.0 MiB in swap"));
                        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "metric")), "host_swap_bytes");
                        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(runs, 0)), "a3");
                }
        }
        cJSON_Delete(out);
        /* no swap, unknown swap (null), or runs stored before it was recorded: silent */
        _cleanup_free_ char *none = two_cells("{}", SWAP(0, 0), SWAP(null, 0), SWAP(0, null), SWAP(null, null), "{}",
                                              "{\"cgroup\":null,\"host_swap_bytes\":null}");
        out = run_rule(findings_rule_memory, none);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

static void test_energy(void **state) {
        _cleanup_free_ char *json = two_cells("{}", "{\"energy\":{\"joules_per_request\":0.010}}", "{\"energy\":{\"joules_per_request\":0.0102}}",
                "{\"energy\":{\"joules_per_request\":0.0099}}", "{\"energy\":{\"joules_per_request\":0.014}}",
                "{\"energy\":{\"joules_per_request\":0.0141}}", "{\"energy\":{\"joules_per_request\":0.0139}}");
        cJSON *out = run_rule(findings_rule_energy, json);
        assert_int_equal(count(out, "energy", "medium", "B"), 1);
        assert_non_null(strstr(claim_of(out, 0), "40% more energy per request than A"));
        cJSON_Delete(out);
        _cleanup_free_ char *none = two_cells("{}", "{\"energy\":null}", "{\"energy\":null}", "{\"energy\":null}", "{\"energy\":null}",
                                              "{\"energy\":null}", "{\"energy\":null}");
        out = run_rule(findings_rule_energy, none);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

/* ---- profile ---- */

/* A run whose profile.folded has app and gc samples: the app's in Work.spin, the GC's in a
 * scavenge, each under a frame that is never a leaf. */
static void profile_run(char *buf, size_t size, const char *id, const char *metrics, int app, int gc) {
        snprintf(buf, size,
                 "{\"id\":\"%s\",\"metrics\":%s,\"profile\":\"app;java.lang.Thread.run;slicelab.sut.Work.spin %d\\n"
                 "gc;GCTaskThread::run;PSScavenge::invoke %d\\n\"}",
                 id, metrics, app, gc);
}

/* Cell A (the baseline) of 3 runs and cell B of nb runs, each run {app, gc} samples. */
static char *profile_cells(const int a[3][2], const int (*b)[2], size_t nb, const char *b_metrics) {
        char runs_a[3][512], runs_b[4][512], ids[8];
        for (size_t i = 0; i < 3; i++) {
                snprintf(ids, sizeof ids, "a%zu", i + 1);
                profile_run(runs_a[i], sizeof runs_a[i], ids, "{}", a[i][0], a[i][1]);
        }
        char list_b[2048] = "";
        for (size_t i = 0; i < nb && i < 4; i++) {
                snprintf(ids, sizeof ids, "b%zu", i + 1);
                profile_run(runs_b[i], sizeof runs_b[i], ids, b_metrics, b[i][0], b[i][1]);
                strcat(list_b, i ? "," : "");
                strcat(list_b, runs_b[i]);
        }
        char *s = NULL;
        int n = asprintf(&s,
                         "{\"definition\":%s,\"baseline\":0,\"cells\":[{\"name\":\"A\",\"runs\":[%s,%s,%s]},"
                         "{\"name\":\"B\",\"runs\":[%s]}]}",
                         DEF, runs_a[0], runs_a[1], runs_a[2], list_b);
        assert_true(n > 0);
        return s;
}

static const int PROFILE_BASE[3][2] = { { 900, 100 }, { 880, 120 }, { 890, 110 } };

static const cJSON *finding_of_group(const cJSON *out, const char *group) {
        const cJSON *f;
        cJSON_ArrayForEach(f, out) {
                const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(f, "evidence"), 0);
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), "profile") == 0 &&
                    cJSON_IsString(cJSON_GetObjectItem(e, "group")) &&
                    strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "group")), group) == 0)
                        return f;
        }
        return NULL;
}

/* Name's share of kind in the one run of side. */
static double share(struct profile_shares *s, const char *name, bool group, enum profile_share_kind kind,
                    enum profile_side side) {
        for (size_t i = 0; i < profile_shares_count(s); i++) {
                bool g;
                if (strcmp(profile_shares_name(s, i, &g), name) != 0 || g != group)
                        continue;
                struct profile_share_compared c;
                assert_int_equal(profile_shares_compare(s, i, kind, 0.95, &c), 0);
                return c.shares[side][0];
        }
        return 0;
}

static void test_profile_shares(void **state) {
        /* sorted as profile.folded is (stacks that share their start follow each other), with a
         * stack that is a prefix of the one before, recursion, a frame named as a group, lines
         * that are not stacks */
        static const char cell[] = "app;a;b;c 5\napp;a;b;d 3\napp;a;b 2\napp;a;x;a;y 4\ngc;g 6\ngc;gc 0\nnot a count x\n";
        static const char base[] = "app;a;b;c 1\ngc;gc 1";
        _cleanup_(profile_shares_freep) struct profile_shares *s = NULL;
        assert_int_equal(profile_shares_new(&s), 0);
        assert_int_equal(profile_shares_add_run(s, PROFILE_SIDE_CELL, cell, strlen(cell)), 0);
        assert_int_equal(profile_shares_add_run(s, PROFILE_SIDE_BASELINE, base, strlen(base)), 0);
        const enum profile_side C = PROFILE_SIDE_CELL, B = PROFILE_SIDE_BASELINE;
        assert_float_equal(share(s, "app", true, PROFILE_SHARE_TOTAL, C), 14 / 20.0, 1e-12);
        assert_float_equal(share(s, "gc", true, PROFILE_SHARE_TOTAL, C), 6 / 20.0, 1e-12);
        assert_float_equal(share(s, "a", false, PROFILE_SHARE_TOTAL, C), 14 / 20.0, 1e-12); /* once per stack */
        assert_float_equal(share(s, "a", false, PROFILE_SHARE_SELF, C), 0, 1e-12);
        assert_float_equal(share(s, "b", false, PROFILE_SHARE_TOTAL, C), 10 / 20.0, 1e-12);
        assert_float_equal(share(s, "b", false, PROFILE_SHARE_SELF, C), 2 / 20.0, 1e-12);
        assert_float_equal(share(s, "d", false, PROFILE_SHARE_SELF, C), 3 / 20.0, 1e-12);
        assert_float_equal(share(s, "y", false, PROFILE_SHARE_SELF, C), 4 / 20.0, 1e-12);
        assert_float_equal(share(s, "gc", false, PROFILE_SHARE_SELF, C), 0, 1e-12);
        assert_float_equal(share(s, "gc", false, PROFILE_SHARE_SELF, B), 0.5, 1e-12);
        assert_float_equal(share(s, "c", false, PROFILE_SHARE_SELF, B), 0.5, 1e-12);
        assert_false(profile_shares_truncated(s));
}

static void test_profile(void **state) {
        /* GC from 11% to 31% of the samples, the app's down as much: both groups and both leaves */
        static const int heavy[3][2] = { { 690, 310 }, { 680, 320 }, { 700, 300 } };
        _cleanup_free_ char *json = profile_cells(PROFILE_BASE, heavy, 3, "{}");
        cJSON *out = run_rule(findings_rule_profile, json);
        assert_int_equal(count(out, "profile", "high", "B"), 4);
        const cJSON *gc = finding_of_group(out, "gc");
        assert_non_null(gc);
        const char *claim = cJSON_GetStringValue(cJSON_GetObjectItem(gc, "claim"));
        assert_non_null(strstr(claim, "in cell B, GC threads (group gc): 31% of CPU samples vs 11% in A (mean over 3 vs 3 "
                                      "iterations; 97.5% intervals, Bonferroni over 2 thread groups: "));
        assert_non_null(strstr(claim, "difference +20.0 points"));
        assert_null(strstr(claim, "approximate"));
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(gc, "evidence"), 0);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(e, "metric")), "profile.share.total");
        assert_true(cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(e, "difference_interval"), 0)) > 0);
        assert_int_equal((int) cJSON_GetNumberValue(cJSON_GetObjectItem(e, "iterations")), 3);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(e, "runs")), 3);
        /* the leaves: decided over the frames tested, the callers that are never leaves not claimed */
        int frames = 0;
        const cJSON *f;
        cJSON_ArrayForEach(f, out) {
                const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItem(f, "evidence"), 0);
                const char *frame = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "frame"));
                if (!frame)
                        continue;
                frames++;
                assert_true(strcmp(frame, "slicelab.sut.Work.spin") == 0 || strcmp(frame, "PSScavenge::invoke") == 0);
                assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(f, "claim")), "Bonferroni over 4 frames"));
        }
        assert_int_equal(frames, 2);
        cJSON_Delete(out);
}

static void test_profile_aa(void **state) {
        /* the same shares give or take a sample count: nothing */
        static const int twin[3][2] = { { 895, 105 }, { 885, 115 }, { 890, 110 } };
        _cleanup_free_ char *json = profile_cells(PROFILE_BASE, twin, 3, "{}");
        cJSON *out = run_rule(findings_rule_profile, json);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
        /* GC from 1.0% to 1.5% of the samples, each side within a sample of its mean: the interval
         * excludes 0 but lies within a point of it, and half a point of the CPU is no finding */
        static const int base_small[3][2] = { { 990, 10 }, { 990, 10 }, { 989, 11 } };
        static const int small[3][2] = { { 985, 15 }, { 985, 15 }, { 984, 16 } };
        _cleanup_free_ char *slight = profile_cells(base_small, small, 3, "{}");
        out = run_rule(findings_rule_profile, slight);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
        /* one profiled iteration: nothing can be decided, nothing is said */
        static const int once[1][2] = { { 500, 500 } };
        _cleanup_free_ char *single = profile_cells(PROFILE_BASE, once, 1, "{}");
        out = run_rule(findings_rule_profile, single);
        assert_int_equal(cJSON_GetArraySize(out), 0);
        cJSON_Delete(out);
}

static void test_profile_approximate(void **state) {
        /* 2 iterations against 3: the interval is approximate and the claim says so */
        static const int two[2][2] = { { 500, 500 }, { 490, 510 } };
        _cleanup_free_ char *json = profile_cells(PROFILE_BASE, two, 2, "{}");
        cJSON *out = run_rule(findings_rule_profile, json);
        const cJSON *gc = finding_of_group(out, "gc");
        assert_non_null(gc);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(gc, "approximate")));
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(gc, "claim")), "mean over 2 vs 3 iterations"));
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(gc, "claim")), FINDINGS_APPROXIMATE_TEXT));
        cJSON_Delete(out);
}

static void test_profile_causes(void **state) {
        /* B also compiles for 15% of its window (a jit finding): that can explain its app threads'
         * share, not its GC threads' */
        static const int heavy[3][2] = { { 690, 310 }, { 680, 320 }, { 700, 300 } };
        _cleanup_free_ char *json = profile_cells(PROFILE_BASE, heavy, 3, "{\"jit\":{\"compile_time_measure_s\":1.5}}");
        struct fixture fx;
        fixture_load(&fx, json);
        cJSON *out = findings_compute(&fx.in);
        const char *jit_id = NULL;
        const cJSON *f;
        cJSON_ArrayForEach(f, out)
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), "jit") == 0)
                        jit_id = cJSON_GetStringValue(cJSON_GetObjectItem(f, "id"));
        assert_non_null(jit_id);
        const cJSON *app = finding_of_group(out, "app"), *gc = finding_of_group(out, "gc");
        assert_non_null(app);
        assert_non_null(gc);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(app, "causes"), 0)), jit_id);
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(app, "claim")), "(jit) of cell B can explain it"));
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(gc, "causes")), 0);
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(gc, "claim")), "no finding of cell B explains it"));
        assert_null(cJSON_GetObjectItem(gc, "_explain_kinds"));
        cJSON_Delete(out);
        fixture_done(&fx);
}

/* ---- all rules: order and ids ---- */

static void test_compute_order(void **state) {
        struct fixture f;
        _cleanup_free_ char *json = two_cells(DEF,
                "{\"throughput_rps\":1000," LAT(100, 6200, 9000) "," CG(100, 0, 0) "}", "{\"throughput_rps\":1010," LAT(101, 6100, 9100) "," CG(100, 0, 0) "}",
                "{\"throughput_rps\":990," LAT(99, 6300, 8900) "," CG(100, 0, 0) "}",
                "{\"throughput_rps\":730," LAT(300, 46000, 60000) "," CG(100, 99, 5) "}", "{\"throughput_rps\":740," LAT(310, 46600, 61000) "," CG(100, 99, 5) "}",
                "{\"throughput_rps\":725," LAT(305, 47000, 59000) "," CG(100, 99, 5) "}");
        fixture_load(&f, json);
        cJSON *out = findings_compute(&f.in);
        int n = cJSON_GetArraySize(out), last = 3;
        assert_true(n >= 5);
        for (int i = 0; i < n; i++) {
                const cJSON *x = cJSON_GetArrayItem(out, i);
                const char *sev = cJSON_GetStringValue(cJSON_GetObjectItem(x, "severity"));
                int rank = strcmp(sev, "high") == 0 ? 2 : strcmp(sev, "medium") == 0 ? 1 : 0;
                assert_true(rank <= last);
                last = rank;
                char id[16];
                snprintf(id, sizeof id, "F%d", i + 1);
                assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(x, "id")), id);
                assert_null(cJSON_GetObjectItem(x, "_effect"));
        }
        /* among the high ones, the largest effect first: the p99.9 or p99 ratio (7x), not throughput */
        assert_null(strstr(claim_of(out, 0), "throughput"));
        cJSON_Delete(out);
        fixture_done(&f);
}

int main(void) {
        json_setup();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_difference),   cmocka_unit_test(test_difference_level), cmocka_unit_test(test_difference_approximate),
                cmocka_unit_test(test_difference_severity),
                cmocka_unit_test(test_difference_stop_rule),
                cmocka_unit_test(test_difference_causes), cmocka_unit_test(test_causes_direction),
                cmocka_unit_test(test_causes_shared_with_baseline), cmocka_unit_test(test_causes_same_mechanism), cmocka_unit_test(test_steady_state), cmocka_unit_test(test_throttling), cmocka_unit_test(test_ergonomics),
                cmocka_unit_test(test_gc),           cmocka_unit_test(test_tail_scan), cmocka_unit_test(test_tail_scan_hostile),  cmocka_unit_test(test_injector), cmocka_unit_test(test_injector_account),
                cmocka_unit_test(test_injector_hosts),
                cmocka_unit_test(test_noise),        cmocka_unit_test(test_drift),      cmocka_unit_test(test_jit),
                cmocka_unit_test(test_governor_frequency), cmocka_unit_test(test_interference), cmocka_unit_test(test_memory),
                cmocka_unit_test(test_interference_other_work), cmocka_unit_test(test_memory_swap),
                cmocka_unit_test(test_energy),       cmocka_unit_test(test_compute_order),
                cmocka_unit_test(test_profile_shares), cmocka_unit_test(test_profile), cmocka_unit_test(test_profile_aa), cmocka_unit_test(test_profile_approximate),
                cmocka_unit_test(test_profile_causes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
