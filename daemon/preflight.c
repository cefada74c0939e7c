/* preflight.c: host requirements and placement checks before a run starts. */
#include "daemon/preflight.h"

#include <cJSON.h>
#include <stdio.h>
#include <string.h>

#include "host/host-preflight.h"
#include "basic/macro.h"

static void sut_cpus(const struct definition *d, size_t cell, struct cpulist *ret) {
        if (d->cells[cell].has_cpus)
                *ret = d->cells[cell].cpus;
        else if (cpulist_read_file("/sys/devices/system/cpu/online", ret) < 0)
                *ret = (struct cpulist){ .bits = { 0 } };
}

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

int preflight_check(const struct definition *d, size_t cell, cJSON *warnings, char *why, size_t why_size) {
        struct cpulist cpus;
        sut_cpus(d, cell, &cpus);
        if (d->load.kind != DEFINITION_LOAD_NONE && d->load.has_cpus) {
                if (cpulist_intersects(&cpus, &d->load.cpus)) {
                        char a[256], b[256];
                        cpulist_format(&cpus, a, sizeof a);
                        cpulist_format(&d->load.cpus, b, sizeof b);
                        char msg[600];
                        snprintf(msg, sizeof msg, "SUT (cpus %s) and load (cpus %s) share CPUs: the injector competes with the server", a, b);
                        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
                }
                cpulist_union(&cpus, &d->load.cpus);
        }
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
        int n = host_preflight("", &req, &cpus, mismatches);
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
