/* rule-profile.c: where the CPU went, against the baseline (profile.cpu): per cell, the thread
 * groups (app, gc, jit, vm, kernel, other) and the frames whose share of CPU samples differs
 * from the baseline's, with the per-iteration shares of findings/profile-shares.h. Decided as
 * the difference rule decides: Welch's interval of the difference of mean shares must exclude 0
 * at 95% with Bonferroni's correction, over the thread groups seen (one family), and over the
 * frames tested (another): the FRAMES_TESTED frames with the largest self share over both sides
 * together, chosen without looking at the difference. At most FRAMES_REPORTED frames per cell,
 * largest difference first; a frame's share is self (where the CPU was spent: its callers
 * would repeat it). A difference that is significant but whose interval does not reach
 * MIN_POINTS on its side is no finding: identical cells' JVMs differ by that much in a share
 * with a small spread (an A/A copy on CI: VM threads 0.2% vs 0.2% of samples, difference +0.1
 * points, interval 0.0 to 0.1, significant at 98.75%), and a tenth of a point of the CPU is
 * nothing to act on. Severity is what the interval supports, as for the difference rule: medium
 * when its bound nearer 0 is 5 points or more away, high from 10. A group's finding is
 * joined to the findings that can explain it (a gc finding for the GC threads); where the
 * interval is approximate, the claim says so. A cell or baseline with fewer than 2 profiled
 * iterations gives nothing: nothing can be decided. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/utf8.h"
#include "findings/findings-causes.h"
#include "findings/findings-compare.h"
#include "findings/profile-shares.h"

#define FRAMES_TESTED 20
#define FRAMES_REPORTED 5
#define MIN_POINTS 0.01
#define MEDIUM_POINTS 0.05
#define HIGH_POINTS 0.10

struct group_info {
        const char *name, *what;
        const char *const *causes;      /* NULL: any kind of findings_causes_mark() */
};

static const char *const gc_causes[] = { "gc", "memory", "ergonomics", NULL };
static const char *const jit_causes[] = { "jit", "ergonomics", NULL };
static const char *const vm_causes[] = { "gc", "jit", "ergonomics", NULL };
static const char *const kernel_causes[] = { "throttling", "interference", "memory", NULL };

/* As daemon/profile-fold.c roots the stacks. */
static const struct group_info groups[] = {
        { "app", "Java application threads", NULL },
        { "gc", "GC threads", gc_causes },
        { "jit", "JIT compiler threads", jit_causes },
        { "vm", "VM threads (safepoints)", vm_causes },
        { "kernel", "kernel-only stacks", kernel_causes },
        { "other", "other threads", NULL },
};

static const struct group_info *group_of(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                if (strcmp(groups[i].name, name) == 0)
                        return &groups[i];
        return NULL;
}

/* One significant difference, for ordering before the findings are written. */
struct candidate {
        size_t name;
        bool group;
        struct profile_share_compared c;        /* its shares pointers are not kept */
        char level[96];
};

/* How far from 0 the difference's interval lies: its bound nearer 0 (0 when it spans 0). */
static double supported_points(const struct profile_share_difference *d) {
        return d->excludes_zero ? MIN(fabs(d->ci_low), fabs(d->ci_high)) : 0;
}

static int cmp_candidate(const void *a, const void *b) {
        double x = fabs(((const struct candidate *) a)->c.difference.value);
        double y = fabs(((const struct candidate *) b)->c.difference.value);
        return (x < y) - (x > y);
}

/* "31%" from 10% up, "4.2%" below: a share near 0 does not read 0%. */
static void pct(char *buf, size_t size, double share) {
        snprintf(buf, size, share * 100 >= 10 ? "%.0f%%" : "%.1f%%", share * 100);
}

