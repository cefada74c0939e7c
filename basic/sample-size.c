/* sample-size.c: iterations per side for a two-sample t test, and their range (see
 * sample-size.h). */
#include "basic/sample-size.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "basic/stats.h"

/* 2 (t(1 - alpha/2, df) + t(power, df))^2 var / delta^2 at df = 2n - 2 (INFINITY: the normal's). */
static double needed_at(double n, double var, double delta, double alpha, double power) {
        double df = isinf(n) ? INFINITY : 2 * n - 2;
        double q = stats_t_quantile(1 - alpha / 2, df) + stats_t_quantile(power, df);
        return 2 * q * q * var / (delta * delta);
}

static bool suffices(double n, double var, double delta, double alpha, double power) {
        return n >= ceil(needed_at(n, var, delta, alpha, power));
}

uint32_t sample_size_per_side(double var, double delta, double alpha, double power) {
        if (!(var >= 0) || !isfinite(var) || !(delta > 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
                return 0;
        /* t quantiles exceed the normal's, so the normal's n does not suffice unless it is the
         * answer; the needed n falls as n grows, so doubling finds an n that suffices and
         * bisection the least */
        double lo = fmax(2, ceil(needed_at(INFINITY, var, delta, alpha, power)));
        if (lo >= SAMPLE_SIZE_MAX)
                return SAMPLE_SIZE_MAX;
        if (suffices(lo, var, delta, alpha, power))
                return (uint32_t) lo;
        double hi = lo;
        do {
                lo = hi;
                hi = fmin(2 * hi, SAMPLE_SIZE_MAX);
        } while (hi < SAMPLE_SIZE_MAX && !suffices(hi, var, delta, alpha, power));
        if (!suffices(hi, var, delta, alpha, power))
                return SAMPLE_SIZE_MAX;
        /* lo does not suffice, hi does */
        while (hi - lo > 1) {
                double mid = floor(lo + (hi - lo) / 2);
                if (suffices(mid, var, delta, alpha, power))
                        hi = mid;
                else
                        lo = mid;
        }
        return (uint32_t) hi;
}

int sample_size_range(double var, double var_df, double delta, double alpha, double power, double confidence,
                      struct sample_size_range *ret) {
        if (!(var_df > 0) || !isfinite(var_df) || !(confidence > 0 && confidence < 1))
                return -EINVAL;
        uint32_t estimate = sample_size_per_side(var, delta, alpha, power);
        if (estimate == 0)
                return -EINVAL;
        double tail = (1 - confidence) / 2;
        double var_low = var_df * var / stats_chi2_quantile(1 - tail, var_df);
        double var_high = var_df * var / stats_chi2_quantile(tail, var_df);
        *ret = (struct sample_size_range){
                .low = sample_size_per_side(var_low, delta, alpha, power),
                .estimate = estimate,
                .high = isfinite(var_high) ? sample_size_per_side(var_high, delta, alpha, power) : SAMPLE_SIZE_MAX,
        };
        return 0;
}
