/* test-intern: basic/intern.h's table of distinct names (dense ids in first-seen order, found
 * again by their bytes alone, through growth of its slots) and basic/hash.h's FNV-1a against
 * the published test vectors (its values are stored: they must never change). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/hash.h"
#include "basic/intern.h"

static void test_fnv1a64(void **state) {
        assert_true(fnv1a64("", 0) == UINT64_C(0xcbf29ce484222325));
        assert_true(fnv1a64("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
        assert_true(fnv1a64("foobar", 6) == UINT64_C(0x85944171f73967e8));
        /* in pieces, and byte by byte, as the dashboard's files are hashed */
        assert_true(fnv1a64_add(fnv1a64("foo", 3), "bar", 3) == fnv1a64("foobar", 6));
        uint64_t h = FNV1A64_OFFSET;
        for (const char *c = "foobar"; *c; c++)
                h = fnv1a64_byte(h, (unsigned char) *c);
        assert_true(h == fnv1a64("foobar", 6));
}

/* s[0, len) added: want_r 1 when new, 0 when there; want_id its id. */
static void add(struct intern *t, const char *s, size_t len, int want_r, uint32_t want_id) {
        uint32_t id = UINT32_MAX;
        assert_int_equal(intern_add(t, s, len, &id), want_r);
        assert_int_equal(id, want_id);
}

static void test_ids(void **state) {
        struct intern t;
        intern_init(&t);
        uint32_t id = 99;
        assert_int_equal(intern_find(&t, "a", 1, &id), -ENOENT);
        assert_int_equal(id, 99);
        add(&t, "main", 4, 1, 0);
        add(&t, "mainly", 6, 1, 1);
        add(&t, "main", 4, 0, 0);
        /* a prefix, the empty name and a NUL inside are names of their own */
        add(&t, "mainly", 4, 0, 0);
        add(&t, "", 0, 1, 2);
        add(&t, "a\0b", 3, 1, 3);
        add(&t, "a\0c", 3, 1, 4);
        assert_int_equal(intern_find(&t, "a\0b", 3, &id), 0);
        assert_int_equal(id, 3);
        assert_int_equal(intern_count(&t), 5);
        assert_string_equal(intern_name(&t, 1), "mainly");
        assert_int_equal(intern_len(&t, 1), 6);
        assert_int_equal(intern_len(&t, 3), 3);
        assert_memory_equal(intern_name(&t, 3), "a\0b", 4); /* kept NUL-terminated */
        intern_done(&t);
        assert_int_equal(intern_count(&t), 0);
}

/* Far past the first slots: every name keeps its id and is found again. */
static void test_growth(void **state) {
        struct intern t;
        intern_init(&t);
        enum { N = 100000 };
        char name[32];
        for (uint32_t i = 0; i < N; i++) {
                int n = snprintf(name, sizeof name, "com.example.Frame%u.run", i);
                add(&t, name, (size_t) n, 1, i);
        }
        for (uint32_t i = 0; i < N; i += 7) {
                int n = snprintf(name, sizeof name, "com.example.Frame%u.run", i);
                uint32_t id;
                assert_int_equal(intern_find(&t, name, (size_t) n, &id), 0);
                assert_int_equal(id, i);
                assert_string_equal(intern_name(&t, id), name);
        }
        assert_int_equal(intern_count(&t), N);
        intern_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fnv1a64),
                cmocka_unit_test(test_ids),
                cmocka_unit_test(test_growth),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
