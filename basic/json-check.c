/* json-check.c: the strict RFC 8259 check (see json-check.h): one pass over the text, no
 * allocation. */
#include "basic/json-check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/utf8.h"

/* cJSON reads at most 63 characters of a number; no JSON we write has half as many. */
#define NUMBER_MAX 40

static int syntax(struct json_check_result *ret, size_t at, const char *what) {
        *ret = (struct json_check_result){ .fault = JSON_CHECK_SYNTAX, .what = what, .at = at };
        return -EINVAL;
}

static bool is_digit(const char *s, size_t len, size_t k) {
        return k < len && s[k] >= '0' && s[k] <= '9';
}

/* An RFC 8259 number at s[*i]; cJSON would also take "01" and "1." via strtod. */
static int scan_number(const char *s, size_t len, size_t *i, struct json_check_result *ret) {
        size_t p = *i, start = *i;
        if (s[p] == '-')
                p++;
        if (!is_digit(s, len, p))
                return syntax(ret, start, "malformed number");
        if (s[p] == '0')
                p++;
        else
                while (is_digit(s, len, p))
                        p++;
        if (p < len && s[p] == '.') {
                p++;
                if (!is_digit(s, len, p))
                        return syntax(ret, start, "malformed number");
                while (is_digit(s, len, p))
                        p++;
        }
        if (p < len && (s[p] == 'e' || s[p] == 'E')) {
                p++;
                if (p < len && (s[p] == '+' || s[p] == '-'))
                        p++;
                if (!is_digit(s, len, p))
                        return syntax(ret, start, "malformed number");
                while (is_digit(s, len, p))
                        p++;
        }
        if (p < len && s[p] != '\0' && strchr("0123456789.eE+-", s[p]))
                return syntax(ret, start, "malformed number");
        if (p - start > NUMBER_MAX)
                return syntax(ret, start, "number longer than 40 characters");
        *i = p;
        return 0;
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* \uXXXX at s[p]: the UTF-16 code unit, or -1. */
static int hex4(const char *s, size_t len, size_t p) {
        int v = 0;
        if (len < 6 || p > len - 6 || s[p] != '\\' || s[p + 1] != 'u')
                return -1;
        for (size_t k = p + 2; k < p + 6; k++) {
                int d = hex_digit(s[k]);
                if (d < 0)
                        return -1;
                v = v * 16 + d;
        }
        return v;
}

/* The escape at s[p] == '\\': its length, or 0 with *why. cJSON decodes \u escapes with bad hex
 * digits as NUL and would cut the string there, so they, \u0000 and unpaired surrogates are
 * refused. */
static size_t escape_length(const char *s, size_t len, size_t p, const char **why) {
        if (p + 1 < len && s[p + 1] != '\0' && strchr("\"\\/bfnrt", s[p + 1]))
                return 2;
        int u = hex4(s, len, p);
        if (u < 0) {
                *why = "invalid escape in a string";
                return 0;
        }
        if (u == 0) {
                *why = "\\u0000 in a string";
                return 0;
        }
        if (u >= 0xdc00 && u <= 0xdfff) {
                *why = "unpaired surrogate in a string";
                return 0;
        }
        if (u >= 0xd800 && u <= 0xdbff) {
                int low = hex4(s, len, p + 6);
                if (low < 0xdc00 || low > 0xdfff) {
                        *why = "unpaired surrogate in a string";
                        return 0;
                }
                return 12;
        }
        return 6;
}

/* The string after the opening quote at s[*i]; leaves *i after the closing quote. A run of bytes
 * >= 0x80 holds whole characters only (none of them is a quote, a backslash or ASCII), so it is
 * checked as one piece. */
static int scan_string(const char *s, size_t len, size_t *i, struct json_check_result *ret) {
        size_t p = *i;
        while (p < len) {
                unsigned char c = (unsigned char) s[p];
                if (c == '"') {
                        *i = p + 1;
                        return 0;
                }
                if (c < 0x20)
                        return syntax(ret, p, "control character in a string");
                if (c == '\\') {
                        const char *why = NULL;
                        size_t n = escape_length(s, len, p, &why);
                        if (n == 0)
                                return syntax(ret, p, why);
                        p += n;
                        continue;
                }
                if (c >= 0x80) {
                        size_t end = p;
                        while (end < len && (unsigned char) s[end] >= 0x80)
                                end++;
                        size_t bad = utf8_invalid_offset(s + p, end - p);
                        if (bad < end - p) {
                                *ret = (struct json_check_result){ .fault = JSON_CHECK_UTF8, .what = "invalid UTF-8",
                                                                   .at = p + bad };
                                return -EINVAL;
                        }
                        p = end;
                        continue;
                }
                p++;
        }
        return syntax(ret, p, "unterminated string");
}

static int scan_literal(const char *s, size_t len, size_t *i, struct json_check_result *ret) {
        static const char *const literals[] = { "true", "false", "null" };
        for (size_t k = 0; k < ELEMENTSOF(literals); k++) {
                size_t n = strlen(literals[k]);
                if (len - *i >= n && memcmp(s + *i, literals[k], n) == 0) {
                        char next = len - *i == n ? ' ' : s[*i + n];
                        bool alnum = (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') ||
                                     (next >= '0' && next <= '9');
                        if (!alnum) {
                                *i += n;
                                return 0;
                        }
                }
        }
        return syntax(ret, *i, "expected a value");
}

/* What the check expects next. */
enum expect {
        EXPECT_VALUE,
        EXPECT_VALUE_OR_CLOSE,  /* after '[' */
        EXPECT_KEY_OR_CLOSE,    /* after '{' */
        EXPECT_KEY,             /* after ',' in an object */
        EXPECT_COLON,
        EXPECT_COMMA_OR_CLOSE,  /* after a value inside a container */
        EXPECT_END,             /* after the top-level value */
};

static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A fault at byte at, with where the check was. */
static int fault(struct json_check_result *ret, enum json_check_fault f, size_t at, unsigned depth) {
        *ret = (struct json_check_result){ .fault = f, .at = at, .depth = depth };
        return -EINVAL;
}

int json_check(const char *s, size_t len, unsigned depth_max, size_t values_max, struct json_check_level *levels,
               struct json_check_result *ret) {
        struct json_check_level own[JSON_CHECK_DEPTH_LIMIT + 1];
        struct json_check_level *lv = levels ? levels : own;
        enum expect expect = EXPECT_VALUE;
        unsigned depth = 0;
        size_t values = 0;
        int r = -EINVAL;

        depth_max = MIN(depth_max, (unsigned) JSON_CHECK_DEPTH_LIMIT);
        lv[0] = (struct json_check_level){ 0 };
        for (size_t i = 0; i < len;) {
                char c = s[i];

                if (is_space(c)) {
                        i++;
                        continue;
                }
                if (expect == EXPECT_END)
                        r = syntax(ret, i, "data after the JSON value");
                else if (expect == EXPECT_COLON) {
                        if (c != ':')
                                r = syntax(ret, i, "expected ':'");
                        else {
                                i++;
                                expect = EXPECT_VALUE;
                                continue;
                        }
                } else if (expect == EXPECT_COMMA_OR_CLOSE && c == ',') {
                        i++;
                        if (!lv[depth].in_object)
                                lv[depth].index++;
                        expect = lv[depth].in_object ? EXPECT_KEY : EXPECT_VALUE;
                        continue;
                } else if ((c == '}' && (expect == EXPECT_KEY_OR_CLOSE ||
                                         (expect == EXPECT_COMMA_OR_CLOSE && lv[depth].in_object))) ||
                           (c == ']' && (expect == EXPECT_VALUE_OR_CLOSE ||
                                         (expect == EXPECT_COMMA_OR_CLOSE && !lv[depth].in_object)))) {
                        i++;
                        depth--;
                        expect = depth ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
                        continue;
                } else if (expect == EXPECT_COMMA_OR_CLOSE)
                        r = syntax(ret, i, "expected ',' or the end of the container");
                /* a key or a value */
                else if (++values > values_max)
                        r = fault(ret, JSON_CHECK_TOO_MANY, i, depth);
                else if (expect == EXPECT_KEY || expect == EXPECT_KEY_OR_CLOSE) {
                        if (c != '"')
                                r = syntax(ret, i, "expected a key string");
                        else {
                                lv[depth].key_at = ++i;
                                if ((r = scan_string(s, len, &i, ret)) >= 0) {
                                        lv[depth].key_len = i - 1 - lv[depth].key_at;
                                        expect = EXPECT_COLON;
                                        continue;
                                }
                                ret->in_key = true;
                        }
                } else if (c == '{' || c == '[') {
                        if (depth >= depth_max)
                                r = fault(ret, JSON_CHECK_TOO_DEEP, i, depth);
                        else {
                                lv[++depth] = (struct json_check_level){ .in_object = c == '{' };
                                i++;
                                expect = c == '{' ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
                                continue;
                        }
                } else {
                        if (c == '"') {
                                i++;
                                r = scan_string(s, len, &i, ret);
                        } else if (c == '-' || (c >= '0' && c <= '9'))
                                r = scan_number(s, len, &i, ret);
                        else if (c == 't' || c == 'f' || c == 'n')
                                r = scan_literal(s, len, &i, ret);
                        else if ((unsigned char) c < 0x20 || (unsigned char) c >= 0x7f)
                                r = syntax(ret, i, (unsigned char) c < 0x80 ? "control character" : "byte outside a string");
                        else
                                r = syntax(ret, i, "expected a value");
                        if (r >= 0) {
                                expect = depth ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
                                continue;
                        }
                }
                ret->depth = depth;
                return r;
        }
        if (expect != EXPECT_END) {
                syntax(ret, len, "unexpected end of the text");
                ret->depth = depth;
                return -EINVAL;
        }
        return 0;
}
