/* exit-status.h: the client's exit statuses (slicelab(1), EXIT STATUS), part of its contract
 * with scripts and Slurm jobs, and the one an experiment's outcome stands for. */
#pragma once

#include <stdbool.h>

#include <cjson/cJSON.h>

enum {
        EXIT_OK = 0,            /* succeeded (and checks passed) */
        EXIT_NOT_SUCCEEDED = 1, /* the experiment failed, was partial or cancelled */
        EXIT_USAGE = 2,
        EXIT_CHECKS = 3,        /* the report's verdict: checks failed */
        EXIT_REGRESSION = 3,    /* series: the newest level is a regression beyond --threshold */
        EXIT_DAEMON = 4,        /* daemon unreachable, or an HTTP error */
        EXIT_NO_CHANGE = 3,     /* bisect: the two ends do not differ */
        EXIT_UNDECIDED = 5,     /* bisect: a step could not decide; the range is still open */
};

/* Whether an experiment's JSON (or its report's) has a final status: neither queued nor
 * running, so the exit status it stands for will not change. */
bool exit_status_is_final(const cJSON *exp);
/* The exit status an experiment's JSON (or its report's) stands for: not finished 0, succeeded
 * 0 or 3 by `verdict.passed`, anything else finished 1. */
int exit_status_of_experiment(const cJSON *exp);
