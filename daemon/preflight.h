/* preflight.h: the checks a run passes before anything is started: the definition's host
 * requirements (governor, SMT, THP) on the CPUs the run uses, failing or warning per its
 * on_mismatch, placement warnings (SUT and load sharing CPUs), and the files its commands name
 * (a typo fails in preflight, naming the field, not as a SUT that exits at once). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/run-plan.h"
#include "definition/definition.h"

struct cJSON;

/* Checks the CPUs the run uses (run_plan_cpus()). 0 to go on (warnings appended), or -EPERM
 * with why filled (one line per mismatch). */
int preflight_check(const struct definition *d, const struct run_cpus *cpus, struct cJSON *warnings,
                    char *why, size_t why_size);

/* The SUT's executable (searched in the run's PATH when it is a bare name), the file after each
 * "-jar" of sut.command (relative to the run directory dir, the SUT's cwd) and an external load's
 * executable must exist (executables: regular files with an execute bit). 0, or -ENOENT (or
 * another -errno) with why naming the field, e.g. "sut.command[5]: -jar file /x.jar: No such
 * file or directory". */
int preflight_commands(const struct definition *d, size_t cell, const char *dir, char *why, size_t why_size);

/* What a run may write, at most: its timeline twice (the load's file and the store's copy, 40
 * bytes a record; rate x (warmup_s + measure_s) records at a fixed rate, DEFINITION_REQUESTS_MAX
 * in mode max, none known for an external load), its captured output at the caps and a JVM's
 * rotated GC log at its cap. */
uint64_t preflight_disk_need(const struct definition *d);
/* The state dir's free space (statvfs, what an unprivileged writer may use) against
 * preflight_disk_need(). 0, or -ENOSPC with why naming the bytes needed and free, or another
 * -errno from statvfs. */
int preflight_disk(const struct definition *d, const char *state_dir, char *why, size_t why_size);
