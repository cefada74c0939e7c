/* profile-read.h: a finished run's profile.folded as the daemon wrote it (api/profile.c). */
#pragma once

#include <stddef.h>

/* The whole file (at most 64 MiB): -ENOENT when the run has none, -EIO when it is not a regular
 * file of this daemon's (the run directory is the run user's). */
int api_profile_read(const char *state_dir, const char *run_id, char **ret, size_t *ret_len);
