/* sample-size.h: how many iterations per cell would decide a difference of a given size: the
 * two-sample t test's sample size for a level and a power, and the range of it that the
 * uncertainty of the variance (estimated from the few iterations at hand) allows. */
#pragma once

#include <stdint.h>

/* Iterations per side for a two-sided test at level alpha with power power (e.g. 0.8) to detect
 * a difference delta > 0 between the means of two sides of values with variance var: the least n
 * with n >= 2 (t(1 - alpha/2, 2n - 2) + t(power, 2n - 2))^2 var / delta^2 (the normal
 * approximation with t quantiles, within one of the exact noncentral-t answer in the tests), at
 * least 2 and at most SAMPLE_SIZE_MAX. 0 for arguments out of range. */
#define SAMPLE_SIZE_MAX UINT32_C(1000000)
uint32_t sample_size_per_side(double var, double delta, double alpha, double power);

struct sample_size_range {
        uint32_t low, estimate, high;
};

/* The estimate at var, and the ends at the ends of var's two-sided confidence interval when var
 * was estimated with var_df degrees of freedom (chi-square: var_df var / chi2(1 - a/2, var_df) to
 * var_df var / chi2(a/2, var_df), a = 1 - confidence). -EINVAL for arguments out of range; *ret
 * untouched on failure. */
int sample_size_range(double var, double var_df, double delta, double alpha, double power, double confidence,
                      struct sample_size_range *ret);
