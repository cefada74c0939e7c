/* rule-difference.c: throughput and latency (p50, p99, p99.9 from scheduled) of every cell
 * against the baseline: the ratio of geometric means with its interval on the log scale
 * (basic/stats), at 95% with Bonferroni's correction for the metrics compared at once
 * (findings-compare.h), so that an A/A experiment is not "different" one time in five; the
 * claim prints that interval and names its level. A difference's severity is what its interval
 * supports, not its point estimate: medium when the whole interval lies 5% or more from 1, high
 * from 10% (an A/A's chance difference of "20%, interval 4.6% to 32.7%" supports only 4.6%, and
 * with 2 iterations a side the point estimate alone says little); findings-causes.c adds the
 * findings of the cell that can explain it. Otherwise one info
 * finding per cell says plainly that the intervals include 1. Where the interval is approximate
 * (few iterations on a side, sides of different sizes: stats.h), the claim says so. The metrics
 * a definition's stop rule decides take its confidence sequence and decision instead
 * (findings-sequential.h), and the claim names it. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "findings/findings-causes.h"
#include "findings/findings-compare.h"
#include "findings/findings-sequential.h"

#define MEDIUM_EFFECT 0.05
#define HIGH_EFFECT 0.10

/* "the geometric mean of throughput is 27% lower than in A (98.75% interval, Bonferroni over 4
 * metrics: 21.3% to 32.8% lower)", the bounds to a tenth so that one near 1 does not read 0%; or
 * "... is 3.2x the baseline A's (95% interval: 2.1-4.9x)" */
static void describe(char *buf, size_t size, const char *what, const char *base, const struct stats_ratio *r,
                     const char *level) {
        double q = r->ratio;
        const char *approx = r->approximate ? "; " FINDINGS_APPROXIMATE_TEXT : "";
        if (q >= 2)
                snprintf(buf, size, "geometric mean of %s is %.1fx the baseline %s's (%s: %.1f-%.1fx%s)", what, q, base,
                         level, r->ci_low, r->ci_high, approx);
        else if (q >= 1)
                snprintf(buf, size, "geometric mean of %s is %.0f%% higher than in %s (%s: %.1f%% to %.1f%% higher%s)", what,
                         (q - 1) * 100, base, level, (r->ci_low - 1) * 100, (r->ci_high - 1) * 100, approx);
        else
                snprintf(buf, size, "geometric mean of %s is %.0f%% lower than in %s (%s: %.1f%% to %.1f%% lower%s)", what,
                         (1 - q) * 100, base, level, (1 - r->ci_high) * 100, (1 - r->ci_low) * 100, approx);
}

static void report_same(cJSON *out, const struct findings_cell *cell, const struct findings_cell *base,
                        const struct findings_compared *c, size_t n, bool have_ci, const char *level) {
        char claim[1400];
        int len = have_ci ? snprintf(claim, sizeof claim, "cell %s shows no significant difference from %s (%s) in",
                                     cell->name, base->name, level)
                          : snprintf(claim, sizeof claim, "cell %s cannot be compared with %s (fewer than 2 iterations) in",
                                     cell->name, base->name);
        bool approximate = false;
        for (size_t i = 0; i < n && len > 0 && (size_t) len < sizeof claim; i++) {
                const struct stats_ratio *r = &c[i].r;
                approximate = approximate || r->approximate;
                if (c[i].sequential) {
                        char stop[160];
                        findings_stop_text(stop, sizeof stop, &c[i]);
                        len += r->have_ci ? snprintf(claim + len, sizeof claim - (size_t) len,
                                                     "%s %s (ratio of geometric means %.3f, %s: interval %.3f-%.3f)",
                                                     i ? ";" : "", c[i].metric->what, r->ratio, stop, r->ci_low, r->ci_high)
                                          : snprintf(claim + len, sizeof claim - (size_t) len, "%s %s (%s: no bound yet)",
                                                     i ? ";" : "", c[i].metric->what, stop);
                } else if (have_ci)
                        len += snprintf(claim + len, sizeof claim - (size_t) len, "%s %s (ratio of geometric means %.3f, interval %.3f-%.3f includes 1)",
                                        i ? ";" : "", c[i].metric->what, r->ratio, r->ci_low, r->ci_high);
                else
                        len += snprintf(claim + len, sizeof claim - (size_t) len, "%s %s (ratio of geometric means %.3f)", i ? ";" : "",
                                        c[i].metric->what, r->ratio);
        }
        if (approximate && len > 0 && (size_t) len < sizeof claim)
                snprintf(claim + len, sizeof claim - (size_t) len, "; the intervals are " FINDINGS_APPROXIMATE_TEXT);
        cJSON *f = findings_append(out, "difference", FINDING_INFO, 0, claim,
                               have_ci ? "more iterations narrow the intervals (see the noise findings)" : "run at least 2 iterations per cell");
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        for (size_t i = 0; i < n; i++)
                findings_add_evidence(f, c[i].metric->path, cell, c[i].value, c[i].baseline_value);
}

/* The smallest effect the interval supports: how far its bound nearest 1 lies from 1 (as the
 * claim prints it: "4.6% to 32.7% lower" supports 4.6%). */
static double supported_effect(const struct stats_ratio *r) {
        return r->ci_low > 1 ? r->ci_low - 1 : r->ci_high < 1 ? 1 - r->ci_high : 0;
}

static void report_different(cJSON *out, const struct findings_cell *cell, const struct findings_cell *base,
                             const struct findings_compared *c, const char *level) {
        double effect = c->r.ratio - 1;
        bool worse = c->metric->higher_is_better ? effect < 0 : effect > 0;
        double supported = supported_effect(&c->r);
        enum findings_severity sev = supported >= HIGH_EFFECT ? FINDING_HIGH
                                   : supported >= MEDIUM_EFFECT ? FINDING_MEDIUM : FINDING_INFO;
        char what[512], claim[640];
        describe(what, sizeof what, c->metric->what, base->name, &c->r, level);
        snprintf(claim, sizeof claim, "in cell %s the %s (%s)", cell->name, what, worse ? "worse" : "better");
        cJSON *f = findings_append(out, "difference", sev, log(c->r.ratio), claim, NULL);
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        findings_add_evidence(f, c->metric->path, cell, c->value, c->baseline_value);
        findings_causes_mark(f, cell->name, base->name,
                             c->metric->higher_is_better ? FINDINGS_EFFECT_THROUGHPUT : FINDINGS_EFFECT_LATENCY, worse,
                             c->r.approximate);
}

void findings_rule_difference(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                if (ci == in->baseline)
                        continue;
                const struct findings_cell *cell = &in->cells[ci];
                struct findings_compared c[FINDINGS_COMPARE_METRICS_MAX], same[FINDINGS_COMPARE_METRICS_MAX];
                size_t n = findings_compare_cell(cell, base, c), n_same = 0;
                findings_stop_apply(in, ci, c, n);
                char level[96], stop[160];
                findings_compare_level_text(level, sizeof level, n);
                bool have_ci = true;
                for (size_t i = 0; i < n; i++) {
                        have_ci = have_ci && (c[i].sequential || c[i].r.have_ci);
                        if (c[i].sequential)
                                findings_stop_text(stop, sizeof stop, &c[i]);
                        if (c[i].r.have_ci && c[i].r.excludes_one)
                                report_different(out, cell, base, &c[i], c[i].sequential ? stop : level);
                        else
                                same[n_same++] = c[i];
                }
                if (n_same > 0)
                        report_same(out, cell, base, same, n_same, have_ci, level);
        }
}
