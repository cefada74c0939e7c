/* host-preflight.c: governor, SMT and THP requirements checked against sysfs. */
#include "host/host-preflight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-cpufreq.h"
#include "host/host-format.h"
#include "host/host-sysfs.h"
#include "basic/governor.h"
#include "basic/json-util.h"
#include "basic/macro.h"

static const char *const smt_names[] = { [HOST_SMT_ON] = "on", [HOST_SMT_OFF] = "off" };
static const char *const thp_names[] = {
        [HOST_THP_ALWAYS] = "always", [HOST_THP_MADVISE] = "madvise", [HOST_THP_NEVER] = "never",
};

/* What one CPU had: a value (governor name, "on"/"off") or "" with a reason. */
struct cpu_fact {
        unsigned cpu;
        char value[HOST_CPUFREQ_NAME_MAX];
        char detail[256];                       /* evidence shown with a mismatch */
        char reason[HOST_REASON_MAX];           /* when value is "" */
};

typedef void (*fact_reader)(const char *root, struct cpu_fact *f);

static void read_governor(const char *root, struct cpu_fact *f) {
        struct host_cpufreq freq;
        if (host_cpufreq_read(root, f->cpu, &freq) < 0) {
                snprintf(f->reason, sizeof f->reason, "sysfs path too long");
                return;
        }
        memcpy(f->value, freq.governor, sizeof f->value);
        if (!f->value[0])
                memcpy(f->reason, freq.reason, sizeof f->reason);
}

static void read_smt(const char *root, struct cpu_fact *f) {
        struct cpulist siblings;
        int r = host_read_cpulist(root, &siblings, "/sys/devices/system/cpu/cpu%u/topology/thread_siblings_list",
                                  f->cpu);
        if (r < 0) {
                snprintf(f->reason, sizeof f->reason, "cannot read cpu%u topology/thread_siblings_list: %s",
                         f->cpu, strerror(-r));
                return;
        }
        bool on = cpulist_count(&siblings) > 1;
        snprintf(f->value, sizeof f->value, "%s", on ? "on" : "off");
        if (on) {
                char list[sizeof f->detail - 64];
                if (cpulist_format(&siblings, list, sizeof list) < 0)
                        snprintf(list, sizeof list, "many");
                snprintf(f->detail, sizeof f->detail, " (thread siblings of cpu %u: %s)", f->cpu, list);
                return;
        }
        char control[32];
        if (host_read_line(root, control, sizeof control, "/sys/devices/system/cpu/smt/control") >= 0)
                snprintf(f->detail, sizeof f->detail, " (no online thread sibling; smt/control is %s)", control);
        else
                snprintf(f->detail, sizeof f->detail, " (no online thread sibling)");
}

/* Reads one fact per CPU of cpus and appends a mismatch per group of CPUs that had the same
 * value (or the same missing value) when it differs from wanted. */
static int check_cpus(const char *root, const struct cpulist *cpus, const char *what, const char *wanted,
                      fact_reader read, cJSON *mismatches) {
        size_t n = cpulist_count(cpus), i = 0;
        _cleanup_free_ struct cpu_fact *facts = calloc(n, sizeof *facts);
        if (!facts)
                return -ENOMEM;
        for (int cpu = cpulist_next(cpus, -1); cpu >= 0; cpu = cpulist_next(cpus, cpu), i++) {
                facts[i].cpu = (unsigned) cpu;
                read(root, &facts[i]);
        }
        struct cpulist done = { 0 };
        int count = 0;
        for (i = 0; i < n; i++) {
                const struct cpu_fact *f = &facts[i];
                if (cpulist_test(&done, f->cpu) || strcmp(f->value, wanted) == 0)
                        continue;
                struct cpulist group = { 0 };
                for (size_t j = i; j < n; j++)
                        if (strcmp(facts[j].value, f->value) == 0)
                                cpulist_set(&group, facts[j].cpu);
                cpulist_union(&done, &group);
                char which[HOST_CPUS_TEXT_MAX];
                int r = host_format_cpus(&group, which, sizeof which);
                if (r < 0)
                        return r;
                if (f->value[0])
                        json_append_printf(mismatches, "%s: %s is %s%s, wanted %s", which, what, f->value,
                                           f->detail, wanted);
                else
                        json_append_printf(mismatches, "%s: %s unknown, wanted %s: %s", which, what, wanted,
                                           f->reason);
                count++;
        }
        return count;
}

/* The number of mismatches appended: 0 or 1. */
static int check_thp(const char *root, enum host_thp_want want, cJSON *mismatches) {
        const char *file = "/sys/kernel/mm/transparent_hugepage/enabled";
        const char *wanted = thp_names[want];
        char line[128], value[32];
        int r = host_read_line(root, line, sizeof line, "%s", file);
        if (r >= 0)
                r = host_parse_bracketed(line, value, sizeof value);
        if (r < 0)
                json_append_printf(mismatches, "thp unknown, wanted %s: cannot read %s: %s", wanted, file,
                                   strerror(-r));
        else if (strcmp(value, wanted) != 0)
                json_append_printf(mismatches, "thp is %s (transparent_hugepage/enabled), wanted %s", value,
                                   wanted);
        else
                return 0;
        return 1;
}

int host_preflight(const char *root, const struct host_requirements *req, const struct cpulist *cpus,
                   cJSON *mismatches) {
        if (cpulist_count(cpus) == 0 || (req->governor && !governor_name_valid(req->governor)) ||
            (unsigned) req->smt >= ELEMENTSOF(smt_names) || (unsigned) req->thp >= ELEMENTSOF(thp_names))
                return -EINVAL;
        int count = 0, r;
        if (req->governor) {
                if ((r = check_cpus(root, cpus, "governor", req->governor, read_governor, mismatches)) < 0)
                        return r;
                count += r;
        }
        if (req->smt != HOST_SMT_ANY) {
                if ((r = check_cpus(root, cpus, "smt", smt_names[req->smt], read_smt, mismatches)) < 0)
                        return r;
                count += r;
        }
        if (req->thp != HOST_THP_ANY)
                count += check_thp(root, req->thp, mismatches);
        return count;
}
