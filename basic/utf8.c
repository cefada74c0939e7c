/* utf8.c: checking, cutting and sanitising UTF-8 (RFC 3629, table 3-7 of Unicode's chapter 3). */
#include "basic/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_continuation(unsigned char c) {
        return (c & 0xc0) == 0x80;
}

/* The second byte's range is what excludes overlong forms (E0, F0), surrogates (ED) and code
 * points above U+10FFFF (F4); C0, C1 and F5..FF never begin a character. */
size_t utf8_decode(const char *s, size_t len, uint32_t *ret_cp) {
        const unsigned char *p = (const unsigned char *) s;
        unsigned char lo = 0x80, hi = 0xbf;
        uint32_t cp;
        size_t n;

        if (len == 0)
                return 0;
        if (p[0] < 0x80) {
                n = 1;
                cp = p[0];
        } else if (p[0] >= 0xc2 && p[0] <= 0xdf) {
                n = 2;
                cp = p[0] & 0x1f;
        } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
                n = 3;
                cp = p[0] & 0x0f;
                if (p[0] == 0xe0)
                        lo = 0xa0;
                else if (p[0] == 0xed)
                        hi = 0x9f;
        } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
                n = 4;
                cp = p[0] & 0x07;
                if (p[0] == 0xf0)
                        lo = 0x90;
                else if (p[0] == 0xf4)
                        hi = 0x8f;
        } else
                return 0;

        if (n > 1 && (len < n || p[1] < lo || p[1] > hi))
                return 0;
        for (size_t i = 1; i < n; i++) {
                if (!is_continuation(p[i]))
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (ret_cp)
                *ret_cp = cp;
        return n;
}

size_t utf8_invalid_offset(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s;
        size_t i = 0;

        while (i < len) {
                if (p[i] < 0x80) {      /* ASCII runs are most of what is checked */
                        i++;
                        continue;
                }
                size_t n = utf8_decode(s + i, len - i, NULL);
                if (n == 0)
                        return i;
                i += n;
        }
        return len;
}

bool utf8_valid(const char *s, size_t len) {
        return utf8_invalid_offset(s, len) == len;
}

size_t utf8_truncate_len(const char *s, size_t len, size_t max) {
        if (len <= max)
                return len;
        /* s[max] is the first byte dropped: while it continues a character, that character
         * would be split; a character has at most three continuation bytes. */
        size_t n = max;
        while (n > 0 && max - n < 3 && is_continuation((unsigned char) s[n]))
                n--;
        return is_continuation((unsigned char) s[n]) ? max : n;
}

size_t utf8_prefix_len(const char *s, size_t max) {
        size_t len = strnlen(s, max);
        /* With len == max, s[max] is readable: it is either the NUL or a further byte. */
        return len < max ? len : utf8_truncate_len(s, max + (s[max] != '\0'), max);
}

size_t utf8_complete_len(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s;
        /* The lead byte of the last character is at most three bytes back. */
        for (size_t back = 1; back <= 4 && back <= len; back++) {
                unsigned char c = p[len - back];
                if (is_continuation(c))
                        continue;
                size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
                return need > back ? len - back : len;
        }
        return len;
}

size_t utf8_sanitize(char *dst, size_t size, const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s;
        size_t out = 0;

        for (size_t i = 0; i < len;) {
                size_t n = p[i] == 0 ? 0 : utf8_decode(s + i, len - i, NULL);
                const char *piece = n > 0 ? s + i : UTF8_REPLACEMENT;
                size_t piece_len = n > 0 ? n : strlen(UTF8_REPLACEMENT);

                if (out + piece_len >= size)
                        break;
                memcpy(dst + out, piece, piece_len);
                out += piece_len;
                i += n > 0 ? n : 1;
        }
        dst[out] = '\0';
        return out;
}

char *utf8_sanitize_dup(const char *s, size_t len) {
        /* Each byte becomes at most three. */
        if (len > (SIZE_MAX - 1) / 3)
                return NULL;
        size_t size = len * 3 + 1;
        char *d = malloc(size);
        if (!d)
                return NULL;
        utf8_sanitize(d, size, s, len);
        return d;
}
