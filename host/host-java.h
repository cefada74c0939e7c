/* host-java.h: which `java` the daemon would run and its version, for GET /v1/host.
 * Running `java -version` costs ~100 ms, so host_java_get() caches the answer and probes again
 * only when the binary on PATH changes (another path, inode, size or mtime). */
#pragma once

#include <limits.h>
#include <stddef.h>

struct host_java {
        char path[PATH_MAX];            /* as found on PATH, e.g. /usr/bin/java */
        char version[64];               /* "17.0.15"; "" when the probe failed */
        char description[256];          /* first line of `java -version` */
};

/* The first executable regular file named "java" in the absolute directories of path_env;
 * relative and empty entries are skipped (the daemon's working directory is no place to pick
 * programs from). -ENOENT when there is none, -ENAMETOOLONG. */
int host_java_find(const char *path_env, char *ret, size_t size);
/* The same for any program name (no '/' in it). */
int host_program_find(const char *name, const char *path_env, char *ret, size_t size);

/* The perf binary that profiles runs (profile.cpu): configured (the daemon's --perf) when not
 * NULL, else "perf" on the daemon's PATH; -ENOENT when it is not an executable regular file. */
int host_perf_find(const char *configured, char *ret, size_t size);
/* What a refusal or a failed preflight tells the user to do. */
#define HOST_PERF_HINT "install Debian's linux-perf (apt-get install linux-perf) or give slicelabd --perf=PATH"

#define HOST_JAVA_PROBE_TIMEOUT_MS 15000

/* Runs `<java> -version` (argv, no shell; stdin /dev/null; default signal mask and
 * dispositions; killed after timeout_ms) and parses its output. Returns 0, -ETIMEDOUT, -EBADMSG (no
 * version in the output), -ECHILD (it failed and printed no version), or the errno of the
 * failing step; *ret untouched on failure. */
int host_java_probe(const char *java, int timeout_ms, struct host_java *ret);

/* host_java_find(getenv("PATH")) then host_java_probe(), cached. Thread-safe (API threads call
 * it). On a failed probe ret->path is still filled and the error returned (also cached). */
int host_java_get(struct host_java *ret);
