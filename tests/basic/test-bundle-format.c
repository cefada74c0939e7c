/* test-bundle-format.c: the bundle container. A bundle made with the writer's pieces is read back
 * entry by entry; cut at any byte, or with any one byte changed, it is refused, and the message
 * names what failed; a newer version is refused by its field; a name that is not text is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "basic/bundle-format.h"

static void put_entry(struct bundle_buf *b, struct sha256_ctx *whole, const char *name, const char *data) {
        uint8_t head[BUNDLE_ENTRY_HEAD_MAX], digest[BUNDLE_HASH_LEN];
        int n = bundle_put_entry_head(head, name, strlen(data));
        assert_true(n > 0);
        struct sha256_ctx ctx;
        sha256_init(&ctx);
        sha256_update(&ctx, strlen(data), (const uint8_t *) data);
        sha256_digest(&ctx, sizeof digest, digest);
        sha256_update(whole, (size_t) n, head);
        sha256_update(whole, sizeof digest, digest);
        assert_int_equal(bundle_buf_put(b, head, (size_t) n), 0);
        assert_int_equal(bundle_buf_put(b, data, strlen(data)), 0);
        assert_int_equal(bundle_buf_put(b, digest, sizeof digest), 0);
}

static struct bundle_buf make_named(const char *name) {
        struct bundle_buf b = { 0 };
        struct sha256_ctx whole;
        uint8_t header[BUNDLE_HEADER_LEN], end[BUNDLE_END_LEN];
        sha256_init(&whole);
        sha256_update(&whole, bundle_put_header(header), header);
        assert_int_equal(bundle_buf_put(&b, header, sizeof header), 0);
        put_entry(&b, &whole, "bundle.json", "{\"format\":\"slicelab-bundle\"}");
        put_entry(&b, &whole, name, "hello\n");
        assert_int_equal(bundle_buf_put(&b, end, bundle_put_end(end, 2, &whole)), 0);
        return b;
}

static struct bundle_buf make(void) {
        return make_named("runs/abcdefghijkl/sut.log");
}

static void test_round_trip(void **state) {
        _cleanup_(bundle_buf_done) struct bundle_buf b = make();
        struct error err = { 0 };
        assert_int_equal(bundle_check(b.data, b.len, &err), 0);
        size_t pos = 0;
        struct bundle_entry e;
        assert_int_equal(bundle_next(b.data, b.len, &pos, &e), 1);
        assert_string_equal(e.name, "bundle.json");
        assert_int_equal(bundle_next(b.data, b.len, &pos, &e), 1);
        assert_string_equal(e.name, "runs/abcdefghijkl/sut.log");
        assert_int_equal(e.len, 6);
        assert_memory_equal(e.data, "hello\n", 6);
        assert_int_equal(bundle_next(b.data, b.len, &pos, &e), 0);
}

static void test_every_cut_refused(void **state) {
        _cleanup_(bundle_buf_done) struct bundle_buf b = make();
        for (size_t len = 0; len < b.len; len++) {
                struct error err = { 0 };
                assert_int_equal(bundle_check(b.data, len, &err), -EINVAL);
                assert_int_equal(err.status, 400);
        }
        struct error err = { 0 };
        assert_int_equal(bundle_check(b.data, b.len - 10, &err), -EINVAL);
        assert_string_equal(err.message, "truncated: the end marker is cut");
}

static void test_every_flip_refused(void **state) {
        _cleanup_(bundle_buf_done) struct bundle_buf b = make();
        for (size_t i = 0; i < b.len; i++) {
                struct error err = { 0 };
                b.data[i] ^= 0x01;
                assert_int_equal(bundle_check(b.data, b.len, &err), -EINVAL);
                b.data[i] ^= 0x01;
        }
        /* The 'l' of "hello" in the second entry's bytes. */
        uint8_t *p = memmem(b.data, b.len, "hello", 5);
        p[2] ^= 0x20;
        struct error err = { 0 };
        assert_int_equal(bundle_check(b.data, b.len, &err), -EINVAL);
        assert_string_equal(err.message, "entry runs/abcdefghijkl/sut.log: sha256 mismatch");
}

static void test_newer_version(void **state) {
        _cleanup_(bundle_buf_done) struct bundle_buf b = make();
        b.data[BUNDLE_MAGIC_LEN] = BUNDLE_VERSION + 1;
        struct error err = { 0 };
        assert_int_equal(bundle_check(b.data, b.len, &err), -EINVAL);
        assert_string_equal(err.field, "bundle.version");
        /* Bytes after the end are refused too: a bundle is one thing. */
        b.data[BUNDLE_MAGIC_LEN] = BUNDLE_VERSION;
        assert_int_equal(bundle_buf_put_u8(&b, 0), 0);
        assert_int_equal(bundle_check(b.data, b.len, &err), -EINVAL);
}

/* A name is text: sealed with its hashes or not, bytes that are not UTF-8 or are control
 * characters are refused (refusals echo names, imports make files of them). */
static void test_name_not_text(void **state) {
        static const char *const names[] = { "runs/abcdefghijkl/\xff\xfe", "runs/abcdefghijkl/a\x1b[2J", "caf\xc3",
                                              "tables/runs/000000\x7f" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_(bundle_buf_done) struct bundle_buf b = make_named(names[i]);
                struct error err = { 0 };
                assert_int_equal(bundle_check(b.data, b.len, &err), -EINVAL);
                assert_int_equal(err.status, 400);
                assert_non_null(strstr(err.message, "its name"));
        }
        _cleanup_(bundle_buf_done) struct bundle_buf b = make_named("runs/abcdefghijkl/caf\xc3\xa9.log");
        struct error err = { 0 };
        assert_int_equal(bundle_check(b.data, b.len, &err), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_every_cut_refused),
                cmocka_unit_test(test_every_flip_refused),
                cmocka_unit_test(test_newer_version),
                cmocka_unit_test(test_name_not_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
