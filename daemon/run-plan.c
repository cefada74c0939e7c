/* run-plan.c: a run's limits, CPUs, argv and environment from its definition (run-plan.h). */
#include "daemon/run-plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"

#define RUN_PIDS_MAX 32768
/* The load slice's memory: an injector keeps its timeline on disk, not in memory, and an
 * external load that grows without bound must not take the host's memory with it. */
#define RUN_LOAD_MEMORY_MAX (UINT64_C(1) << 30)
#define DEADLINE_GRACE_MIN_S 30
#define NO_LOAD_DEADLINE_S (24 * 3600)

static const char child_path[] = "/usr/local/bin:/usr/bin:/bin";
static const char child_lang[] = "C.UTF-8";

void run_plan_limits(const struct definition *d, size_t cell, struct slice_limits *sut,
                     struct slice_limits *load) {
        const struct definition_cell *c = &d->cells[cell];
        *sut = (struct slice_limits){
                .cpus = c->has_cpus ? c->cpus : (struct cpulist){ .bits = { 0 } },
                .mems = c->mems,
                .has_mems = c->has_mems,
                .cpu_quota_us = c->has_quota ? c->cpu_quota_us : 0,
                .cpu_period_us = c->cpu_period_us,
                .cpu_burst_us = c->cpu_burst_us,
                .memory_max = definition_cell_memory_max(d, cell),
                .pids_max = RUN_PIDS_MAX,
        };
        *load = (struct slice_limits){
                .cpus = d->load.has_cpus ? d->load.cpus : (struct cpulist){ .bits = { 0 } },
                .memory_max = RUN_LOAD_MEMORY_MAX,
                .pids_max = RUN_PIDS_MAX,
        };
}

void run_plan_cpus(const struct definition *d, size_t cell, const struct cpulist *online,
                   struct run_cpus *ret) {
        struct slice_limits sut, load;
        run_plan_limits(d, cell, &sut, &load);
        /* an empty cpuset is the slice_limits' "every CPU of the root" */
        struct run_cpus c = {
                .sut = cpulist_count(&sut.cpus) ? sut.cpus : *online,
        };
        if (d->load.kind != DEFINITION_LOAD_NONE)
                c.load = cpulist_count(&load.cpus) ? load.cpus : *online;
        c.all = c.sut;
        cpulist_union(&c.all, &c.load);
        *ret = c;
}

/* ---- string lists ------------------------------------------------------------------------- */

/* A NULL-terminated list grown one formatted entry at a time. The first failure sticks and
 * later additions are skipped, so a builder checks once, in strv_finish(). */
struct strv {
        char **v;
        size_t n;
        int error;
};

static void strv_done(struct strv *l) {
        definition_strv_free(l->v);
}

static void strv_addv(struct strv *l, const char *fmt, va_list ap) {
        if (l->error < 0)
                return;
        char **v = realloc(l->v, (l->n + 2) * sizeof *v);
        if (!v) {
                l->error = -ENOMEM;
                return;
        }
        l->v = v;
        if (vasprintf(&v[l->n], fmt, ap) < 0) {
                v[l->n] = NULL;
                l->error = -ENOMEM;
                return;
        }
        v[++l->n] = NULL;
}

static void strv_addf(struct strv *l, const char *fmt, ...) _printf_(2, 3);
static void strv_addf(struct strv *l, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        strv_addv(l, fmt, ap);
        va_end(ap);
}

/* An option and its value, as two arguments. */
static void strv_add_option(struct strv *l, const char *option, const char *fmt, ...) _printf_(3, 4);
static void strv_add_option(struct strv *l, const char *option, const char *fmt, ...) {
        va_list ap;
        strv_addf(l, "%s", option);
        va_start(ap, fmt);
        strv_addv(l, fmt, ap);
        va_end(ap);
}

static void strv_add_all(struct strv *l, char *const *items) {
        for (size_t i = 0; items && items[i]; i++)
                strv_addf(l, "%s", items[i]);
}

static int strv_finish(struct strv *l, char ***ret) {
        if (l->error < 0)
                return l->error;
        if (!l->v && !(l->v = calloc(1, sizeof *l->v)))
                return -ENOMEM;
        *ret = TAKE_PTR(l->v);
        return 0;
}

/* ---- the SUT ------------------------------------------------------------------------------ */

int run_plan_sut_argv(const struct definition *d, size_t cell, const char *dir, char ***ret) {
        _cleanup_(definition_strv_freep) char **base = NULL;
        int k = definition_cell_argv(d, cell, &base);
        if (k < 0)
                return k;
        _cleanup_(strv_done) struct strv argv = { 0 };
        strv_addf(&argv, "%s", base[0]);
        if (d->sut.jvm) {
                strv_addf(&argv, "-XX:+PrintFlagsFinal");
                strv_addf(&argv, "-Xlog:gc*,safepoint:file=%s/gc.log:uptimenanos,timenanos,level,tags:filecount=%d,filesize=%dm",
                          dir, RUN_GCLOG_FILES, RUN_GCLOG_FILE_MIB);
                strv_addf(&argv, "-XX:+PerfDataSaveToFile");
                strv_addf(&argv, "-XX:PerfDataSaveFile=%s/hsperfdata", dir);
        }
        strv_add_all(&argv, base + 1);
        return strv_finish(&argv, ret);
}

static bool env_sets(char *const *env, const char *key) {
        size_t len = strlen(key);
        for (size_t i = 0; env && env[i]; i++)
                if (strncmp(env[i], key, len) == 0 && env[i][len] == '=')
                        return true;
        return false;
}

