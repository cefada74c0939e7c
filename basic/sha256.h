/* sha256.h: SHA-256 (FIPS 180-4), the checksum of bundles. Written here so that the bundle's
 * integrity needs no library beyond the project's own stack. Streaming: init, update any number
 * of times, digest. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_BLOCK_SIZE 64

struct sha256_ctx {
        uint32_t state[8];
        uint64_t length;                        /* bytes hashed so far */
        uint8_t block[SHA256_BLOCK_SIZE];       /* a partial block, block_used bytes of it */
        size_t block_used;
};

void sha256_init(struct sha256_ctx *ctx);
void sha256_update(struct sha256_ctx *ctx, size_t len, const uint8_t *data);
/* false: hash with the portable code even where the CPU has SHA instructions (for the tests,
 * which check both); true (the default): use them where present. */
void sha256_allow_cpu_instructions(bool allow);
/* Writes the first len (at most SHA256_DIGEST_SIZE) bytes of the digest and starts ctx anew. */
void sha256_digest(struct sha256_ctx *ctx, size_t len, uint8_t *digest);
