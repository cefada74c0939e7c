/* test-utf8.c: the UTF-8 check, the cut on a character boundary and the sanitising copy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/utf8.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static void test_valid(void **state) {
        assert_true(utf8_valid(S("")));
        assert_true(utf8_valid(S("plain ascii")));
        assert_true(utf8_valid(S("caf\xc3\xa9")));                 /* U+00E9 */
        assert_true(utf8_valid(S("\xe2\x82\xac")));                /* U+20AC */
        assert_true(utf8_valid(S("\xf0\x9f\x98\x80")));            /* U+1F600 */
        assert_true(utf8_valid(S("\xc2\x80")));                    /* U+0080, the first 2-byte */
        assert_true(utf8_valid(S("\xe0\xa0\x80")));                /* U+0800, the first 3-byte */
        assert_true(utf8_valid(S("\xed\x9f\xbf")));                /* U+D7FF, below surrogates */
        assert_true(utf8_valid(S("\xee\x80\x80")));                /* U+E000, above them */
        assert_true(utf8_valid(S("\xef\xbf\xbd")));                /* U+FFFD */
        assert_true(utf8_valid(S("\xf0\x90\x80\x80")));            /* U+10000 */
        assert_true(utf8_valid(S("\xf4\x8f\xbf\xbf")));            /* U+10FFFF, the last */
        assert_true(utf8_valid(S("a\0b")));                        /* NUL is a character */
}

static void test_decode(void **state) {
        uint32_t cp = 0;
        assert_int_equal(utf8_decode(S("A"), &cp), 1);
        assert_int_equal(cp, 0x41);
        assert_int_equal(utf8_decode(S("\xc3\xa9x"), &cp), 2);
        assert_int_equal(cp, 0xe9);
        assert_int_equal(utf8_decode(S("\xe2\x82\xac"), &cp), 3);
        assert_int_equal(cp, 0x20ac);
        assert_int_equal(utf8_decode(S("\xf4\x8f\xbf\xbf"), &cp), 4);
        assert_int_equal(cp, 0x10ffff);
        assert_int_equal(utf8_decode(S("\xe2\x82"), &cp), 0);
        assert_int_equal(utf8_decode(S("\xed\xa0\x80"), NULL), 0);
        assert_int_equal(utf8_decode("", 0, NULL), 0);
}

static void test_invalid(void **state) {
        assert_false(utf8_valid(S("\xff\xfe")));
        assert_false(utf8_valid(S("\x80")));                       /* a lone continuation */
        assert_false(utf8_valid(S("\xc3")));                       /* cut short */
        assert_false(utf8_valid(S("abc\xe2\x82")));                /* cut short at the end */
        assert_false(utf8_valid(S("\xc3\x28")));                   /* not a continuation */
        assert_false(utf8_valid(S("\xc0\xaf")));                   /* overlong '/' */
        assert_false(utf8_valid(S("\xc1\xbf")));
        assert_false(utf8_valid(S("\xe0\x9f\xbf")));               /* overlong 3-byte */
        assert_false(utf8_valid(S("\xf0\x8f\xbf\xbf")));           /* overlong 4-byte */
        assert_false(utf8_valid(S("\xed\xa0\x80")));               /* U+D800, a surrogate */
        assert_false(utf8_valid(S("\xed\xbf\xbf")));               /* U+DFFF */
        assert_false(utf8_valid(S("\xf4\x90\x80\x80")));           /* U+110000 */
        assert_false(utf8_valid(S("\xf5\x80\x80\x80")));
        assert_false(utf8_valid(S("\xf0\x9f\x98")));               /* 4-byte cut short */
        assert_false(utf8_valid(S("\xf0\x9f\x98\x28")));

        assert_int_equal(utf8_invalid_offset(S("ok")), 2);
        assert_int_equal(utf8_invalid_offset(S("caf\xc3\xa9\xff")), 5);
        assert_int_equal(utf8_invalid_offset(S("\xe2\x82")), 0);
}

static void test_truncate(void **state) {
        /* "a" U+20AC "b": bytes a E2 82 AC b */
        const char *s = "a\xe2\x82\xac" "b";
        assert_int_equal(utf8_truncate_len(s, 5, 10), 5);
        assert_int_equal(utf8_truncate_len(s, 5, 5), 5);
        assert_int_equal(utf8_truncate_len(s, 5, 4), 4);           /* after the euro sign */
        assert_int_equal(utf8_truncate_len(s, 5, 3), 1);           /* inside it: before it */
        assert_int_equal(utf8_truncate_len(s, 5, 2), 1);
        assert_int_equal(utf8_truncate_len(s, 5, 1), 1);
        assert_int_equal(utf8_truncate_len(s, 5, 0), 0);

        const char *e = "\xf0\x9f\x98\x80\xf0\x9f\x98\x80";       /* two U+1F600 */
        for (size_t max = 0; max < 8; max++)
                assert_int_equal(utf8_truncate_len(e, 8, max), max < 4 ? 0 : 4);

        /* Stray continuation bytes: the cut is not moved further than a character could be. */
        assert_int_equal(utf8_truncate_len(S("\x80\x80\x80\x80\x80\x80"), 5), 5);

        /* Every cut of valid text is valid. */
        const char *mixed = "x\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80y";
        for (size_t max = 0; max <= strlen(mixed); max++) {
                size_t n = utf8_truncate_len(mixed, strlen(mixed), max);
                assert_true(n <= max);
                assert_true(utf8_valid(mixed, n));
        }
}

