/* test-profile-folded: the one rule of a folded-stack line (profile/profile-folded.h): the stack
 * before the last space, not empty; the count after it, ASCII digits of a value 1 to
 * PROFILE_FOLDED_COUNT_MAX; every other line skipped, the text's last line with or without its
 * newline. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile-folded.h"

static bool parse(const char *line, struct profile_folded_line *ret) {
        return profile_folded_parse(line, strlen(line), ret);
}

static void test_taken(void **state) {
        struct profile_folded_line l;
        assert_true(parse("app;main;work 12", &l));
        assert_int_equal(l.len, strlen("app;main;work"));
        assert_memory_equal(l.stack, "app;main;work", l.len);
        assert_int_equal(l.count, 12);
        assert_true(parse("gc 1", &l));
        assert_int_equal(l.count, 1);
        /* a frame may hold spaces: the count is after the last one */
        assert_true(parse("app;java.lang.Thread run 3", &l));
        assert_int_equal(l.len, strlen("app;java.lang.Thread run"));
        assert_int_equal(l.count, 3);
        /* empty frames are frames */
        assert_true(parse("app;;x 2", &l));
        assert_true(parse("app;x; 2", &l));
        assert_true(parse("app 007", &l));
        assert_int_equal(l.count, 7);
        char max[64];
        snprintf(max, sizeof max, "app %llu", (unsigned long long) PROFILE_FOLDED_COUNT_MAX);
        assert_true(parse(max, &l));
        assert_true(l.count == PROFILE_FOLDED_COUNT_MAX);
}

static void test_skipped(void **state) {
        static const char *const bad[] = {
                "",      "app",         "app ",      " 5",         "5",          "app 0",     "app 00",
                "app -5", "app +5",     "app 5x",    "app 0x10",   "app 5 ",     "app 5\r",   "app\t5",
                "app  ", "app 1.5",     "app 1e3",   "app 18446744073709551616", "app 18446744073709551615",
                "app 99999999999999999999999999999999999999",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                struct profile_folded_line l = { .count = 42 };
                if (parse(bad[i], &l))
                        fail_msg("'%s' was taken", bad[i]);
                assert_int_equal(l.count, 42); /* untouched */
        }
        char over[64];
        snprintf(over, sizeof over, "app %llu", (unsigned long long) PROFILE_FOLDED_COUNT_MAX + 1);
        struct profile_folded_line l;
        assert_false(parse(over, &l));
        /* the line ends at len: what follows is not read */
        assert_false(profile_folded_parse("app 5", 4, &l));
        assert_true(profile_folded_parse("app 56", 5, &l));
        assert_int_equal(l.count, 5);
}

static void test_next(void **state) {
        static const char text[] = "app;a 1\n\nnot a count\n 3\nkernel;b 2\ngc;c 4";
        size_t pos = 0, n = 0;
        uint64_t sum = 0;
        struct profile_folded_line l;
        while (profile_folded_next(text, strlen(text), &pos, &l)) {
                n++;
                sum += l.count;
        }
        assert_int_equal(n, 3);
        assert_int_equal(sum, 7);
        assert_int_equal(pos, strlen(text));
        /* the same with a last newline, and a text of only lines skipped */
        static const char nl[] = "app;a 1\n";
        pos = 0;
        assert_true(profile_folded_next(nl, strlen(nl), &pos, &l));
        assert_false(profile_folded_next(nl, strlen(nl), &pos, &l));
        assert_int_equal(pos, strlen(nl));
        pos = 0;
        assert_false(profile_folded_next("x\ny\n", 4, &pos, &l));
        pos = 0;
        assert_false(profile_folded_next("", 0, &pos, &l));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_taken),
                cmocka_unit_test(test_skipped),
                cmocka_unit_test(test_next),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
