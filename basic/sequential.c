/* sequential.c: Lai's confidence sequence over a comparison's log ratios, and the decision it
 * supports (see sequential.h for the construction). */
#include "basic/sequential.h"

#include <math.h>

#include "basic/macro.h"

void sequential_add(struct sequential_sums *s, double log_ratio) {
        s->n++;
        double delta = log_ratio - s->mean;
        s->mean += delta / (double) s->n;
        s->m2 += delta * (log_ratio - s->mean);
}

/* K of the boundary: the mixture reaches 1/alpha exactly when n^2 (m - mu)^2 / (S + n (m - mu)^2)
 * reaches it. */
static double boundary_k(size_t n, double alpha) {
        double c = SEQUENTIAL_MIXTURE_PRECISION, nn = (double) n;
        return (nn + c) * (1 - pow(alpha, 2 / nn) * pow(c / (nn + c), 1 / nn));
}

void sequential_interval_of(const struct sequential_sums *s, double alpha, struct sequential_interval *ret) {
        struct sequential_interval i = { .n = s->n, .ratio = s->n ? exp(s->mean) : NAN, .low = 0, .high = INFINITY };
        double k = s->n >= 2 ? boundary_k(s->n, alpha) : INFINITY;
        if (k < (double) s->n) {
                double radius = sqrt(k * s->m2 / ((double) s->n * ((double) s->n - k)));
                i.bounded = true;
                i.low = exp(s->mean - radius);
                i.high = exp(s->mean + radius);
        }
        *ret = i;
}

enum sequential_decision sequential_decide(const struct sequential_interval *i, double margin) {
        if (!i->bounded)
                return SEQUENTIAL_UNDECIDED;
        if (i->low > 1 || i->high < 1)
                return SEQUENTIAL_DIFFERENT;
        if (i->low >= 1 / (1 + margin) && i->high <= 1 + margin)
                return SEQUENTIAL_EQUIVALENT;
        return SEQUENTIAL_UNDECIDED;
}

const char *sequential_decision_name(enum sequential_decision d) {
        switch (d) {
        case SEQUENTIAL_DIFFERENT:
                return "different";
        case SEQUENTIAL_EQUIVALENT:
                return "equivalent";
        default:
                return "undecided";
        }
}

void sequential_paired(const double *cell, const double *baseline, size_t rounds, double alpha,
                       struct sequential_interval *ret) {
        struct sequential_sums s = { 0 };
        for (size_t r = 0; r < rounds; r++)
                if (isfinite(cell[r]) && isfinite(baseline[r]) && cell[r] > 0 && baseline[r] > 0)
                        sequential_add(&s, log(cell[r]) - log(baseline[r]));
        sequential_interval_of(&s, alpha, ret);
}

size_t sequential_plan_comparisons(const struct sequential_plan *p) {
        return p->n_cells > 1 ? (p->n_cells - 1) * p->n_metrics : 0;
}

double sequential_plan_alpha(const struct sequential_plan *p) {
        size_t k = sequential_plan_comparisons(p);
        return (1 - p->level) / (double) (k > 0 ? k : 1);
}

/* a narrowed to b where they overlap; an empty overlap (the data left what the sequence
 * allowed, at most alpha's chance) keeps the newer interval. */
static void intersect(struct sequential_interval *a, const struct sequential_interval *b) {
        if (!a->bounded || MAX(a->low, b->low) > MIN(a->high, b->high)) {
                *a = *b;
                return;
        }
        a->low = MAX(a->low, b->low);
        a->high = MIN(a->high, b->high);
        a->n = b->n;
        a->ratio = b->ratio;
}

void sequential_follow(const double *cell, const double *baseline, size_t rounds, unsigned min_rounds, double alpha,
                       double margin, struct sequential_outcome *ret) {
        struct sequential_sums s = { 0 };
        struct sequential_outcome o = { .decision = SEQUENTIAL_UNDECIDED };
        sequential_interval_of(&s, alpha, &o.interval);
        for (size_t r = 0; r < rounds; r++) {
                if (isfinite(cell[r]) && isfinite(baseline[r]) && cell[r] > 0 && baseline[r] > 0)
                        sequential_add(&s, log(cell[r]) - log(baseline[r]));
                struct sequential_interval now;
                sequential_interval_of(&s, alpha, &now);
                if (now.bounded)
                        intersect(&o.interval, &now);
                else
                        o.interval = now;
                if (o.decision == SEQUENTIAL_UNDECIDED && r + 1 >= min_rounds &&
                    (o.decision = sequential_decide(&o.interval, margin)) != SEQUENTIAL_UNDECIDED)
                        o.round = (unsigned) r + 1;
        }
        *ret = o;
}