static void env_add_default(struct strv *l, char *const *given, const char *key, const char *value) {
        if (!env_sets(given, key))
                strv_addf(l, "%s=%s", key, value);
}

/* What every child gets unless its definition says otherwise; home NULL = no HOME. */
static void env_add_base(struct strv *l, char *const *given, const char *home) {
        env_add_default(l, given, "PATH", child_path);
        if (home)
                env_add_default(l, given, "HOME", home);
        env_add_default(l, given, "LANG", child_lang);
}

int run_plan_sut_env(const struct definition *d, size_t cell, const char *dir, char ***ret) {
        _cleanup_(definition_strv_freep) char **given = NULL;
        int k = definition_cell_env(d, cell, &given);
        if (k < 0)
                return k;
        _cleanup_(strv_done) struct strv env = { 0 };
        strv_add_all(&env, given);
        env_add_base(&env, given, dir);
        return strv_finish(&env, ret);
}

/* ---- the load ----------------------------------------------------------------------------- */

/* step < 0: the run's one load (timeline.bin, summary.json); else a capacity step at rate
 * (timeline-step-N.bin, summary-step-N.json). */
static void add_injector_argv(struct strv *argv, const struct definition_load *l, const char *dir,
                              const char *injector_path, int step, double rate) {
        char url[DEFINITION_URL_MAX + 64], suffix[32] = "";
        def_format_url(url, sizeof url, &l->target);
        if (step >= 0)
                snprintf(suffix, sizeof suffix, "-step-%d", step);
        strv_addf(argv, "%s", injector_path);
        strv_add_option(argv, "--url", "%s", url);
        if (l->mode == DEFINITION_MODE_MAX)
                strv_add_option(argv, "--mode", "max");
        else {
                strv_add_option(argv, "--rate", "%.6g", rate);
                strv_add_option(argv, "--arrival", "%s", l->arrival == DEFINITION_ARRIVAL_POISSON ? "poisson" : "uniform");
        }
        strv_add_option(argv, "--connections", "%u", l->connections);
        /* step 0 of a capacity search also warms for the search (search_warmup_s) */
        strv_add_option(argv, "--warmup", "%us", l->warmup_s + (step == 0 ? l->search_warmup_s : 0));
        /* auto: the daemon ends the warmup (SIGUSR1) once the run is steady; warmup_s bounds it */
        if (l->warmup_auto)
                strv_addf(argv, "%s", "--warmup-until-signal");
        strv_add_option(argv, "--duration", "%us", l->measure_s);
        strv_add_option(argv, "--timeout", "%ums", l->timeout_ms);
        strv_add_option(argv, "--timeline", "%s/timeline%s.bin", dir, suffix);
        strv_add_option(argv, "--summary", "%s/summary%s.json", dir, suffix);
}

int run_plan_load_argv(const struct definition *d, const char *dir, const char *injector_path,
                       char ***ret) {
        _cleanup_(strv_done) struct strv argv = { 0 };
        if (d->load.kind == DEFINITION_LOAD_INJECTOR && d->load.mode != DEFINITION_MODE_CAPACITY)
                add_injector_argv(&argv, &d->load, dir, injector_path, -1, d->load.rate);
        else if (d->load.kind == DEFINITION_LOAD_EXTERNAL)
                strv_add_all(&argv, d->load.command);
        else
                return -EINVAL;
        return strv_finish(&argv, ret);
}

int run_plan_peer_load_argv(const struct definition *d, const char *dir, const char *injector_path,
                            const struct run_plan_peer *peer, char ***ret) {
        _cleanup_(strv_done) struct strv argv = { 0 };
        if (d->load.kind != DEFINITION_LOAD_INJECTOR || d->load.mode == DEFINITION_MODE_CAPACITY)
                return -EINVAL;
        add_injector_argv(&argv, &d->load, dir, injector_path, -1, d->load.rate);
        strv_add_option(&argv, "--start-at", "%lld", (long long) peer->start_at_ns);
        if (d->load.mode == DEFINITION_MODE_RATE) {
                strv_add_option(&argv, "--seed", "%llu", (unsigned long long) peer->seed);
                if (peer->phase_ns > 0)
                        strv_add_option(&argv, "--phase", "%lld", (long long) peer->phase_ns);
        }
        return strv_finish(&argv, ret);
}

int run_plan_step_argv(const struct definition *d, const char *dir, const char *injector_path, unsigned step,
                       double rate, char ***ret) {
        _cleanup_(strv_done) struct strv argv = { 0 };
        if (d->load.kind != DEFINITION_LOAD_INJECTOR || d->load.mode != DEFINITION_MODE_CAPACITY)
                return -EINVAL;
        add_injector_argv(&argv, &d->load, dir, injector_path, (int) step, rate);
        return strv_finish(&argv, ret);
}

int run_plan_load_env(char ***ret) {
        _cleanup_(strv_done) struct strv env = { 0 };
        env_add_base(&env, NULL, NULL);
        return strv_finish(&env, ret);
}

uint64_t run_plan_deadline_s(const struct definition *d) {
        const struct definition_load *l = &d->load;
        if (l->kind == DEFINITION_LOAD_EXTERNAL)
                return l->timeout_s;
        if (l->kind != DEFINITION_LOAD_INJECTOR)
                return NO_LOAD_DEADLINE_S;
        /* a capacity step's, with the search's warmup: step 0's is longer, the others' a bound */
        uint64_t phases = (uint64_t) l->warmup_s + l->measure_s + l->search_warmup_s;
        /* load hosts: each peer's clock, start and fetch are calls of up to 10 s (peer/) */
        return phases + MAX(DEADLINE_GRACE_MIN_S, phases / 4) + 10 * l->n_hosts;
}
