/* profile-shares.c: per thread group and frame, its share of each run's CPU samples and the
 * difference between two cells (see profile-shares.h). */
#include "findings/profile-shares.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/intern.h"
#include "basic/macro.h"
#include "basic/stats.h"
#include "profile/profile-folded.h"

struct name {
        uint32_t id;                    /* in the table of its kind: groups or frames */
        bool group;
        uint32_t last_run;              /* run + 1 of the record at last_rec; 0: none yet */
        size_t last_rec;
        uint64_t last_stack;            /* the stack that last counted its total */
        size_t first, n;                /* its records in the sorted list */
};

/* One name's counts in one run. */
struct record {
        uint32_t name, run;
        uint64_t self, total;
};

struct profile_shares {
        struct name *names;             /* groups and frames in first-seen order */
        size_t n_names, cap_names;
        struct intern interned[2];      /* [group]: a group and a frame of one text are two names */
        uint32_t *index[2];             /* [group][id]: the name's index in names */
        size_t cap_index[2];
        struct record *records, *sorted;
        size_t n_records, cap_records;
        bool sorted_valid;
        struct run {
                uint64_t samples;
                uint32_t position;      /* within its side */
                enum profile_side side;
        } *runs;
        size_t n_runs, cap_runs, runs_of[_PROFILE_SIDE_MAX];
        double *shares[_PROFILE_SIDE_MAX];
        uint64_t stack;
        struct {                        /* t quantiles of the sides' degrees of freedom (n - 1) */
                double level, t;
                size_t n;
        } t_memo[_PROFILE_SIDE_MAX];
        bool truncated;
};

int profile_shares_new(struct profile_shares **ret) {
        struct profile_shares *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        for (size_t k = 0; k < 2; k++)
                intern_init(&s->interned[k]);
        *ret = s;
        return 0;
}

void profile_shares_free(struct profile_shares *s) {
        if (!s)
                return;
        for (size_t k = 0; k < 2; k++) {
                intern_done(&s->interned[k]);
                free(s->index[k]);
        }
        free(s->names);
        free(s->records);
        free(s->sorted);
        free(s->runs);
        for (size_t k = 0; k < _PROFILE_SIDE_MAX; k++)
                free(s->shares[k]);
        free(s);
}

static int grow(void **v, size_t *cap, size_t need, size_t size) {
        if (need <= *cap)
                return 0;
        size_t cap_new = MAX(*cap * 2, (size_t) 64);
        void *p = reallocarray(*v, cap_new, size);
        if (!p)
                return -ENOMEM;
        *v = p;
        *cap = cap_new;
        return 0;
}

/* The index of a name, added on first sight; -ENOSPC past PROFILE_SHARES_NAMES_MAX. */
static int64_t intern(struct profile_shares *s, const char *p, size_t len, bool group) {
        struct intern *t = &s->interned[group];
        uint32_t id;
        if (intern_find(t, p, len, &id) == 0)
                return s->index[group][id];
        if (s->n_names >= PROFILE_SHARES_NAMES_MAX)
                return -ENOSPC;
        if (grow((void **) &s->names, &s->cap_names, s->n_names + 1, sizeof *s->names) < 0 ||
            grow((void **) &s->index[group], &s->cap_index[group], intern_count(t) + 1, sizeof *s->index[group]) < 0)
                return -ENOMEM;
        int r = intern_add(t, p, len, &id);
        if (r < 0)
                return r;
        s->index[group][id] = (uint32_t) s->n_names;
        s->names[s->n_names] = (struct name){ .id = id, .group = group };
        return (int64_t) s->n_names++;
}

/* Adds to name's record of run (one per name and run). */
static int count(struct profile_shares *s, uint32_t name, uint32_t run, uint64_t self, uint64_t total) {
        struct name *n = &s->names[name];
        if (n->last_run != run + 1) {
                if (grow((void **) &s->records, &s->cap_records, s->n_records + 1, sizeof *s->records) < 0)
                        return -ENOMEM;
                s->records[s->n_records] = (struct record){ .name = name, .run = run };
                n->last_run = run + 1;
                n->last_rec = s->n_records++;
        }
        s->records[n->last_rec].self += self;
        s->records[n->last_rec].total += total;
        return 0;
}