static void test_complete(void **state) {
        assert_int_equal(utf8_complete_len(S("")), 0);
        assert_int_equal(utf8_complete_len(S("abc")), 3);
        assert_int_equal(utf8_complete_len(S("a\xc3\xa9")), 3);
        assert_int_equal(utf8_complete_len(S("a\xc3")), 1);                   /* cut after the lead */
        assert_int_equal(utf8_complete_len(S("a\xe2\x82")), 1);
        assert_int_equal(utf8_complete_len(S("a\xe2\x82\xac")), 4);
        assert_int_equal(utf8_complete_len(S("a\xf0\x9f\x98")), 1);
        assert_int_equal(utf8_complete_len(S("a\xf0\x9f\x98\x80")), 5);
        assert_int_equal(utf8_complete_len(S("\xf0")), 0);

        /* What a full buffer keeps of a longer message is cut back to a character: "abcde€!" in
         * 8 bytes, as snprintf leaves it. */
        char buf[8];
        memcpy(buf, "abcde\xe2\x82\xac!", sizeof buf - 1);
        buf[sizeof buf - 1] = '\0';
        buf[utf8_complete_len(buf, strlen(buf))] = '\0';
        assert_string_equal(buf, "abcde");
}

static void test_prefix(void **state) {
        assert_int_equal(utf8_prefix_len("short", 64), 5);
        assert_int_equal(utf8_prefix_len("exact", 5), 5);
        assert_int_equal(utf8_prefix_len("a\xe2\x82\xac", 3), 1);
        assert_int_equal(utf8_prefix_len("a\xe2\x82\xac", 4), 4);
        assert_int_equal(utf8_prefix_len("a\xe2\x82\xac" "b", 4), 4);

        char buf[16];
        snprintf(buf, sizeof buf, "[%.*s]", UTF8_PREFIX("\xc3\xa9\xc3\xa9", 3));
        assert_string_equal(buf, "[\xc3\xa9]");
}

static void test_sanitize(void **state) {
        char buf[64];

        assert_int_equal(utf8_sanitize(buf, sizeof buf, S("fine \xc3\xa9")), 7);
        assert_string_equal(buf, "fine \xc3\xa9");

        utf8_sanitize(buf, sizeof buf, S("\xff\xfe"));
        assert_string_equal(buf, UTF8_REPLACEMENT UTF8_REPLACEMENT);
        assert_true(utf8_valid(buf, strlen(buf)));

        /* A character cut short: its lead byte replaced, what follows kept. */
        utf8_sanitize(buf, sizeof buf, S("a\xe2\x82" "b"));
        assert_string_equal(buf, "a" UTF8_REPLACEMENT UTF8_REPLACEMENT "b");

        utf8_sanitize(buf, sizeof buf, S("a\0b"));
        assert_string_equal(buf, "a" UTF8_REPLACEMENT "b");

        utf8_sanitize(buf, sizeof buf, S("\xed\xa0\x80"));          /* a surrogate: 3 bytes */
        assert_string_equal(buf, UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT);

        /* Too long for dst: cut on a character, never inside one nor inside a U+FFFD. */
        char small[5];
        assert_int_equal(utf8_sanitize(small, sizeof small, S("ab\xc3\xa9")), 4);
        assert_string_equal(small, "ab\xc3\xa9");
        assert_int_equal(utf8_sanitize(small, sizeof small, S("abc\xc3\xa9")), 3);
        assert_string_equal(small, "abc");
        assert_int_equal(utf8_sanitize(small, sizeof small, S("a\xff")), 4);
        assert_int_equal(utf8_sanitize(small, sizeof small, S("ab\xff")), 2);
        assert_string_equal(small, "ab");

        char one[1];
        assert_int_equal(utf8_sanitize(one, sizeof one, S("abc")), 0);
        assert_string_equal(one, "");

        char *d = utf8_sanitize_dup(S("\xff\xff\xff"));
        assert_non_null(d);
        assert_string_equal(d, UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT);
        free(d);
}

/* Every sanitised byte string is valid, whatever the bytes: all strings of 1 to 3 bytes drawn
 * from the bytes that matter to the decoder's branches. */
static void test_sanitize_exhaustive(void **state) {
        static const unsigned char bytes[] = {
                0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
                0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
        };
        size_t nb = sizeof bytes;
        char in[3], out[16];

        for (size_t a = 0; a < nb; a++)
                for (size_t b = 0; b < nb; b++)
                        for (size_t c = 0; c < nb; c++) {
                                in[0] = (char) bytes[a];
                                in[1] = (char) bytes[b];
                                in[2] = (char) bytes[c];
                                for (size_t len = 1; len <= 3; len++) {
                                        size_t n = utf8_sanitize(out, sizeof out, in, len);
                                        assert_int_equal(n, strlen(out));
                                        assert_true(utf8_valid(out, n));
                                        /* Valid input without NUL comes back unchanged. */
                                        if (utf8_valid(in, len) && !memchr(in, 0, len))
                                                assert_memory_equal(out, in, len);
                                }
                        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_decode),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_truncate),
                cmocka_unit_test(test_complete),
                cmocka_unit_test(test_prefix),
                cmocka_unit_test(test_sanitize),
                cmocka_unit_test(test_sanitize_exhaustive),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
