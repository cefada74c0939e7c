/* definition-policy.c: the administrator's limits on what a definition may run. The SUT runs as
 * an unprivileged user, but a JVM option can still make it run another program (-XX:OnError),
 * load native code (-agentpath), take options from a file the definition's author does not show
 * (@argfile, -XX:Flags) or write wherever that user can (-Xlog:...:file=/x): those are refused
 * unless --allow-jvm-option names them. Files inside the run directory (the SUT's working
 * directory: a relative path without "..") are fine. Load hosts must match --peer-allow. */
#include "definition/definition-policy.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/host-pattern.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "definition/definition.h"

/* Options with a file name as their value: refused when it leaves the run directory. Diagnostic
 * logging (-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation, +LogVMOutput, +PrintAssembly)
 * writes to -XX:LogFile or the working directory, so checking LogFile covers it. */
static const char *const path_options[] = {
        "-XX:HeapDumpPath=",  "-XX:ErrorFile=",         "-XX:LogFile=",            "-XX:PerfDataSaveFile=",
        "-XX:ReplayDataFile=", "-XX:InlineDataFile=",   "-XX:DumpLoadedClassList=", "-XX:ArchiveClassesAtExit=",
        "-Xloggc:",
};

static const struct {
        const char *prefix;
        const char *why;
} refused_options[] = {
        { "-XX:OnError=", "runs a command" },
        { "-XX:OnOutOfMemoryError=", "runs a command" },
        { "-agentpath:", "loads a native agent" },
        { "-agentlib:", "loads a native agent" },
        { "-javaagent:", "loads a Java agent" },
        { "-Xrun", "loads a native agent" },
        { "-XX:Flags=", "reads JVM options from a file" },
        { "-XX:VMOptionsFile=", "reads JVM options from a file" },
        { "@", "reads JVM options from a file (@argfile)" },
        { "-Xshare:dump", "writes the JDK's class data archive" },
};

static bool starts_with(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A relative path with no ".." component stays in the working directory, the run directory. */
static bool path_inside(const char *p, size_t len) {
        if (len == 0 || p[0] == '/')
                return false;
        for (size_t i = 0; i < len;) {
                size_t j = i;
                while (j < len && p[j] != '/')
                        j++;
                if (j - i == 2 && p[i] == '.' && p[i + 1] == '.')
                        return false;
                i = j + 1;
        }
        return true;
}

/* -Xlog[:what[:output[:decorators[:options]]]]: the output is stdout, stderr, #N or a file
 * (file=NAME, or a bare NAME), possibly in double quotes. */
static bool xlog_file_inside(const char *opt) {
        const char *p = opt + strlen("-Xlog");
        if (*p != ':')
                return true;
        p++;
        bool quoted = false;
        while (*p && (quoted || *p != ':')) /* skip the selection */
                quoted ^= *p++ == '"';
        if (*p != ':')
                return true;
        const char *out = ++p;
        while (*p && (quoted || *p != ':'))
                quoted ^= *p++ == '"';
        size_t len = (size_t) (p - out);
        if (len == 0 || (len == 6 && (strncmp(out, "stdout", 6) == 0 || strncmp(out, "stderr", 6) == 0)) || out[0] == '#')
                return true;
        if (len >= 5 && strncmp(out, "file=", 5) == 0)
                out += 5, len -= 5;
        if (len >= 2 && out[0] == '"' && out[len - 1] == '"')
                out++, len -= 2;
        return path_inside(out, len);
}

/* -XX:StartFlightRecording[=:]k=v,... and -XX:FlightRecorderOptions[=:]k=v,...: the keys that
 * name files. */
static bool jfr_files_inside(const char *opt) {
        const char *p = strpbrk(opt + 4, "=:");
        if (!p)
                return true;
        for (p++; *p;) {
                size_t len = strcspn(p, ",");
                static const char *const keys[] = { "filename=", "repository=", "dumppath=" };
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        size_t kl = strlen(keys[k]);
                        if (len >= kl && strncmp(p, keys[k], kl) == 0 && !path_inside(p + kl, len - kl))
                                return false;
                }
                p += len;
                if (*p == ',')
                        p++;
        }
        return true;
}

static bool allowed_by(const char *opt, const struct definition_policy *p) {
        for (size_t i = 0; p && i < p->n_allow_jvm_option; i++)
                if (starts_with(opt, p->allow_jvm_option[i]))
                        return true;
        return false;
}

const char *definition_policy_jvm_option_refused(const char *opt, const struct definition_policy *p) {
        const char *why = NULL;
        for (size_t i = 0; !why && i < ELEMENTSOF(refused_options); i++)
                if (starts_with(opt, refused_options[i].prefix))
                        why = refused_options[i].why;
        for (size_t i = 0; !why && i < ELEMENTSOF(path_options); i++) {
                size_t n = strlen(path_options[i]);
                if (strncmp(opt, path_options[i], n) == 0 && !path_inside(opt + n, strlen(opt + n)))
                        why = "writes a file outside the run directory";
        }
        if (!why && starts_with(opt, "-Xlog:") && !xlog_file_inside(opt))
                why = "writes a log file outside the run directory";
        if (!why && (starts_with(opt, "-XX:StartFlightRecording") || starts_with(opt, "-XX:FlightRecorderOptions")) &&
            !jfr_files_inside(opt))
                why = "writes a recording outside the run directory";
        return why && !allowed_by(opt, p) ? why : NULL;
}