/* The frames of the previous stack: profile.folded is sorted, so a stack mostly repeats the
 * one before it up to some frame, and those frames need no hashing. */
#define PREFIX_FRAMES 512

struct prefix {
        const char *p;
        size_t len, n;
        uint32_t name[PREFIX_FRAMES];
        size_t end[PREFIX_FRAMES];      /* where frame k ends: its ';' */
};

static size_t common_prefix(const char *a, size_t la, const char *b, size_t lb) {
        size_t n = MIN(la, lb), i = 0;
        uint64_t x, y;
        for (; i + 8 <= n; i += 8) {
                memcpy(&x, a + i, 8);
                memcpy(&y, b + i, 8);
                if (x != y)
                        break;
        }
        while (i < n && a[i] == b[i])
                i++;
        return i;
}

/* Name i seen once more in the current stack of run. */
static int account(struct profile_shares *s, uint32_t i, uint32_t run, bool self, uint64_t c) {
        struct name *n = &s->names[i];
        /* recursion: a frame's total counts a stack once */
        uint64_t total = n->last_stack == s->stack ? 0 : c;
        n->last_stack = s->stack;
        return count(s, i, run, self ? c : 0, total);
}

/* One "group;a;b;leaf N" stack of run. */
static int add_stack(struct profile_shares *s, uint32_t run, const char *p, size_t len, uint64_t c, struct prefix *prev) {
        s->stack++;
        size_t common = prev->p ? common_prefix(prev->p, prev->len, p, len) : 0, k = 0, pos = 0;
        for (; k < prev->n && prev->end[k] < common; k++) {
                int r = account(s, prev->name[k], run, false, c);
                if (r < 0)
                        return r;
                pos = prev->end[k] + 1;
        }
        bool cacheable = true;
        for (; pos <= len; k++) {
                const char *semi = memchr(p + pos, ';', len - pos);
                size_t l = semi ? (size_t) (semi - (p + pos)) : len - pos;
                int64_t i = intern(s, p + pos, l, k == 0);
                if (i < 0 && i != -ENOSPC)
                        return (int) i;
                /* frames [0, k) are this stack's; from a frame left out or past the cache, none more */
                cacheable = cacheable && i >= 0 && k < PREFIX_FRAMES;
                if (cacheable) {
                        prev->name[k] = (uint32_t) i;
                        prev->end[k] = pos + l;
                        prev->n = k + 1;
                } else
                        prev->n = MIN(prev->n, k);
                pos += l + 1;
                if (i == -ENOSPC) {
                        s->truncated = true;
                        continue;
                }
                int r = account(s, (uint32_t) i, run, !semi && k > 0, c);
                if (r < 0)
                        return r;
        }
        prev->p = p;
        prev->len = len;
        return 0;
}

int profile_shares_add_run(struct profile_shares *s, enum profile_side side, const char *text, size_t len) {
        if (s->n_runs >= UINT32_MAX - 1)
                return -E2BIG;
        if (grow((void **) &s->runs, &s->cap_runs, s->n_runs + 1, sizeof *s->runs) < 0)
                return -ENOMEM;
        uint32_t run = (uint32_t) s->n_runs;
        uint64_t samples = 0;
        _cleanup_free_ struct prefix *prev = calloc(1, sizeof *prev);
        if (!prev)
                return -ENOMEM;
        s->sorted_valid = false;
        struct profile_folded_line l;
        for (size_t pos = 0; profile_folded_next(text, len, &pos, &l);) {
                int r = add_stack(s, run, l.stack, l.len, l.count, prev);
                if (r < 0)
                        return r;
                samples += l.count;
        }
        s->runs[run] = (struct run){ .samples = samples, .position = (uint32_t) s->runs_of[side]++, .side = side };
        s->n_runs++;
        return 0;
}

size_t profile_shares_runs(const struct profile_shares *s, enum profile_side side) {
        return s->runs_of[side];
}

bool profile_shares_truncated(const struct profile_shares *s) {
        return s->truncated;
}

