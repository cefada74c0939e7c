/* profile-folded.h: reading folded stacks, one "group;root;...;leaf COUNT" a line, as
 * profile/profile-fold.c writes them into a run's profile.folded: the one reader of that text,
 * for the API's trees (api/profile.c) and the shares of findings/profile-shares.c. Such a file
 * may also come from an imported bundle: whatever it holds, a line is taken only as its writer
 * makes it, and any other line is skipped:
 *   - the stack is the text before the line's last space, and is not empty;
 *   - the count is the text after it: ASCII digits only (no sign, space or other byte), of a
 *     value from 1 to PROFILE_FOLDED_COUNT_MAX (no overflow, no wrap).
 * The stack's frames are its ';'-separated parts; each reader splits them its own way. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Samples of one stack in one run: above what perf can take in a run (999 Hz on 4096 CPUs for a
 * day is 3.5e11), exact as a JSON number, and 2^24 lines of it (a profile.folded's most:
 * storage/run-profile.h) cannot wrap a run's sum in 64 bits. */
#define PROFILE_FOLDED_COUNT_MAX ((UINT64_C(1) << 40) - 1)

struct profile_folded_line {
        const char *stack;              /* in the text read, not NUL-terminated */
        size_t len;
        uint64_t count;
};

/* One line (without its newline) into *ret: false (*ret untouched) when it is not a stack and its
 * count. */
bool profile_folded_parse(const char *line, size_t len, struct profile_folded_line *ret);
/* The next stack of text[*pos, len) into *ret, *pos past its line; false at the end. */
bool profile_folded_next(const char *text, size_t len, size_t *pos, struct profile_folded_line *ret);
