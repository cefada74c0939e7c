/* test-cpulist.c: cpulist parsing, formatting and set operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "basic/cpulist.h"

static void roundtrip(const char *in, const char *canonical) {
        struct cpulist c;
        char buf[256];
        assert_int_equal(cpulist_parse(in, &c), 0);
        assert_int_equal(cpulist_format(&c, buf, sizeof buf), 0);
        assert_string_equal(buf, canonical);
}

static void test_parse_format(void **state) {
        roundtrip("0", "0");
        roundtrip("0-3", "0-3");
        roundtrip("8-11,0,1", "0-1,8-11");
        roundtrip("5,3,4", "3-5");
        roundtrip("63-65", "63-65");
        roundtrip("1023", "1023");
}

static void test_parse_rejects(void **state) {
        const char *bad[] = { "", "-", "1-", "-1", "3-1", "1,,2", "1,", ",1", " 1", "1 ", "a",
                              "1-2-3", "0x1", "+1", "1.5" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                struct cpulist c = { .bits = { 42 } };
                assert_int_equal(cpulist_parse(bad[i], &c), -EINVAL);
                assert_int_equal(c.bits[0], 42); /* untouched on failure */
        }
        struct cpulist c;
        assert_int_equal(cpulist_parse("1024", &c), -ERANGE);
        assert_int_equal(cpulist_parse("99999999999999999999", &c), -ERANGE);
        assert_int_equal(cpulist_parse(NULL, &c), -EINVAL);
}

static void test_set_ops(void **state) {
        struct cpulist a, b, c;
        assert_int_equal(cpulist_parse("0-7", &a), 0);
        assert_int_equal(cpulist_parse("8-15", &b), 0);
        assert_int_equal(cpulist_parse("4-5", &c), 0);
        assert_false(cpulist_intersects(&a, &b));
        assert_true(cpulist_intersects(&a, &c));
        assert_true(cpulist_is_subset(&c, &a));
        assert_false(cpulist_is_subset(&a, &c));
        assert_int_equal(cpulist_count(&a), 8);
        cpulist_union(&a, &b);
        assert_int_equal(cpulist_count(&a), 16);
        assert_int_equal(cpulist_next(&b, -1), 8);
        assert_int_equal(cpulist_next(&b, 15), -1);
        char small[3];
        assert_int_equal(cpulist_format(&a, small, sizeof small), -ENOBUFS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_format),
                cmocka_unit_test(test_parse_rejects),
                cmocka_unit_test(test_set_ops),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