size_t profile_shares_count(const struct profile_shares *s) {
        return s->n_names;
}

const char *profile_shares_name(const struct profile_shares *s, size_t i, bool *ret_group) {
        if (ret_group)
                *ret_group = s->names[i].group;
        return intern_name(&s->interned[s->names[i].group], s->names[i].id);
}

/* The records grouped by name (a counting sort), and the per-side share buffers. */
static int ensure_sorted(struct profile_shares *s) {
        if (s->sorted_valid)
                return 0;
        struct record *sorted = reallocarray(s->sorted, MAX(s->n_records, (size_t) 1), sizeof *sorted);
        if (!sorted)
                return -ENOMEM;
        s->sorted = sorted;
        for (size_t k = 0; k < _PROFILE_SIDE_MAX; k++) {
                double *b = reallocarray(s->shares[k], MAX(s->runs_of[k], (size_t) 1), sizeof *b);
                if (!b)
                        return -ENOMEM;
                s->shares[k] = b;
        }
        for (size_t i = 0; i < s->n_names; i++)
                s->names[i].n = 0;
        for (size_t i = 0; i < s->n_records; i++)
                s->names[s->records[i].name].n++;
        size_t at = 0;
        for (size_t i = 0; i < s->n_names; i++) {
                s->names[i].first = at;
                at += s->names[i].n;
                s->names[i].n = 0;
        }
        for (size_t i = 0; i < s->n_records; i++) {
                struct name *n = &s->names[s->records[i].name];
                s->sorted[n->first + n->n++] = s->records[i];
        }
        s->sorted_valid = true;
        return 0;
}

static double share_of(const struct profile_shares *s, const struct record *r, enum profile_share_kind kind) {
        uint64_t c = kind == PROFILE_SHARE_SELF ? r->self : r->total;
        uint64_t samples = s->runs[r->run].samples;
        return samples ? (double) c / (double) samples : 0;
}

double profile_shares_pooled(struct profile_shares *s, size_t i, enum profile_share_kind kind) {
        if (s->n_runs == 0 || ensure_sorted(s) < 0)
                return 0;
        const struct name *n = &s->names[i];
        double sum = 0;
        for (size_t k = n->first; k < n->first + n->n; k++)
                sum += share_of(s, &s->sorted[k], kind);
        return sum / (double) s->n_runs;
}

double profile_shares_difference(struct profile_shares *s, size_t i, enum profile_share_kind kind) {
        if (i >= s->n_names || ensure_sorted(s) < 0)
                return 0;
        const struct name *n = &s->names[i];
        double sum[_PROFILE_SIDE_MAX] = { 0 };
        for (size_t k = n->first; k < n->first + n->n; k++)
                sum[s->runs[s->sorted[k].run].side] += share_of(s, &s->sorted[k], kind);
        double d = 0;
        if (s->runs_of[PROFILE_SIDE_CELL])
                d += sum[PROFILE_SIDE_CELL] / (double) s->runs_of[PROFILE_SIDE_CELL];
        if (s->runs_of[PROFILE_SIDE_BASELINE])
                d -= sum[PROFILE_SIDE_BASELINE] / (double) s->runs_of[PROFILE_SIDE_BASELINE];
        return d;
}

struct ranked {
        double key;
        size_t name;
};

static int cmp_ranked(const void *a, const void *b) {
        const struct ranked *x = a, *y = b;
        return (x->key < y->key) - (x->key > y->key);
}

int profile_shares_rank_frames(struct profile_shares *s, enum profile_share_kind kind, enum profile_shares_order order,
                               size_t *ret, size_t max, size_t *ret_n) {
        struct ranked *r = calloc(MAX(s->n_names, (size_t) 1), sizeof *r);
        size_t n = 0;
        if (!r)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_names; i++)
                if (!s->names[i].group)
                        r[n++] = (struct ranked){
                                order == PROFILE_ORDER_POOLED ? profile_shares_pooled(s, i, kind)
                                                              : fabs(profile_shares_difference(s, i, kind)),
                                i,
                        };
        qsort(r, n, sizeof *r, cmp_ranked);
        n = MIN(n, max);
        for (size_t i = 0; i < n; i++)
                ret[i] = r[i].name;
        free(r);
        *ret_n = n;
        return 0;
}

