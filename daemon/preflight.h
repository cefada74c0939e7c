/* preflight.h: the checks a run passes before anything is started: the definition's host
 * requirements (governor, SMT, THP) on the CPUs the run uses, failing or warning per its
 * on_mismatch, and placement warnings (SUT and load sharing CPUs). */
#pragma once

#include <stddef.h>

#include "daemon/run-plan.h"
#include "definition/definition.h"

struct cJSON;

/* Checks the CPUs the run uses (run_plan_cpus()). 0 to go on (warnings appended), or -EPERM
 * with why filled (one line per mismatch). */
int preflight_check(const struct definition *d, const struct run_cpus *cpus, struct cJSON *warnings,
                    char *why, size_t why_size);
