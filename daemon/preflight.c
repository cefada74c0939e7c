/* preflight.c: host requirements and placement checks before a run starts. */
#include "daemon/preflight.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "host/host-preflight.h"
#include "basic/macro.h"
#include "basic/timeline-format.h"
#include "daemon/capture.h"
#include "daemon/run-plan.h"

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

/* A regular file; with want_exec, one with an execute bit too. */
static int check_file(const char *path, bool want_exec) {
        struct stat st;
        if (stat(path, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if (want_exec && access(path, X_OK) < 0)
                return negative_errno();
        return 0;
}

/* A bare name is looked up as the spawn will (cgroup/cgroup-spawn.c: the child's PATH). */
static int check_executable(const char *name, char *const *env) {
        if (strchr(name, '/'))
                return check_file(name, true);
        const char *path = NULL;
        for (size_t i = 0; env && env[i]; i++)
                if (strncmp(env[i], "PATH=", 5) == 0)
                        path = env[i] + 5;
        int r = -ENOENT;
        for (const char *p = path ? path : ""; *p;) {
                size_t len = strcspn(p, ":");
                char full[4096];
                if (len > 0 && snprintf(full, sizeof full, "%.*s/%s", (int) len, p, name) < (int) sizeof full) {
                        int k = check_file(full, true);
                        if (k == 0)
                                return 0;
                        if (k != -ENOENT && k != -ENOTDIR)
                                r = k;
                }
                p += len + (p[len] == ':');
        }
        return r;
}

static int jar_check(const struct definition *d, const char *dir, char *why, size_t why_size) {
        for (size_t i = 0; i + 1 < d->sut.n_command; i++) {
                if (strcmp(d->sut.command[i], "-jar") != 0)
                        continue;
                const char *jar = d->sut.command[i + 1];
                char full[4096];
                if (jar[0] != '/' && snprintf(full, sizeof full, "%s/%s", dir, jar) < (int) sizeof full)
                        jar = full;
                int r = check_file(jar, false);
                if (r < 0) {
                        snprintf(why, why_size, "sut.command[%zu]: -jar file %s: %s", i + 1, d->sut.command[i + 1],
                                 strerror(-r));
                        return r;
                }
        }
        return 0;
}

int preflight_commands(const struct definition *d, size_t cell, const char *dir, char *why, size_t why_size) {
        _cleanup_(definition_strv_freep) char **env = NULL;
        int r = run_plan_sut_env(d, cell, dir, &env);
        if (r < 0) {
                snprintf(why, why_size, "cannot build the SUT's environment: %s", strerror(-r));
                return r;
        }
        r = check_executable(d->sut.command[0], env);
        if (r < 0) {
                snprintf(why, why_size, "sut.command[0]: executable %s: %s", d->sut.command[0], strerror(-r));
                return r;
        }
        r = jar_check(d, dir, why, why_size);
        if (r < 0 || d->load.kind != DEFINITION_LOAD_EXTERNAL)
                return r;
        definition_strv_free(TAKE_PTR(env));
        r = run_plan_load_env(&env);
        if (r >= 0)
                r = check_executable(d->load.command[0], env);
        if (r < 0)
                snprintf(why, why_size, "load.command[0]: executable %s: %s", d->load.command[0], strerror(-r));
        return r;
}

/* sut.stdout, sut.stderr, sut.log and load.log, each capped. */
#define CAPTURED_STREAMS 4

uint64_t preflight_disk_need(const struct definition *d) {
        const struct definition_load *l = &d->load;
        uint64_t records = 0;
        if (l->kind == DEFINITION_LOAD_INJECTOR)
                records = l->mode == DEFINITION_MODE_RATE
                                  ? (uint64_t) ceil(l->rate * (double) (l->warmup_s + l->measure_s))
                                  : DEFINITION_REQUESTS_MAX;
        uint64_t gc_log = d->sut.jvm ? (uint64_t) (RUN_GCLOG_FILES + 1) * RUN_GCLOG_FILE_MIB << 20 : 0;
        return records * sizeof(struct timeline_record) * 2 + (uint64_t) CAPTURED_STREAMS * CAPTURE_MAX_BYTES + gc_log;
}

int preflight_disk(const struct definition *d, const char *state_dir, char *why, size_t why_size) {
        struct statvfs st;
        if (statvfs(state_dir, &st) < 0) {
                int r = negative_errno();
                snprintf(why, why_size, "cannot read the free space of the state dir %s: %s", state_dir, strerror(-r));
                return r;
        }
        uint64_t need = preflight_disk_need(d), avail = (uint64_t) st.f_bavail * st.f_frsize;
        if (avail >= need)
                return 0;
        snprintf(why, why_size,
                 "not enough free space in the state dir %s: the run needs up to %llu bytes (its timeline twice, "
                 "%zu bytes a record, %d captured outputs of up to %u bytes, a JVM's GC log of up to %d MiB) and %llu "
                 "are free",
                 state_dir, (unsigned long long) need, sizeof(struct timeline_record), CAPTURED_STREAMS,
                 CAPTURE_MAX_BYTES, (RUN_GCLOG_FILES + 1) * RUN_GCLOG_FILE_MIB, (unsigned long long) avail);
        return -ENOSPC;
}