static double t_of(double level, double df) {
        return stats_t_quantile(1 - (1 - level) / 2, df);
}

/* Mean and sample variance. */
static void moments(const double *x, size_t n, double *ret_mean, double *ret_var) {
        double m = 0, ss = 0;
        for (size_t i = 0; i < n; i++)
                m += x[i];
        m = n ? m / (double) n : 0;
        for (size_t i = 0; i < n; i++)
                ss += (x[i] - m) * (x[i] - m);
        *ret_mean = m;
        *ret_var = n >= 2 ? ss / (double) (n - 1) : NAN;
}

/* The side's t quantile, computed once per level: every name of a side has its n. */
static double t_of_side(struct profile_shares *s, enum profile_side side, double level) {
        size_t n = s->runs_of[side];
        if (s->t_memo[side].level != level || s->t_memo[side].n != n) {
                s->t_memo[side].level = level;
                s->t_memo[side].n = n;
                s->t_memo[side].t = t_of(level, (double) (n - 1));
        }
        return s->t_memo[side].t;
}

static void describe(struct profile_shares *s, enum profile_side side, double level, struct profile_share_mean *ret,
                     double *ret_var) {
        const double *x = s->shares[side];
        size_t n = s->runs_of[side];
        double m, var;
        moments(x, n, &m, &var);
        *ret = (struct profile_share_mean){ .n = n, .mean = m };
        *ret_var = var;
        if (n < 2)
                return;
        double half = t_of_side(s, side, level) * sqrt(var / (double) n);
        ret->have_ci = true;
        ret->ci_low = MAX(m - half, 0.0);
        ret->ci_high = MIN(m + half, 1.0);
}

/* mean(cell) - mean(baseline) with Welch's interval. */
static void difference(const struct profile_share_mean *c, double var_c, const struct profile_share_mean *b,
                       double var_b, double level, struct profile_share_difference *ret) {
        *ret = (struct profile_share_difference){ .value = c->mean - b->mean };
        if (c->n < 2 || b->n < 2)
                return;
        double vc = var_c / (double) c->n, vb = var_b / (double) b->n, se = sqrt(vc + vb);
        if (!isfinite(se) || se <= 0)
                return;
        double df = (vc + vb) * (vc + vb) / (vc * vc / (double) (c->n - 1) + vb * vb / (double) (b->n - 1));
        double half = t_of(level, df) * se;
        ret->have_ci = true;
        ret->ci_low = ret->value - half;
        ret->ci_high = ret->value + half;
        ret->excludes_zero = ret->ci_low > 0 || ret->ci_high < 0;
        ret->approximate = MIN(c->n, b->n) < STATS_EXACT_MIN_N && c->n != b->n;
}

int profile_shares_compare(struct profile_shares *s, size_t i, enum profile_share_kind kind, double level,
                           struct profile_share_compared *ret) {
        if (i >= s->n_names || !(level > 0 && level < 1))
                return -EINVAL;
        int r = ensure_sorted(s);
        if (r < 0)
                return r;
        for (size_t k = 0; k < _PROFILE_SIDE_MAX; k++)
                memset(s->shares[k], 0, s->runs_of[k] * sizeof(double));
        const struct name *n = &s->names[i];
        for (size_t k = n->first; k < n->first + n->n; k++) {
                const struct record *rec = &s->sorted[k];
                const struct run *run = &s->runs[rec->run];
                s->shares[run->side][run->position] = share_of(s, rec, kind);
        }
        struct profile_share_compared c = { 0 };
        double var[_PROFILE_SIDE_MAX];
        for (size_t k = 0; k < _PROFILE_SIDE_MAX; k++) {
                c.shares[k] = s->shares[k];
                describe(s, (enum profile_side) k, level, &c.side[k], &var[k]);
        }
        difference(&c.side[PROFILE_SIDE_CELL], var[PROFILE_SIDE_CELL], &c.side[PROFILE_SIDE_BASELINE],
                   var[PROFILE_SIDE_BASELINE], level, &c.difference);
        *ret = c;
        return 0;
}
