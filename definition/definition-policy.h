/* definition-policy.h: what this daemon's administrator allows a definition to run, beyond its
 * syntax: the executables (--allow-exec) and the JVM options that run commands, load agents,
 * read options from files or write files outside the run directory (--allow-jvm-option). */
#pragma once

#include <stddef.h>

#include "basic/error.h"

struct definition;

struct definition_policy {
        char **allow_exec;              /* canonical absolute paths; n_allow_exec 0 = any executable */
        size_t n_allow_exec;
        char **allow_jvm_option;        /* an option beginning with one of these is allowed */
        size_t n_allow_jvm_option;
        char **peer_allow;              /* fnmatch(3) patterns of load hosts (--peer-allow); none = no host */
        size_t n_peer_allow;
};

/* 0 when d keeps to p; else -EINVAL with err (400, code "not_allowed") naming the field:
 * sut.command[N], load.command[0], cells[N].jvm_args[K], sut.env.KEY, cells[N].env.KEY or
 * load.hosts[N].host (a host no --peer-allow pattern matches). */
int definition_policy_check(const struct definition *d, const struct definition_policy *p, struct error *err);

/* Why the JVM option (one argv element) is refused under p, or NULL when it is fine. */
const char *definition_policy_jvm_option_refused(const char *opt, const struct definition_policy *p);
