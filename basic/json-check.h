/* json-check.h: a strict RFC 8259 check of a JSON text, for text that comes from outside (a
 * definition's body, the JSON columns of an imported bundle) before cJSON or SQLite's JSON
 * functions see it. cJSON takes more than JSON ("01", "1.", bytes that are not UTF-8) and cuts a
 * string at \u0000; SQLite's json_extract() fails a whole query on text that is not JSON; both
 * recurse once per level of nesting. Text that passes parses alike in both, within the bounds
 * the caller gives. */
#pragma once

#include <stddef.h>

/* The deepest nesting a caller may ask for: the check keeps one bit per level. */
#define JSON_CHECK_DEPTH_LIMIT 256

enum json_check_fault {
        JSON_CHECK_SYNTAX,              /* not RFC 8259 JSON, or what cJSON would misread */
        JSON_CHECK_TOO_DEEP,            /* objects and arrays nested deeper than depth_max */
        JSON_CHECK_TOO_MANY,            /* more than values_max values (keys count as values) */
};

struct json_check_result {
        enum json_check_fault fault;
        const char *what;               /* for SYNTAX: what is wrong ("malformed number"), static */
        size_t at;                      /* for SYNTAX: the byte where it is */
};

/* s[0..len) (NUL bytes included: a NUL is a control byte) is one JSON value by RFC 8259, more
 * strictly than cJSON reads it: strict UTF-8 (basic/utf8.h), no control byte outside JSON
 * whitespace and none in a string, no \u0000 or unpaired surrogate escape, numbers in RFC 8259's
 * syntax of at most 40 characters, no byte-order mark, nesting at most depth_max deep (at most
 * JSON_CHECK_DEPTH_LIMIT), at most values_max values. 0, or -EINVAL with *ret saying why. */
int json_check(const char *s, size_t len, unsigned depth_max, size_t values_max, struct json_check_result *ret);
