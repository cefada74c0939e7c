/* exit-status.h: the client's exit statuses (slicelab(1), EXIT STATUS), part of its contract
 * with scripts and Slurm jobs. */
#pragma once

enum {
        EXIT_OK = 0,            /* succeeded (and checks passed) */
        EXIT_NOT_SUCCEEDED = 1, /* the experiment failed, was partial or cancelled */
        EXIT_USAGE = 2,
        EXIT_CHECKS = 3,        /* the report's verdict: checks failed */
        EXIT_DAEMON = 4,        /* daemon unreachable, or an HTTP error */
};
