/* host-preflight.h: checking a definition's "host" requirements (governor, smt, thp) on the
 * CPUs a run will use, before it starts. The result is a list of mismatches, each naming the
 * CPUs and what they had; the daemon decides, per on_mismatch, whether they fail the run or
 * become warnings. A requirement that cannot be verified (cpufreq not exposed, file missing)
 * is a mismatch too: the run would otherwise claim a guarantee nobody checked. */
#pragma once

#include <cjson/cJSON.h>

#include "basic/cpulist.h"

enum host_smt_want { HOST_SMT_ANY, HOST_SMT_ON, HOST_SMT_OFF };
enum host_thp_want { HOST_THP_ANY, HOST_THP_ALWAYS, HOST_THP_MADVISE, HOST_THP_NEVER };

struct host_requirements {
        const char *governor;   /* NULL: any; else governor_name_valid() (basic/governor.h) */
        enum host_smt_want smt;
        enum host_thp_want thp;
};

/* Appends one sentence per mismatch to `mismatches` (a cJSON array), e.g.
 * "cpus 8-15: governor is powersave, wanted performance". Returns the number appended (0: the
 * host fits), -EINVAL for an invalid requirement or empty cpus, -ENOMEM. SMT is judged on the
 * run's CPUs: "on" when one of them has an online thread sibling (so offlining the siblings
 * satisfies "off"). THP is host-wide. */
int host_preflight(const char *root, const struct host_requirements *req, const struct cpulist *cpus,
                   cJSON *mismatches);
