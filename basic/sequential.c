/* sequential.c: Lai's confidence sequence over a comparison's log ratios, and the decision it
 * supports (see sequential.h for the construction). */
#include "basic/sequential.h"

#include <math.h>

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