static int refuse_option(const char *field, const char *opt, const char *why, struct error *err) {
        return error_set(err, 400, "not_allowed", field,
                         "the JVM option '%.*s' %s; this daemon allows it only with --allow-jvm-option",
                         UTF8_PREFIX(opt, 200), why);
}

/* JVM options end at -jar, a module or the main class; these take their value as the next
 * argument. */
static bool takes_value(const char *a) {
        static const char *const with_value[] = { "-cp", "-classpath", "--class-path", "-p", "--module-path",
                                                  "--upgrade-module-path", "--add-modules", "--limit-modules",
                                                  "--add-reads", "--add-exports", "--add-opens", "--patch-module" };
        for (size_t i = 0; i < ELEMENTSOF(with_value); i++)
                if (strcmp(a, with_value[i]) == 0)
                        return true;
        return false;
}

static int check_command_options(const struct definition *d, const struct definition_policy *p, struct error *err) {
        char **argv = d->sut.command;
        const char *base = strrchr(argv[0], '/');
        base = base ? base + 1 : argv[0];
        if (!d->sut.jvm && strcmp(base, "java") != 0)
                return 0;
        for (size_t i = 1; argv[i]; i++) {
                const char *a = argv[i];
                if ((a[0] != '-' && a[0] != '@') || strcmp(a, "-jar") == 0 || strcmp(a, "-m") == 0 ||
                    strcmp(a, "--module") == 0)
                        break;
                const char *why = definition_policy_jvm_option_refused(a, p);
                if (why) {
                        char field[32];
                        snprintf(field, sizeof field, "sut.command[%zu]", i);
                        return refuse_option(field, a, why, err);
                }
                if (takes_value(a) && argv[i + 1])
                        i++;
        }
        return 0;
}

/* The launcher reads more options from these variables. */
static int check_env(const struct definition_kv *env, const char *path, const struct definition_policy *p,
                     struct error *err) {
        static const char *const java_vars[] = { "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS" };
        for (size_t i = 0; i < env->n; i++) {
                bool is_java = false;
                for (size_t k = 0; k < ELEMENTSOF(java_vars); k++)
                        is_java |= strcmp(env->keys[i], java_vars[k]) == 0;
                if (!is_java)
                        continue;
                _cleanup_free_ char *copy = strdup(env->values[i]);
                if (!copy)
                        return error_set(err, 500, "internal", path, "out of memory");
                char *save = NULL;
                for (char *tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
                        const char *why = definition_policy_jvm_option_refused(tok, p);
                        if (why) {
                                char field[128];
                                snprintf(field, sizeof field, "%s.%s", path, env->keys[i]);
                                return refuse_option(field, tok, why, err);
                        }
                }
        }
        return 0;
}

static int check_exec(char **command, const char *field, const struct definition_policy *p, struct error *err) {
        if (!p || p->n_allow_exec == 0)
                return 0;
        char real[PATH_MAX];
        const char *resolved = command[0][0] == '/' && realpath(command[0], real) ? real : command[0];
        for (size_t i = 0; i < p->n_allow_exec; i++)
                if (strcmp(command[0], p->allow_exec[i]) == 0 || strcmp(resolved, p->allow_exec[i]) == 0)
                        return 0;
        return error_set(err, 400, "not_allowed", field,
                         "'%.*s' is not among the executables this daemon allows (--allow-exec; %zu allowed, "
                         "named by absolute path)", UTF8_PREFIX(command[0], 200), p->n_allow_exec);
}

/* Unlike --allow-exec, no pattern allows no host: a peer is reached with this daemon's token. */
static int check_peers(const struct definition_load *l, const struct definition_policy *p, struct error *err) {
        for (size_t i = 0; i < l->n_hosts; i++) {
                if (p && host_patterns_match(p->peer_allow, p->n_peer_allow, l->hosts[i].host))
                        continue;
                char field[64];
                snprintf(field, sizeof field, "load.hosts[%zu].host", i);
                return error_set(err, 400, "not_allowed", field,
                                 "'%s' is not a load host this daemon allows (--peer-allow; %zu patterns)",
                                 l->hosts[i].host, p ? p->n_peer_allow : 0);
        }
        return 0;
}

int definition_policy_check(const struct definition *d, const struct definition_policy *p, struct error *err) {
        int r = check_exec(d->sut.command, "sut.command[0]", p, err);
        if (r >= 0)
                r = check_peers(&d->load, p, err);
        if (r >= 0 && d->load.kind == DEFINITION_LOAD_EXTERNAL)
                r = check_exec(d->load.command, "load.command[0]", p, err);
        if (r >= 0)
                r = check_command_options(d, p, err);
        if (r >= 0)
                r = check_env(&d->sut.env, "sut.env", p, err);
        for (size_t i = 0; r >= 0 && i < d->n_cells; i++) {
                const struct definition_cell *c = &d->cells[i];
                char path[64];
                for (size_t k = 0; r >= 0 && k < c->n_jvm_args; k++) {
                        const char *why = definition_policy_jvm_option_refused(c->jvm_args[k], p);
                        if (why) {
                                snprintf(path, sizeof path, "cells[%zu].jvm_args[%zu]", i, k);
                                r = refuse_option(path, c->jvm_args[k], why, err);
                        }
                }
                snprintf(path, sizeof path, "cells[%zu].env", i);
                if (r >= 0)
                        r = check_env(&c->env, path, p, err);
        }
        return r;
}
