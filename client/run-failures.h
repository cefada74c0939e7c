/* run-failures.h: why an experiment's runs failed, one line a run ("run ID: failed (preflight):
 * sut.command[2]: ..."), for wait, status and report: the reason and message are on each run
 * (GET /v1/runs/{id}), not on the experiment, and a user should not have to look them up. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "client/http.h"

/* Whether exp (an experiment's or its report's JSON) has runs that failed: a final status other
 * than succeeded, or failed or interrupted runs counted in its progress. */
bool run_failures_expected(const cJSON *exp);

/* Prints to f a line for each failed or interrupted run of experiment id (and each cancelled for
 * repeated failures), the first RUN_FAILURES_MAX of them, then how many more there are. An exit
 * status: 0, or EXIT_DAEMON when the runs could not be read (said on stderr). */
#define RUN_FAILURES_MAX 10
int run_failures_print(struct http *h, const char *id, FILE *f);
