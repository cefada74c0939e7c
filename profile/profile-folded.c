/* profile-folded.c: the one reader of folded stacks (see profile-folded.h). */
#include "profile/profile-folded.h"

#include <string.h>

bool profile_folded_parse(const char *line, size_t len, struct profile_folded_line *ret) {
        const char *sp = len ? memrchr(line, ' ', len) : NULL;
        if (!sp || sp == line || sp + 1 == line + len)
                return false;
        uint64_t count = 0;
        for (const char *d = sp + 1; d < line + len; d++) {
                if (*d < '0' || *d > '9')
                        return false;
                count = count * 10 + (uint64_t) (*d - '0');
                if (count > PROFILE_FOLDED_COUNT_MAX)
                        return false; /* before it could wrap: the bound is far below 2^64 / 10 */
        }
        if (count == 0)
                return false;
        *ret = (struct profile_folded_line){ .stack = line, .len = (size_t) (sp - line), .count = count };
        return true;
}

bool profile_folded_next(const char *text, size_t len, size_t *pos, struct profile_folded_line *ret) {
        while (*pos < len) {
                const char *line = text + *pos, *nl = memchr(line, '\n', len - *pos);
                size_t l = nl ? (size_t) (nl - line) : len - *pos;
                *pos += nl ? l + 1 : l;
                if (profile_folded_parse(line, l, ret))
                        return true;
        }
        return false;
}
