/* hdr-histogram.c: bucket layout and V2 encoding of the HdrHistogram format.
 *
 * Layout: with lowest value 1 (unit magnitude 0) and 3 significant digits, a sub-bucket holds
 * 2048 values (the smallest power of two >= 2 * 10^3); bucket b covers [1024 << b, 2048 << b)
 * in steps of 1 << b, bucket 0 also [0, 1024). The counts array is laid out as the format
 * defines it, so the index of a value is the one a decoder expects.
 *
 * Encoding (all big-endian): cookie, payload length, normalizing index offset (0), significant
 * digits, lowest and highest trackable values (64-bit), integer-to-double ratio (1.0, as a
 * 64-bit IEEE double), then the counts up to the highest in use as ZigZag LEB128, a run of n > 1
 * zero counts written as -n. Compressed: cookie, length of the zlib stream, the zlib stream of
 * the whole uncompressed encoding. */
#include "basic/hdr-histogram.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "basic/macro.h"

#define SUB_BUCKET_HALF_MAGNITUDE 10
#define SUB_BUCKET_COUNT (1 << (SUB_BUCKET_HALF_MAGNITUDE + 1))
#define SUB_BUCKET_HALF (SUB_BUCKET_COUNT / 2)
#define BUCKET_COUNT 22         /* 2048 << 21 > HDR_HIGHEST */
#define HDR_COUNTS_LEN ((BUCKET_COUNT + 1) * SUB_BUCKET_HALF)
#define COOKIE_V2 (0x1c849303u | 0x10u)
#define COOKIE_V2_COMPRESSED (0x1c849304u | 0x10u)
#define HEADER_SIZE 40
#define LEB128_MAX 9

static_assert(((int64_t) SUB_BUCKET_COUNT << (BUCKET_COUNT - 1)) > HDR_HIGHEST, "buckets cover the range");
static_assert(((int64_t) SUB_BUCKET_COUNT << (BUCKET_COUNT - 2)) <= HDR_HIGHEST, "no bucket too many");

static size_t counts_index(int64_t v) {
        /* The bucket is the position of the highest set bit above the sub-bucket's range. */
        int bucket = 63 - __builtin_clzll((uint64_t) v | (SUB_BUCKET_COUNT - 1)) - SUB_BUCKET_HALF_MAGNITUDE;
        int64_t sub = v >> bucket;
        return (size_t) ((((int64_t) bucket + 1) << SUB_BUCKET_HALF_MAGNITUDE) + sub - SUB_BUCKET_HALF);
}

int hdr_init(struct hdr_histogram *h) {
        int64_t *c = calloc(HDR_COUNTS_LEN, sizeof *c);
        if (!c)
                return -ENOMEM;
        *h = (struct hdr_histogram){ .counts = c };
        return 0;
}

void hdr_done(struct hdr_histogram *h) {
        free(h->counts);
        h->counts = NULL;
}

void hdr_reset(struct hdr_histogram *h) {
        memset(h->counts, 0, (h->max_index + 1) * sizeof *h->counts);
        h->total = h->max = 0;
        h->max_index = 0;
}

void hdr_record(struct hdr_histogram *h, int64_t value) {
        int64_t v = MIN(MAX(value, 0), HDR_HIGHEST);
        size_t i = counts_index(v);
        h->counts[i]++;
        h->total++;
        h->max = MAX(h->max, v);
        h->max_index = MAX(h->max_index, i);
}

static uint8_t *put_be32(uint8_t *p, uint32_t v) {
        for (int i = 3; i >= 0; i--)
                *p++ = (uint8_t) (v >> (8 * i));
        return p;
}

static uint8_t *put_be64(uint8_t *p, uint64_t v) {
        for (int i = 7; i >= 0; i--)
                *p++ = (uint8_t) (v >> (8 * i));
        return p;
}

/* ZigZag then LEB128; the ninth byte, if reached, carries 8 bits. */
static uint8_t *put_zigzag(uint8_t *p, int64_t v) {
        uint64_t z = ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
        for (int i = 0; i < LEB128_MAX - 1; i++) {
                if (z < 0x80) {
                        *p++ = (uint8_t) z;
                        return p;
                }
                *p++ = (uint8_t) ((z & 0x7f) | 0x80);
                z >>= 7;
        }
        *p++ = (uint8_t) z;
        return p;
}

/* The uncompressed V2 encoding into buf (HEADER_SIZE + LEB128_MAX per count is enough). */
static size_t encode_plain(const struct hdr_histogram *h, uint8_t *buf) {
        uint8_t *p = buf + HEADER_SIZE;
        size_t n = h->max_index + 1;
        for (size_t i = 0; i < n;) {
                size_t zeros = 0;
                while (i + zeros < n && h->counts[i + zeros] == 0)
                        zeros++;
                if (zeros > 1) {
                        p = put_zigzag(p, -(int64_t) zeros);
                        i += zeros;
                } else
                        p = put_zigzag(p, h->counts[i++]);
        }
        size_t payload = (size_t) (p - buf) - HEADER_SIZE;
        double ratio = 1.0;
        uint64_t ratio_bits;
        memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
        uint8_t *q = put_be32(buf, COOKIE_V2);
        q = put_be32(q, (uint32_t) payload);
        q = put_be32(q, 0);
        q = put_be32(q, HDR_SIGNIFICANT_DIGITS);
        q = put_be64(q, HDR_LOWEST);
        q = put_be64(q, HDR_HIGHEST);
        put_be64(q, ratio_bits);
        return HEADER_SIZE + payload;
}

static char *base64(const uint8_t *in, size_t n) {
        static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        char *out = malloc((n + 2) / 3 * 4 + 1);
        if (!out)
                return NULL;
        char *p = out;
        for (size_t i = 0; i < n; i += 3) {
                uint32_t v = (uint32_t) in[i] << 16;
                if (i + 1 < n)
                        v |= (uint32_t) in[i + 1] << 8;
                if (i + 2 < n)
                        v |= in[i + 2];
                *p++ = alphabet[(v >> 18) & 63];
                *p++ = alphabet[(v >> 12) & 63];
                *p++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
                *p++ = i + 2 < n ? alphabet[v & 63] : '=';
        }
        *p = '\0';
        return out;
}

int hdr_encode_base64(const struct hdr_histogram *h, char **ret) {
        _cleanup_free_ uint8_t *plain = malloc(HEADER_SIZE + (h->max_index + 1) * LEB128_MAX);
        if (!plain)
                return -ENOMEM;
        size_t plain_len = encode_plain(h, plain);
        uLongf zlen = compressBound(plain_len);
        _cleanup_free_ uint8_t *out = malloc(8 + zlen);
        if (!out)
                return -ENOMEM;
        if (compress2(out + 8, &zlen, plain, plain_len, Z_DEFAULT_COMPRESSION) != Z_OK)
                return -EIO;
        uint8_t *q = put_be32(out, COOKIE_V2_COMPRESSED);
        put_be32(q, (uint32_t) zlen);
        char *b = base64(out, 8 + zlen);
        if (!b)
                return -ENOMEM;
        *ret = b;
        return 0;
}
