/* frame-names.c: JVM-generated frame names made stable across runs (see frame-names.h). */
#include "profile/frame-names.h"

#include <stdbool.h>
#include <string.h>

static bool is_hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* Whether in[i, len) starts with the literal s. */
static bool at(const char *in, size_t i, size_t len, const char *s) {
        size_t n = strlen(s);
        return len - i >= n && memcmp(in + i, s, n) == 0;
}

/* Where the run of characters from i that pass keep ends. */
static size_t skip(const char *in, size_t i, size_t len, bool (*keep)(char)) {
        while (i < len && keep(in[i]))
                i++;
        return i;
}

/* The prefixes whose counter is dropped: the prefix itself stays. */
static const char *const counted[] = {
        "$$Lambda", "GeneratedMethodAccessor", "GeneratedConstructorAccessor",
        "GeneratedSerializationConstructorAccessor", "$Proxy",
};

size_t frame_name_normalize(const char *in, size_t len, char *out) {
        size_t o = 0;
        for (size_t i = 0; i < len;) {
                if (at(in, i, len, "/0x") && i + 3 < len && is_hex(in[i + 3])) {
                        i = skip(in, i + 3, len, is_hex);
                        continue;
                }
                bool matched = false;
                for (size_t k = 0; k < sizeof counted / sizeof counted[0] && !matched; k++) {
                        size_t n = strlen(counted[k]);
                        if (!at(in, i, len, counted[k]))
                                continue;
                        /* "$$Lambda$7": the counter follows a '$'; the others follow at once */
                        size_t c = i + n + (k == 0 && i + n < len && in[i + n] == '$');
                        if (c < len && is_digit(in[c])) {
                                memcpy(out + o, in + i, n);
                                o += n;
                                i = skip(in, c, len, is_digit);
                                matched = true;
                        }
                }
                if (!matched)
                        out[o++] = in[i++];
        }
        return o;
}
