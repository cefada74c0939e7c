/* test-sha256.c: basic/sha256 against FIPS 180-4's examples and the million-'a' vector, whole
 * and fed in pieces of every size, which a streamed bundle does; with the CPU's SHA instructions
 * where it has them and with the portable rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "basic/sha256.h"

static void hex(const uint8_t *d, char out[2 * SHA256_DIGEST_SIZE + 1]) {
        for (size_t i = 0; i < SHA256_DIGEST_SIZE; i++)
                snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check(const uint8_t *data, size_t len, size_t piece, const char *expected) {
        struct sha256_ctx ctx;
        sha256_init(&ctx);
        for (size_t off = 0; off < len;) {
                size_t n = len - off < piece ? len - off : piece;
                sha256_update(&ctx, n, data + off);
                off += n;
        }
        uint8_t digest[SHA256_DIGEST_SIZE];
        char text[2 * SHA256_DIGEST_SIZE + 1];
        sha256_digest(&ctx, sizeof digest, digest);
        hex(digest, text);
        assert_string_equal(text, expected);
}

static void test_vectors(void **state) {
        static const struct {
                const char *message;
                const char *digest;
        } vectors[] = {
                { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
                { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
                { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
        };
        for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
                for (size_t piece = 1; piece <= 65; piece++)
                        check((const uint8_t *) vectors[i].message, strlen(vectors[i].message), piece,
                              vectors[i].digest);
}

static void test_million_a(void **state) {
        size_t len = 1000000;
        uint8_t *a = malloc(len);
        assert_non_null(a);
        memset(a, 'a', len);
        static const size_t pieces[] = { 1, 63, 64, 65, 4096, 1000000 };
        for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
                check(a, len, pieces[i], "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        free(a);
}

/* Lengths around the padding's edge (55, 56, 64 and 129 bytes) against sha256sum's answers. */
static void test_padding_edges(void **state) {
        uint8_t zeros[130] = { 0 };
        check(zeros, 55, 55, "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7");
        check(zeros, 56, 56, "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb");
        check(zeros, 64, 64, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b");
        check(zeros, 129, 7, "2c80619d7e7c58257293cda3a878c13e5856f4e06f6f90601276f7b9179c9e07");
}

static int with_cpu_instructions(void **state) {
        sha256_allow_cpu_instructions(true);
        return 0;
}

static int portable_only(void **state) {
        sha256_allow_cpu_instructions(false);
        return 0;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_vectors, with_cpu_instructions),
                cmocka_unit_test_setup(test_million_a, with_cpu_instructions),
                cmocka_unit_test_setup(test_padding_edges, with_cpu_instructions),
                cmocka_unit_test_setup(test_vectors, portable_only),
                cmocka_unit_test_setup(test_million_a, portable_only),
                cmocka_unit_test_setup(test_padding_edges, portable_only),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