static void describe(char *buf, size_t size, const char *cell, const char *base, const char *what,
                     const struct candidate *k) {
        const struct profile_share_mean *c = &k->c.side[PROFILE_SIDE_CELL], *b = &k->c.side[PROFILE_SIDE_BASELINE];
        const struct profile_share_difference *d = &k->c.difference;
        char mc[16], mb[16], cl[16], ch[16], bl[16], bh[16];
        pct(mc, sizeof mc, c->mean);
        pct(mb, sizeof mb, b->mean);
        pct(cl, sizeof cl, c->ci_low);
        pct(ch, sizeof ch, c->ci_high);
        pct(bl, sizeof bl, b->ci_low);
        pct(bh, sizeof bh, b->ci_high);
        snprintf(buf, size,
                 "in cell %s, %s: %s of CPU samples vs %s in %s (mean over %zu vs %zu iterations; %s: %s-%s vs %s-%s; "
                 "difference %+.1f points, interval %.1f to %.1f%s)",
                 cell, what, mc, mb, base, c->n, b->n, k->level, cl, ch, bl, bh, d->value * 100, d->ci_low * 100,
                 d->ci_high * 100, d->approximate ? "; " FINDINGS_APPROXIMATE_TEXT : "");
}

static void add_evidence(cJSON *f, const struct findings_cell *cell, const struct candidate *k, const char *name,
                         const char *const *run_ids, size_t n_ids) {
        findings_add_evidence_runs(f, k->group ? "profile.share.total" : "profile.share.self", cell->name,
                                   k->c.side[PROFILE_SIDE_CELL].mean, k->c.side[PROFILE_SIDE_BASELINE].mean, run_ids,
                                   n_ids);
        cJSON *evidence = cJSON_GetObjectItemCaseSensitive(f, "evidence");
        cJSON *e = cJSON_GetArrayItem(evidence, cJSON_GetArraySize(evidence) - 1);
        cJSON_AddStringToObject(e, k->group ? "group" : "frame", name);
        cJSON_AddStringToObject(e, "level", k->level);
        cJSON_AddNumberToObject(e, "iterations", (double) k->c.side[PROFILE_SIDE_CELL].n);
        cJSON_AddNumberToObject(e, "baseline_iterations", (double) k->c.side[PROFILE_SIDE_BASELINE].n);
        const struct profile_share_mean *sides[] = { &k->c.side[PROFILE_SIDE_CELL], &k->c.side[PROFILE_SIDE_BASELINE] };
        const char *const keys[] = { "interval", "baseline_interval" };
        for (size_t i = 0; i < 2; i++) {
                cJSON *a = cJSON_AddArrayToObject(e, keys[i]);
                cJSON_AddItemToArray(a, cJSON_CreateNumber(sides[i]->ci_low));
                cJSON_AddItemToArray(a, cJSON_CreateNumber(sides[i]->ci_high));
        }
        cJSON *d = cJSON_AddArrayToObject(e, "difference_interval");
        cJSON_AddItemToArray(d, cJSON_CreateNumber(k->c.difference.ci_low));
        cJSON_AddItemToArray(d, cJSON_CreateNumber(k->c.difference.ci_high));
}

static void report(cJSON *out, const struct findings_cell *cell, const struct findings_cell *base,
                   struct profile_shares *s, const struct candidate *k, const char *const *run_ids, size_t n_ids) {
        const char *name = profile_shares_name(s, k->name, NULL);
        const struct group_info *g = k->group ? group_of(name) : NULL;
        char what[600], claim[1400];
        if (g)
                snprintf(what, sizeof what, "%s (group %s)", g->what, name);
        else if (k->group)
                snprintf(what, sizeof what, "thread group %.*s", UTF8_PREFIX(name, 200));
        else
                snprintf(what, sizeof what, "frame %.*s (self)", UTF8_PREFIX(name, 400));
        describe(claim, sizeof claim, cell->name, base->name, what, k);
        double d = k->c.difference.value, supported = supported_points(&k->c.difference);
        enum findings_severity sev = supported >= HIGH_POINTS     ? FINDING_HIGH
                                     : supported >= MEDIUM_POINTS ? FINDING_MEDIUM
                                                                  : FINDING_INFO;
        cJSON *f = findings_append(out, "profile", sev, d, claim, NULL);
        findings_add_cell(f, cell->name);
        findings_add_cell(f, base->name);
        add_evidence(f, cell, k, name, run_ids, n_ids);
        bool up = d > 0;
        if (g && g->causes)
                findings_causes_mark_kinds(f, cell->name, base->name, FINDINGS_EFFECT_CPU_SHARE, up,
                                           k->c.difference.approximate, g->causes);
        else
                findings_causes_mark(f, cell->name, base->name, FINDINGS_EFFECT_CPU_SHARE, up, k->c.difference.approximate);
}

