/* preflight.c: host requirements and placement checks before a run starts. */
#include "daemon/preflight.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "host/host-preflight.h"
#include "basic/macro.h"

static void join_lines(const cJSON *items, char *buf, size_t size) {
        size_t len = 0;
        const cJSON *it;
        buf[0] = '\0';
        cJSON_ArrayForEach(it, items) {
                int n = snprintf(buf + len, size - len, "%s%s", len ? "\n" : "", cJSON_GetStringValue(it));
                if (n < 0 || (size_t) n >= size - len)
                        break;
                len += (size_t) n;
        }
}

/* Only a load with a cpuset of its own is placed; one without shares every CPU by design. */
static void warn_shared_cpus(const struct definition *d, const struct run_cpus *cpus, cJSON *warnings) {
        if (!d->load.has_cpus || !cpulist_intersects(&cpus->sut, &cpus->load))
                return;
        char a[256], b[256], msg[600];
        cpulist_format(&cpus->sut, a, sizeof a);
        cpulist_format(&cpus->load, b, sizeof b);
        snprintf(msg, sizeof msg, "SUT (cpus %s) and load (cpus %s) share CPUs: the injector competes with the server", a, b);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
}

int preflight_check(const struct definition *d, const struct run_cpus *cpus, cJSON *warnings, char *why,
                    size_t why_size) {
        warn_shared_cpus(d, cpus, warnings);
        const struct definition_host_checks *h = &d->host;
        struct host_requirements req = {
                .governor = h->governor,
                .smt = h->smt == DEFINITION_SMT_ON ? HOST_SMT_ON : h->smt == DEFINITION_SMT_OFF ? HOST_SMT_OFF : HOST_SMT_ANY,
                .thp = h->thp == DEFINITION_THP_ALWAYS    ? HOST_THP_ALWAYS
                       : h->thp == DEFINITION_THP_MADVISE ? HOST_THP_MADVISE
                       : h->thp == DEFINITION_THP_NEVER   ? HOST_THP_NEVER
                                                          : HOST_THP_ANY,
        };
        if (!req.governor && req.smt == HOST_SMT_ANY && req.thp == HOST_THP_ANY)
                return 0;
        cJSON *mismatches = cJSON_CreateArray();
        if (!mismatches)
                return -ENOMEM;
        int n = host_preflight("", &req, &cpus->all, mismatches);
        if (n < 0) {
                cJSON_Delete(mismatches);
                snprintf(why, why_size, "cannot check the host requirements: %s", strerror(-n));
                return -EPERM;
        }
        if (n > 0 && h->on_mismatch == DEFINITION_ON_MISMATCH_FAIL) {
                join_lines(mismatches, why, why_size);
                cJSON_Delete(mismatches);
                return -EPERM;
        }
        cJSON *it;
        cJSON_ArrayForEach(it, mismatches) cJSON_AddItemToArray(warnings, cJSON_CreateString(cJSON_GetStringValue(it)));
        cJSON_Delete(mismatches);
        return 0;
}
