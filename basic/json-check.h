/* json-check.h: a strict RFC 8259 check of a JSON text, for text that comes from outside (a
 * definition's body, the JSON columns of an imported bundle) before cJSON or SQLite's JSON
 * functions see it. cJSON takes more than JSON ("01", "1.", bytes that are not UTF-8) and cuts a
 * string at \u0000; SQLite's json_extract() fails a whole query on text that is not JSON; both
 * recurse once per level of nesting. Text that passes parses alike in both, within the bounds
 * the caller gives. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The deepest nesting a caller may ask for. */
#define JSON_CHECK_DEPTH_LIMIT 256

enum json_check_fault {
        JSON_CHECK_SYNTAX,              /* not RFC 8259 JSON, or what cJSON would misread */
        JSON_CHECK_UTF8,                /* a string (a key when in_key) holds bytes that are not UTF-8 */
        JSON_CHECK_TOO_DEEP,            /* objects and arrays nested deeper than depth_max */
        JSON_CHECK_TOO_MANY,            /* more than values_max values (keys count as values) */
};

struct json_check_result {
        enum json_check_fault fault;
        const char *what;               /* what is wrong ("malformed number"), static */
        size_t at;                      /* the byte where it is */
        unsigned depth;                 /* the nesting there: levels[1..depth] */
        bool in_key;                    /* JSON_CHECK_UTF8: in a key of levels[depth]'s object */
};

/* Where the check is in one container, for a caller that names the field at fault: the current
 * member's key (its raw bytes, between the quotes) or the current element's index. */
struct json_check_level {
        bool in_object;
        size_t key_at, key_len;
        size_t index;
};

/* s[0..len) (NUL bytes included: a NUL is a control byte) is one JSON value by RFC 8259, more
 * strictly than cJSON reads it: strict UTF-8 (basic/utf8.h), no control byte outside JSON
 * whitespace and none in a string, no \u0000 or unpaired surrogate escape, numbers in RFC 8259's
 * syntax of at most 40 characters, no byte-order mark, nesting at most depth_max deep (at most
 * JSON_CHECK_DEPTH_LIMIT), at most values_max values. 0, or -EINVAL with *ret saying why.
 * levels: NULL, or depth_max + 1 of them that the check keeps its place in, so that after a
 * fault levels[1..ret->depth] say where it was. */
int json_check(const char *s, size_t len, unsigned depth_max, size_t values_max, struct json_check_level *levels,
               struct json_check_result *ret);
