/* utf8.h: UTF-8 as JSON answers need it. cJSON neither checks UTF-8 when it parses nor when it
 * prints, so a byte that is not part of a valid character, taken from a request, a file or a
 * stored row, would make the answer that carries it unparsable. These are the one check (strict
 * RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), the one cut on a
 * character boundary, and the one sanitising copy, for every string that reaches an answer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The replacement character U+FFFD, what utf8_sanitize() puts for each byte it cannot keep. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/* The character at s[0..len): its length in bytes (1 to 4) with its code point in *ret_cp (if
 * not NULL), or 0 when s does not begin a valid one (or len is 0). */
size_t utf8_decode(const char *s, size_t len, uint32_t *ret_cp);

/* s[0..len) is valid UTF-8 (a NUL byte is a valid character; callers holding C strings pass
 * strlen()). */
bool utf8_valid(const char *s, size_t len);

/* The byte offset of the first byte of s[0..len) that does not begin a valid character, or len
 * when s[0..len) is valid: where an error message can say the bad byte is. */
size_t utf8_invalid_offset(const char *s, size_t len);

/* The longest length <= max at which s[0..len) can be cut without splitting a character: the
 * cut moves back over at most three continuation bytes. Invalid input stays invalid (and a
 * run of stray continuation bytes may be cut anywhere); sanitise it with utf8_sanitize(). */
size_t utf8_truncate_len(const char *s, size_t len, size_t max);

/* The same for a NUL-terminated s, reading no further than s[max]: for "%.*s" in place of
 * "%.64s", as UTF8_PREFIX(s, 64). */
size_t utf8_prefix_len(const char *s, size_t max);
#define UTF8_PREFIX(s, max) (int) utf8_prefix_len((s), (max)), (s)

/* s[0..len) without the character cut short at its end, if any: what a buffer's end leaves of
 * text that snprintf cut (buf[utf8_complete_len(buf, strlen(buf))] = '\0'). Only the last
 * character is looked at. */
size_t utf8_complete_len(const char *s, size_t len);

/* Copy s[0..len) into dst (size bytes, size >= 1), NUL-terminated, each byte that does not
 * begin a valid character (and each NUL) replaced by U+FFFD, cut on a character boundary when
 * it does not fit. Returns the length written (without the NUL). dst and s may not overlap. */
size_t utf8_sanitize(char *dst, size_t size, const char *s, size_t len);

/* A malloc'ed sanitised copy of s[0..len) (U+FFFD as above, never cut), or NULL when out of
 * memory. */
char *utf8_sanitize_dup(const char *s, size_t len);
