/* sha256.c: SHA-256 as FIPS 180-4 specifies it (section 6.2), 64-byte blocks straight from the
 * caller's buffer. Where the CPU has the x86 SHA extensions (Intel since Goldmont and Ice Lake,
 * AMD since Zen) the rounds run on them, some seven times faster than the portable rounds: the
 * hash was more than half of a bundle import's CPU time (issue 29). */
#include "basic/sha256.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI_CODE 1
#endif

static const uint32_t round_constants[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) {
        return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v) {
        p[0] = (uint8_t) (v >> 24);
        p[1] = (uint8_t) (v >> 16);
        p[2] = (uint8_t) (v >> 8);
        p[3] = (uint8_t) v;
}

static void compress_portable(uint32_t state[8], const uint8_t block[SHA256_BLOCK_SIZE]) {
        uint32_t w[64];
        for (unsigned t = 0; t < 16; t++)
                w[t] = load_be32(block + 4 * t);
        for (unsigned t = 16; t < 64; t++) {
                uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
                uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
                w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (unsigned t = 0; t < 64; t++) {
                uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                              round_constants[t] + w[t];
                uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
                h = g;
                g = f;
                f = e;
                e = d + t1;
                d = c;
                c = b;
                b = a;
                a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
}

#ifdef HAVE_SHA_NI_CODE
/* The state as the SHA instructions hold it: ABEF and CDGH, each from its highest lane down. */
__attribute__((target("sha,sse4.1"))) static void compress_sha_ni(uint32_t state[8], const uint8_t *data, size_t blocks) {
        const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
        __m128i dcba = _mm_loadu_si128((const __m128i *) &state[0]);
        __m128i hgfe = _mm_loadu_si128((const __m128i *) &state[4]);
        __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1), efgh = _mm_shuffle_epi32(hgfe, 0x1b);
        __m128i abef = _mm_alignr_epi8(cdab, efgh, 8), cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
        for (; blocks > 0; blocks--, data += SHA256_BLOCK_SIZE) {
                const __m128i abef_in = abef, cdgh_in = cdgh;
                /* w[k % 4] holds the schedule's words 4k to 4k + 3. */
                __m128i w[4];
#pragma GCC unroll 16
                for (unsigned k = 0; k < 16; k++) {
                        if (k < 4)
                                w[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (data + 16 * k)), byte_swap);
                        else {
                                /* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time. */
                                __m128i t7 = _mm_alignr_epi8(w[(k + 3) % 4], w[(k + 2) % 4], 4);
                                __m128i sum = _mm_add_epi32(_mm_sha256msg1_epu32(w[k % 4], w[(k + 1) % 4]), t7);
                                w[k % 4] = _mm_sha256msg2_epu32(sum, w[(k + 3) % 4]);
                        }
                        __m128i wk = _mm_add_epi32(w[k % 4], _mm_loadu_si128((const __m128i *) &round_constants[4 * k]));
                        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
                        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
                }
                abef = _mm_add_epi32(abef, abef_in);
                cdgh = _mm_add_epi32(cdgh, cdgh_in);
        }
        __m128i feba = _mm_shuffle_epi32(abef, 0x1b), dchg = _mm_shuffle_epi32(cdgh, 0xb1);
        _mm_storeu_si128((__m128i *) &state[0], _mm_blend_epi16(feba, dchg, 0xf0));
        _mm_storeu_si128((__m128i *) &state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* 1 the CPU has the SHA extensions (and SSSE3/SSE4.1 they come with), 0 not, -1 not asked yet. */
static int sha_ni_state = -1;
static bool sha_ni_allowed = true;

static bool cpu_has_sha_ni(void) {
        int known = __atomic_load_n(&sha_ni_state, __ATOMIC_RELAXED);
        if (known < 0) {
                unsigned a, b, c, d;
                bool sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
                bool sse = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3);
                known = sha && sse;
                __atomic_store_n(&sha_ni_state, known, __ATOMIC_RELAXED);
        }
        return known && __atomic_load_n(&sha_ni_allowed, __ATOMIC_RELAXED);
}
#endif

static void compress_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
#ifdef HAVE_SHA_NI_CODE
        if (cpu_has_sha_ni()) {
                compress_sha_ni(state, data, blocks);
                return;
        }
#endif
        for (; blocks > 0; blocks--, data += SHA256_BLOCK_SIZE)
                compress_portable(state, data);
}

void sha256_allow_cpu_instructions(bool allow) {
#ifdef HAVE_SHA_NI_CODE
        __atomic_store_n(&sha_ni_allowed, allow, __ATOMIC_RELAXED);
#else
        (void) allow;
#endif
}

void sha256_init(struct sha256_ctx *ctx) {
        static const uint32_t initial[8] = {
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        };
        memcpy(ctx->state, initial, sizeof initial);
        ctx->length = 0;
        ctx->block_used = 0;
}

void sha256_update(struct sha256_ctx *ctx, size_t len, const uint8_t *data) {
        ctx->length += len;
        if (ctx->block_used > 0) {
                size_t take = SHA256_BLOCK_SIZE - ctx->block_used;
                if (take > len)
                        take = len;
                memcpy(ctx->block + ctx->block_used, data, take);
                ctx->block_used += take;
                data += take;
                len -= take;
                if (ctx->block_used < SHA256_BLOCK_SIZE)
                        return;
                compress_blocks(ctx->state, ctx->block, 1);
                ctx->block_used = 0;
        }
        /* Whole blocks straight from the caller's buffer: no copy on the bulk of a file. */
        size_t blocks = len / SHA256_BLOCK_SIZE;
        compress_blocks(ctx->state, data, blocks);
        data += blocks * SHA256_BLOCK_SIZE;
        len -= blocks * SHA256_BLOCK_SIZE;
        memcpy(ctx->block, data, len);
        ctx->block_used = len;
}

void sha256_digest(struct sha256_ctx *ctx, size_t len, uint8_t *digest) {
        uint64_t bits = ctx->length * 8;
        /* Padding: 0x80, zeros up to 56 bytes into a block, then the message length in bits. */
        ctx->block[ctx->block_used++] = 0x80;
        if (ctx->block_used > SHA256_BLOCK_SIZE - 8) {
                memset(ctx->block + ctx->block_used, 0, SHA256_BLOCK_SIZE - ctx->block_used);
                compress_blocks(ctx->state, ctx->block, 1);
                ctx->block_used = 0;
        }
        memset(ctx->block + ctx->block_used, 0, SHA256_BLOCK_SIZE - 8 - ctx->block_used);
        store_be32(ctx->block + 56, (uint32_t) (bits >> 32));
        store_be32(ctx->block + 60, (uint32_t) bits);
        compress_blocks(ctx->state, ctx->block, 1);

        uint8_t full[SHA256_DIGEST_SIZE];
        for (unsigned i = 0; i < 8; i++)
                store_be32(full + 4 * i, ctx->state[i]);
        memcpy(digest, full, len < sizeof full ? len : sizeof full);
        sha256_init(ctx);
}
