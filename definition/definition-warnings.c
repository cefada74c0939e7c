/* definition-warnings.c: what a definition is accepted with but recorded as a warning (definition.h
 * lists them): the injector sharing the SUT's CPUs, a java command without sut.jvm, and the JVM
 * options of a cell that the command overrides or that cannot fit the cell's memory_max. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "definition/definition-internal.h"

static int add_warning(struct definition *d, const char *fmt, ...) _printf_(2, 3);
static int add_warning(struct definition *d, const char *fmt, ...) {
        if (d->n_warnings >= DEFINITION_WARNINGS_MAX)
                return 0;
        char **l = realloc(d->warnings, (d->n_warnings + 2) * sizeof(char *));
        if (!l)
                return -ENOMEM;
        d->warnings = l;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(&l[d->n_warnings], fmt, ap);
        va_end(ap);
        if (r < 0) {
                l[d->n_warnings] = NULL;
                return -ENOMEM;
        }
        l[++d->n_warnings] = NULL;
        return 0;
}

/* The HotSpot option an argument sets ("Xmx", "UseParallelGC", "Dfoo"), or NULL. */
static size_t jvm_option_key(const char *a, const char **ret) {
        if (strncmp(a, "-XX:", 4) == 0) {
                a += 4;
                if (*a == '+' || *a == '-')
                        a++;
                *ret = a;
                return strcspn(a, "=");
        }
        if (strncmp(a, "-Xmx", 4) == 0 || strncmp(a, "-Xms", 4) == 0 || strncmp(a, "-Xss", 4) == 0) {
                *ret = a + 1;
                return 3;
        }
        if (strncmp(a, "-D", 2) == 0) {
                *ret = a + 1;
                return strcspn(a + 1, "=");
        }
        return 0;
}

/* Index of the last JVM option in argv[1..] (before the main class or -jar) setting the same
 * option as opt, or 0. */
static size_t command_sets_jvm_option(char **argv, const char *opt) {
        const char *key, *k2;
        size_t n = jvm_option_key(opt, &key), found = 0;

        if (n == 0)
                return 0;
        for (size_t i = 1; argv[i]; i++) {
                const char *a = argv[i];
                if (a[0] != '-' || strcmp(a, "-jar") == 0 || strcmp(a, "-m") == 0 ||
                    strcmp(a, "--module") == 0)
                        break;
                if (strcmp(a, "-cp") == 0 || strcmp(a, "-classpath") == 0 || strcmp(a, "--class-path") == 0 ||
                    strcmp(a, "-p") == 0 || strcmp(a, "--module-path") == 0) {
                        if (!argv[i + 1])
                                break;
                        i++;
                        continue;
                }
                size_t m = jvm_option_key(a, &k2);
                if (m == n && strncmp(key, k2, n) == 0)
                        found = i;
        }
        return found;
}

/* A cell run without the profiler beside profiled ones differs from them by its cost too:
 * that is what such a cell is for, and a comparison for any other reason should know it. */
static int unprofiled_cells_warning(struct definition *d) {
        size_t profiled = 0;
        for (size_t i = 0; i < d->n_cells; i++)
                profiled += definition_cell_profiled(d, i);
        if (profiled == 0)
                return add_warning(d, "profile.cpu: every cell has profile false, no run is profiled");
        for (size_t i = 0; i < d->n_cells; i++) {
                if (definition_cell_profiled(d, i))
                        continue;
                int r = add_warning(d, "cells[%zu].profile is false: its runs differ from the profiled cells' by "
                                       "profiling's cost too (perf at %u Hz%s)", i, d->profile.hz,
                                    d->sut.jvm ? ", " DEFINITION_PROFILE_JVM_ARG : "");
                if (r < 0)
                        return r;
        }
        return 0;
}

static int jvm_warnings(struct definition *d) {
        int r;
        for (size_t i = 0; i < d->n_cells; i++) {
                const struct definition_cell *c = &d->cells[i];
                for (size_t k = 0; k < c->n_jvm_args; k++) {
                        size_t at = command_sets_jvm_option(d->sut.command, c->jvm_args[k]);
                        if (at == 0)
                                continue;
                        r = add_warning(d,
                                        "cells[%zu].jvm_args[%zu] is overridden by sut.command[%zu] (a later "
                                        "JVM option wins)",
                                        i, k, at);
                        if (r < 0)
                                return r;
                }
                uint64_t mem = definition_cell_memory_max(d, i), xmx = 0;
                _cleanup_(definition_strv_freep) char **argv = NULL;
                if (mem == 0)
                        continue;
                r = definition_cell_argv(d, i, &argv);
                if (r < 0)
                        return r;
                for (size_t k = 1; argv[k] && argv[k][0] == '-' && strcmp(argv[k], "-jar") != 0; k++)
                        if (strncmp(argv[k], "-Xmx", 4) == 0 && def_parse_jvm_size(argv[k] + 4, &xmx) < 0)
                                xmx = 0;
                if (xmx >= mem) {
                        r = add_warning(d,
                                        "cells[%zu]: the JVM heap limit -Xmx (%llu bytes) is not below "
                                        "memory_max (%llu bytes); the SUT will likely be OOM-killed",
                                        i, (unsigned long long) xmx, (unsigned long long) mem);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int def_warnings_collect(struct definition *d) {
        int r;
        if (d->load.has_cpus)
                for (size_t i = 0; i < d->n_cells; i++) {
                        const struct definition_cell *c = &d->cells[i];
                        char l[256] = "", s[256] = "";
                        if (c->has_cpus && !cpulist_intersects(&c->cpus, &d->load.cpus))
                                continue;
                        (void) cpulist_format(&d->load.cpus, l, sizeof l);
                        if (c->has_cpus)
                                (void) cpulist_format(&c->cpus, s, sizeof s);
                        r = c->has_cpus ? add_warning(d,
                                                      "load.cpus %s overlap cells[%zu].cpus %s: the injector "
                                                      "competes with the SUT",
                                                      l, i, s)
                                        : add_warning(d,
                                                      "cells[%zu] has no cpus, so it shares load.cpus %s with "
                                                      "the injector",
                                                      i, l);
                        if (r < 0)
                                return r;
                }
        const char *a0 = d->sut.command[0], *base = strrchr(a0, '/');
        base = base ? base + 1 : a0;
        if (!d->sut.jvm && strcmp(base, "java") == 0) {
                r = add_warning(d, "sut.command runs java but sut.jvm is false: no GC log, flags or JVM metrics");
                if (r < 0)
                        return r;
        }
        if (d->profile.cpu) {
                r = d->sut.jvm ? add_warning(d, "profile.cpu: the SUT's JVM runs with " DEFINITION_PROFILE_JVM_ARG
                                                " (before the cells' jvm_args) so that perf sees whole Java stacks")
                               : add_warning(d, "profile.cpu without sut.jvm: the profile has native frames only "
                                                "(no JIT perf map)");
                if (r < 0)
                        return r;
                r = unprofiled_cells_warning(d);
                if (r < 0)
                        return r;
        }
        return d->sut.jvm ? jvm_warnings(d) : 0;
}
