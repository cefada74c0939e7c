/* run-profile.h: a finished run's profile.folded in its run directory (state_dir/runs/ID), as
 * the daemon's collection wrote it (daemon/profile.h); read by the API and by findings. */
#pragma once

#include <stddef.h>

#define RUN_PROFILE_BYTES_MAX (64u << 20)       /* what collection writes at most */

/* The whole file: -ENOENT when the run has none, -EIO when it is not a regular file of this
 * process's user (the run directory is the run user's: no link is followed, no FIFO opened
 * blocking), -EFBIG past RUN_PROFILE_BYTES_MAX. */
int run_profile_read(const char *state_dir, const char *run_id, char **ret, size_t *ret_len);
