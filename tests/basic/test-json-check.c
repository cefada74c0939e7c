/* test-json-check.c: the strict JSON check: RFC 8259 texts pass; what cJSON or SQLite would
 * misread or choke on is refused with where and why; depth and values are bounded as asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-check.h"
#include "basic/macro.h"

static int check(const char *s, struct json_check_result *why) {
        return json_check(s, strlen(s), 64, 1000, NULL, why);
}

static void test_valid(void **state) {
        static const char *const texts[] = {
                "{}", "[]", "0", "-0", "1.5e-3", "1E+2", "1e400", "true", "false", "null", "\"\"", " {\"a\" : [1, 2, {}]}\n",
                "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", "\"\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\"", "{\"a\":{\"b\":{\"c\":[null]}}}",
        };
        for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
                struct json_check_result why;
                if (check(texts[i], &why) != 0)
                        fail_msg("refused %s: %s at %zu", texts[i], why.what, why.at);
        }
}

static void test_invalid(void **state) {
        static const struct {
                const char *text;
                size_t at;
        } cases[] = {
                { "", 0 },            { "NaN", 0 },        { "{\"a\":NaN}", 5 }, { "[1,]", 3 },           { "01", 0 },
                { "1.", 0 },          { "-", 0 },          { "1e", 0 },          { "[1 2]", 3 },          { "{\"a\" 1}", 5 },
                { "{1:2}", 1 },       { "\"a", 2 },        { "\"\\u0000\"", 1 }, { "\"\\ud800\"", 1 },    { "\"\\x\"", 1 },
                { "\"a\tb\"", 2 },    { "\"\xff\"", 1 },   { "\"ab\xc3\"", 3 },  { "\"\xed\xa0\x80\"", 1 }, { "\xef\xbb\xbf{}", 0 },
                { "{} {}", 3 },       { "tru", 0 },        { "truex", 0 },       { "[", 1 },              { "]", 0 },
                { "1234567890123456789012345678901234567890123", 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct json_check_result why = { 0 };
                if (check(cases[i].text, &why) != -EINVAL)
                        fail_msg("took %s", cases[i].text);
                assert_int_equal(why.fault, strstr(why.what, "UTF-8") ? JSON_CHECK_UTF8 : JSON_CHECK_SYNTAX);
                assert_non_null(why.what);
                if (why.at != cases[i].at)
                        fail_msg("%s: %s at %zu, not %zu", cases[i].text, why.what, why.at, cases[i].at);
        }
        /* A NUL byte inside the length is a control byte, not the end. */
        struct json_check_result why;
        assert_int_equal(json_check("[1]\0", 4, 64, 1000, NULL, &why), -EINVAL);
        assert_int_equal(json_check("\"a\0\"", 4, 64, 1000, NULL, &why), -EINVAL);
}

static char *nested(size_t depth) {
        char *s = malloc(2 * depth + 1);
        assert_non_null(s);
        memset(s, '[', depth);
        memset(s + depth, ']', depth);
        s[2 * depth] = '\0';
        return s;
}

static void test_bounds(void **state) {
        struct json_check_result why;
        _cleanup_free_ char *at_limit = nested(64), *over = nested(65), *deep = nested(5000);
        assert_int_equal(json_check(at_limit, strlen(at_limit), 64, 1000, NULL, &why), 0);
        assert_int_equal(json_check(over, strlen(over), 64, 1000, NULL, &why), -EINVAL);
        assert_int_equal(why.fault, JSON_CHECK_TOO_DEEP);
        assert_int_equal(json_check(deep, strlen(deep), 5000, 10000, NULL, &why), -EINVAL);
        assert_int_equal(why.fault, JSON_CHECK_TOO_DEEP); /* at most JSON_CHECK_DEPTH_LIMIT, whatever is asked */
        assert_int_equal(json_check("[1,2,3]", 7, 8, 4, NULL, &why), 0);
        assert_int_equal(json_check("[1,2,3,4]", 9, 8, 4, NULL, &why), -EINVAL);
        assert_int_equal(why.fault, JSON_CHECK_TOO_MANY);
        assert_int_equal(json_check("{\"a\":1,\"b\":2}", 13, 8, 4, NULL, &why), -EINVAL); /* keys count */
}

/* Where a fault is: the levels say the member's key or the element's index at each depth. */
static void test_levels(void **state) {
        static const char text[] = "{\"sut\":{\"env\":{\"K\":\"v\"}},\"cells\":[{},{\"name\":\"\xff\"}]}";
        struct json_check_level lv[9];
        struct json_check_result why;
        assert_int_equal(json_check(text, strlen(text), 8, 1000, lv, &why), -EINVAL);
        assert_int_equal(why.fault, JSON_CHECK_UTF8);
        assert_false(why.in_key);
        assert_int_equal(why.depth, 3);
        assert_true(lv[1].in_object);
        assert_int_equal(lv[1].key_len, 5);
        assert_memory_equal(text + lv[1].key_at, "cells", 5);
        assert_false(lv[2].in_object);
        assert_int_equal(lv[2].index, 1);
        assert_true(lv[3].in_object);
        assert_memory_equal(text + lv[3].key_at, "name", 4);
        assert_int_equal(why.at, strchr(text, '\xff') - text);

        static const char key[] = "[{\"a\":1,\"\xc3\":2}]";
        assert_int_equal(json_check(key, strlen(key), 8, 1000, lv, &why), -EINVAL);
        assert_int_equal(why.fault, JSON_CHECK_UTF8);
        assert_true(why.in_key);
        assert_int_equal(why.depth, 2);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_levels),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
