/* profile-shares.h: where two cells' CPU samples went, frame by frame, across their iterations:
 * the one computation behind the differential profile (api/profile-diff.c) and the findings
 * rule `profile` (rule-profile.c). Each run's profile.folded (one "group;frame;...;leaf N" line
 * per stack, rooted at its thread group) is counted as it is added and not kept; then per thread
 * group and per frame, its share of each run's samples (self: the frame is the leaf; total:
 * anywhere in the stack, once per stack however deep the recursion), each side's mean with its
 * Student-t interval, and the difference of the means with Welch's interval, at the level asked.
 * Adding is linear in the text (names interned once, recursion found by a stamp per stack);
 * memory is bounded by the distinct names kept (PROFILE_SHARES_NAMES_MAX). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_SHARES_NAMES_MAX (1u << 20)

enum profile_share_kind {
        PROFILE_SHARE_SELF,
        PROFILE_SHARE_TOTAL,
        _PROFILE_SHARE_KIND_MAX,
};

enum profile_side {
        PROFILE_SIDE_CELL,
        PROFILE_SIDE_BASELINE,
        _PROFILE_SIDE_MAX,
};

struct profile_shares;

int profile_shares_new(struct profile_shares **ret);
void profile_shares_free(struct profile_shares *s);
static inline void profile_shares_freep(struct profile_shares **s) {
        profile_shares_free(*s);
}

/* One run of side: its folded text counted (the text is not kept). Lines that are not
 * "stack count" are skipped. */
int profile_shares_add_run(struct profile_shares *s, enum profile_side side, const char *text, size_t len);
size_t profile_shares_runs(const struct profile_shares *s, enum profile_side side);
/* Some frames were left out (more distinct names than PROFILE_SHARES_NAMES_MAX). */
bool profile_shares_truncated(const struct profile_shares *s);

/* The names seen, groups and frames, in first-seen order: indices [0, count). */
size_t profile_shares_count(const struct profile_shares *s);
const char *profile_shares_name(const struct profile_shares *s, size_t i, bool *ret_group);
/* The mean share of name i over every run of both sides: a ranking that does not look at the
 * difference (what is then tested is not chosen by its result). */
double profile_shares_pooled(struct profile_shares *s, size_t i, enum profile_share_kind kind);
/* The cell's mean share of name i less the baseline's, without the intervals (which cost t
 * quantiles): to rank by before comparing the few that are shown. */
double profile_shares_difference(struct profile_shares *s, size_t i, enum profile_share_kind kind);

enum profile_shares_order {
        PROFILE_ORDER_DIFFERENCE,       /* largest |profile_shares_difference()| first (the API) */
        PROFILE_ORDER_POOLED,           /* largest profile_shares_pooled() first (the rule) */
};

/* The frames (not the groups) by order of their kind of share: the first at most max indices
 * into ret (capacity max), their count into *ret_n. */
int profile_shares_rank_frames(struct profile_shares *s, enum profile_share_kind kind, enum profile_shares_order order,
                               size_t *ret, size_t max, size_t *ret_n);

struct profile_share_mean {
        size_t n;                       /* runs */
        double mean;
        bool have_ci;                   /* n >= 2 */
        double ci_low, ci_high;         /* mean +- t * sd / sqrt(n), within [0, 1] */
};

struct profile_share_difference {
        double value;                   /* cell's mean - baseline's */
        bool have_ci;                   /* n >= 2 on both sides and some variance */
        double ci_low, ci_high;         /* Welch: t at Welch-Satterthwaite degrees of freedom */
        bool excludes_zero;
        bool approximate;               /* have_ci, a side below STATS_EXACT_MIN_N runs and the
                                         * sides of different sizes (as basic/stats.h's ratios) */
};

struct profile_share_compared {
        const double *shares[_PROFILE_SIDE_MAX];        /* per run of each side, in the order added */
        struct profile_share_mean side[_PROFILE_SIDE_MAX];
        struct profile_share_difference difference;
};

/* Name i's shares of kind at the two-sided level (0.95 for the API). ret->shares stay valid
 * until the next call on s. */
int profile_shares_compare(struct profile_shares *s, size_t i, enum profile_share_kind kind, double level,
                           struct profile_share_compared *ret);