/* The profiled runs of c counted into side; their ids into ids (capacity FINDINGS_RUNS_MAX). */
static int add_cell(struct profile_shares *s, const struct findings_cell *c, enum profile_side side,
                    const char **ids, size_t *ret_n) {
        size_t n = 0;
        for (size_t i = 0; i < c->n_runs; i++) {
                if (!c->runs[i].profile)
                        continue;
                int r = profile_shares_add_run(s, side, c->runs[i].profile, c->runs[i].profile_len);
                if (r < 0)
                        return r;
                if (ids && n < FINDINGS_RUNS_MAX)
                        ids[n++] = c->runs[i].id;
        }
        if (ret_n)
                *ret_n = n;
        return 0;
}

/* Decides one family (groups, or the frames tested) at its Bonferroni level; the significant
 * ones appended to cand. */
static int decide(struct profile_shares *s, const size_t *names, size_t n, bool group, const char *what,
                  struct candidate *cand, size_t *n_cand) {
        char level[96];
        findings_level_text(level, sizeof level, n, "intervals", what);
        for (size_t i = 0; i < n; i++) {
                struct candidate k = { .name = names[i], .group = group };
                int r = profile_shares_compare(s, names[i], group ? PROFILE_SHARE_TOTAL : PROFILE_SHARE_SELF,
                                               findings_compare_level(n), &k.c);
                if (r < 0)
                        return r;
                if (!k.c.difference.have_ci || supported_points(&k.c.difference) < MIN_POINTS)
                        continue;
                snprintf(k.level, sizeof k.level, "%s", level);
                cand[(*n_cand)++] = k;
        }
        return 0;
}

/* The names to test: every group, and the frames with the largest pooled self share. */
static int choose(struct profile_shares *s, size_t *groups_ret, size_t *n_groups, size_t *frames_ret,
                  size_t *n_frames) {
        size_t ng = 0;
        for (size_t i = 0; i < profile_shares_count(s); i++) {
                bool group;
                (void) profile_shares_name(s, i, &group);
                if (group && ng < ELEMENTSOF(groups) * 2)
                        groups_ret[ng++] = i;
        }
        *n_groups = ng;
        return profile_shares_rank_frames(s, PROFILE_SHARE_SELF, PROFILE_ORDER_POOLED, frames_ret, FRAMES_TESTED, n_frames);
}

static int compare_cell(cJSON *out, const struct findings_cell *cell, const struct findings_cell *base) {
        _cleanup_(profile_shares_freep) struct profile_shares *s = NULL;
        _cleanup_free_ const char **ids = calloc(FINDINGS_RUNS_MAX, sizeof *ids);
        size_t n_ids = 0;
        int r = ids ? profile_shares_new(&s) : -ENOMEM;
        if (r >= 0)
                r = add_cell(s, cell, PROFILE_SIDE_CELL, ids, &n_ids);
        if (r >= 0)
                r = add_cell(s, base, PROFILE_SIDE_BASELINE, NULL, NULL);
        if (r < 0)
                return r;
        if (profile_shares_runs(s, PROFILE_SIDE_CELL) < 2 || profile_shares_runs(s, PROFILE_SIDE_BASELINE) < 2)
                return 0;
        size_t g[ELEMENTSOF(groups) * 2], f[FRAMES_TESTED], ng, nf, n_cand = 0;
        struct candidate cand[ELEMENTSOF(groups) * 2 + FRAMES_TESTED];
        if ((r = choose(s, g, &ng, f, &nf)) < 0 || (r = decide(s, g, ng, true, "thread groups", cand, &n_cand)) < 0)
                return r;
        size_t n_group_cand = n_cand;
        if ((r = decide(s, f, nf, false, "frames", cand, &n_cand)) < 0)
                return r;
        qsort(cand + n_group_cand, n_cand - n_group_cand, sizeof *cand, cmp_candidate);
        n_cand = MIN(n_cand, n_group_cand + FRAMES_REPORTED);
        qsort(cand, n_cand, sizeof *cand, cmp_candidate);
        for (size_t i = 0; i < n_cand; i++)
                report(out, cell, base, s, &cand[i], ids, n_ids);
        return 0;
}

void findings_rule_profile(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        for (size_t ci = 0; ci < in->n_cells; ci++)
                if (ci != in->baseline)
                        (void) compare_cell(out, &in->cells[ci], base); /* out of memory: no finding */
}
