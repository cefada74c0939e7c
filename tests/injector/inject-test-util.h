/* inject-test-util.h: what the injector's run tests share: starting real processes (the
 * injector, the test server, the JVM) with their stdout on a pipe, waiting for a line they print
 * (the event to synchronise on), loading and checking timeline files and summaries. Failures
 * are cmocka assertions. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "basic/timeline-format.h"

struct proc {
        pid_t pid;
        int out;                /* its stdout, or -1 */
};

/* argv[0] is a path. Its stdout goes to a pipe when capture, else to /dev/null; stderr is ours. */
void proc_spawn(struct proc *p, char *const argv[], bool capture);
/* Read one line of its stdout (without the newline) within timeout_ms; false on EOF/timeout. */
bool proc_read_line(struct proc *p, char *buf, size_t size, int timeout_ms);
/* Wait for the exit within timeout_ms (SIGKILL after that); returns the wait status. */
int proc_wait(struct proc *p, int timeout_ms);
void proc_kill(struct proc *p);
/* cmocka teardown: kill whatever the test started and has not waited for, and remove the
 * directories it made (a failing test leaves neither behind). */
int test_cleanup(void **state);
/* main() of a test program: TEST_FILTER=name runs only the matching tests. */
void test_filter_from_env(void);

/* $SLICELAB_BUILD/rel, in a static buffer per call site's copy. */
void build_path(char *buf, size_t size, const char *rel);

struct test_server {
        struct proc p;
        unsigned port;
};
/* http-test-server with the given extra arguments (NULL-terminated), once it listens. */
void server_start(struct test_server *s, const char *const *args);
void server_stop(struct test_server *s);

/* A fresh directory for one test's files, removed by tmpdir_remove. */
void tmpdir_make(char *buf, size_t size);
void tmpdir_remove(const char *dir);

struct timeline {
        struct timeline_header h;
        struct timeline_record *r;
        size_t n;
};
/* Load and validate: magic, version, record size, and a size of exactly header + n records. */
void timeline_load(const char *path, struct timeline *t);
void timeline_free(struct timeline *t);
/* What every timeline promises: scheduled in order, submit >= scheduled, done >= submit. */
void timeline_check_order(const struct timeline *t);
size_t timeline_count(const struct timeline *t, bool measured, int status, int error);

cJSON *json_load(const char *path);
/* A number at a dotted path ("latency_us.lag.p99"); fails the test when absent. */
double json_number(const cJSON *j, const char *path);
bool json_bool(const cJSON *j, const char *path);

/* Run slicelab-inject with args (NULL-terminated, no argv[0]); returns its exit status. */
int inject_run(const char *const *args, int timeout_ms);
/* The same, as the last argument of a wrapper command (NULL-terminated; wrapper[0] a path). */
int inject_run_under(const char *const *wrapper, const char *const *args, int timeout_ms);
