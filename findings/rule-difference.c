/* rule-difference.c: throughput and latency (p50, p99, p99.9 from scheduled) of every cell
 * against the baseline: the ratio of geometric means with its 95% interval on the log scale
 * (basic/stats). A difference counts only when its interval excludes 1 also after Bonferroni's
 * correction for the metrics compared at once, so an A/A experiment is not "different" one
 * time in five; then it is medium from 5% and high from 10%. Otherwise one info finding per
 * cell says plainly that the intervals include 1. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/stats.h"

static const struct {
        const char *path, *what;
        bool higher_is_better;
} metrics[] = {
        { "throughput_rps", "throughput", true },
        { "ops_per_s", "operations per second", true },
        { "latency_us.scheduled.p50", "p50 latency from scheduled", false },
        { "latency_us.scheduled.p99", "p99 latency from scheduled", false },
        { "latency_us.scheduled.p999", "p99.9 latency from scheduled", false },
};

#define MEDIUM_EFFECT 0.05
#define HIGH_EFFECT 0.10

/* "27% fewer requests per second than A (95% CI 21-33%)" or "3.2x higher than A's (95% CI 2.1-4.9x)" */
static void describe(char *buf, size_t size, const char *what, const char *base, const struct stats_ratio *r) {
        double q = r->ratio;
        if (q >= 2)
                snprintf(buf, size, "%s is %.1fx the baseline %s's (95%% CI %.1f-%.1fx)", what, q, base, r->ci_low, r->ci_high);
        else if (q >= 1)
                snprintf(buf, size, "%s is %.0f%% higher than in %s (95%% CI %.0f%% to %.0f%%)", what, (q - 1) * 100, base,
                         (r->ci_low - 1) * 100, (r->ci_high - 1) * 100);
        else
                snprintf(buf, size, "%s is %.0f%% lower than in %s (95%% CI %.0f%% to %.0f%% lower)", what, (1 - q) * 100,
                         base, (1 - r->ci_high) * 100, (1 - r->ci_low) * 100);
}

struct compared {
        size_t metric;
        struct stats_ratio r95, strict;
        double value, baseline_value;
};

static size_t compare_cell(const struct findings_cell *cell, const struct findings_cell *base, struct compared *out) {
        double x[FINDINGS_RUNS_MAX], b[FINDINGS_RUNS_MAX];
        size_t k = 0;
        for (size_t m = 0; m < ELEMENTSOF(metrics); m++) {
                size_t nx = findings_values(cell, metrics[m].path, x, FINDINGS_RUNS_MAX);
                size_t nb = findings_values(base, metrics[m].path, b, FINDINGS_RUNS_MAX);
                struct compared c = { .metric = m };
                if (nx == 0 || nb == 0 || stats_ratio_log(x, nx, b, nb, 0.95, &c.r95) < 0)
                        continue;
                struct stats_summary sx, sb;
                if (stats_describe(x, nx, &sx) < 0 || stats_describe(b, nb, &sb) < 0)
                        continue;
                c.value = sx.mean;
                c.baseline_value = sb.mean;
                out[k++] = c;
        }
        /* Bonferroni over the metrics compared for this cell */
        for (size_t i = 0; i < k; i++) {
                size_t nx = findings_values(cell, metrics[out[i].metric].path, x, FINDINGS_RUNS_MAX);
                size_t nb = findings_values(base, metrics[out[i].metric].path, b, FINDINGS_RUNS_MAX);
                if (stats_ratio_log(x, nx, b, nb, 1 - 0.05 / (double) k, &out[i].strict) < 0)
                        out[i].strict = (struct stats_ratio){ 0 };
        }
        return k;
}

static void report_same(cJSON *out, const struct findings_cell *cell, const struct findings_cell *base,
                        const struct compared *c, size_t n, bool have_ci) {
        char claim[1024];
        int len = snprintf(claim, sizeof claim,
                           have_ci ? "cell %s shows no significant difference from %s in" : "cell %s cannot be compared with %s (fewer than 2 iterations) in",
                           cell->name, base->name);
        for (size_t i = 0; i < n && len > 0 && (size_t) len < sizeof claim; i++) {
                const struct stats_ratio *r = &c[i].r95;
                if (have_ci)
                        len += snprintf(claim + len, sizeof claim - (size_t) len, "%s %s (ratio %.3f, 95%% CI %.3f-%.3f includes 1)",
                                        i ? ";" : "", metrics[c[i].metric].what, r->ratio, r->ci_low, r->ci_high);
                else
                        len += snprintf(claim + len, sizeof claim - (size_t) len, "%s %s (ratio %.3f)", i ? ";" : "",
                                        metrics[c[i].metric].what, r->ratio);
        }
        cJSON *f = findings_append(out, "difference", FINDING_INFO, 0, claim,
                                   have_ci ? "more iterations narrow the intervals (see the noise findings)" : "run at least 2 iterations per cell");
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        for (size_t i = 0; i < n; i++)
                findings_add_evidence(f, metrics[c[i].metric].path, cell, c[i].value, c[i].baseline_value);
}

void findings_rule_difference(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                if (ci == in->baseline)
                        continue;
                const struct findings_cell *cell = &in->cells[ci];
                struct compared c[ELEMENTSOF(metrics)], same[ELEMENTSOF(metrics)];
                size_t n = compare_cell(cell, base, c), n_same = 0;
                bool have_ci = true;
                for (size_t i = 0; i < n; i++) {
                        double effect = c[i].r95.ratio - 1;
                        bool significant = c[i].r95.have_ci && c[i].strict.have_ci && c[i].strict.excludes_one;
                        have_ci = have_ci && c[i].r95.have_ci;
                        if (!significant) {
                                same[n_same++] = c[i];
                                continue;
                        }
                        bool worse = metrics[c[i].metric].higher_is_better ? effect < 0 : effect > 0;
                        enum findings_severity sev = fabs(effect) >= HIGH_EFFECT ? FINDING_HIGH
                                                   : fabs(effect) >= MEDIUM_EFFECT ? FINDING_MEDIUM : FINDING_INFO;
                        char what[512], claim[640];
                        describe(what, sizeof what, metrics[c[i].metric].what, base->name, &c[i].r95);
                        snprintf(claim, sizeof claim, "in cell %s the %s (%s)", cell->name, what,
                                 worse ? "worse" : "better");
                        cJSON *f = findings_append(out, "difference", sev, log(c[i].r95.ratio), claim,
                                                   worse ? "see the other findings for this cell: they name the causes the data shows" : NULL);
                        findings_add_cell(f, cell->name);
                        findings_add_cell(f, base->name);
                        findings_add_evidence(f, metrics[c[i].metric].path, cell, c[i].value, c[i].baseline_value);
                }
                if (n_same > 0)
                        report_same(out, cell, base, same, n_same, have_ci);
        }
}
