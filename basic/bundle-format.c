/* bundle-format.c: framing and checking bundles (see bundle-format.h). */
#include "basic/bundle-format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/utf8.h"

int bundle_buf_put(struct bundle_buf *b, const void *p, size_t n) {
        if (b->len + n > b->cap) {
                size_t cap = MAX(b->cap * 2, b->len + n + 4096);
                uint8_t *d = realloc(b->data, cap);
                if (!d)
                        return -ENOMEM;
                b->data = d;
                b->cap = cap;
        }
        if (n)
                memcpy(b->data + b->len, p, n);
        b->len += n;
        return 0;
}

static void put_le(uint8_t *p, uint64_t v, size_t n) {
        for (size_t i = 0; i < n; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, size_t n) {
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++)
                v |= (uint64_t) p[i] << (8 * i);
        return v;
}

uint16_t bundle_get_u16(const uint8_t *p) {
        return (uint16_t) get_le(p, 2);
}

uint32_t bundle_get_u32(const uint8_t *p) {
        return (uint32_t) get_le(p, 4);
}

uint64_t bundle_get_u64(const uint8_t *p) {
        return get_le(p, 8);
}

static int buf_put_le(struct bundle_buf *b, uint64_t v, size_t n) {
        uint8_t tmp[8];
        put_le(tmp, v, n);
        return bundle_buf_put(b, tmp, n);
}

int bundle_buf_put_u8(struct bundle_buf *b, uint8_t v) {
        return bundle_buf_put(b, &v, 1);
}

int bundle_buf_put_u16(struct bundle_buf *b, uint16_t v) {
        return buf_put_le(b, v, 2);
}

int bundle_buf_put_u32(struct bundle_buf *b, uint32_t v) {
        return buf_put_le(b, v, 4);
}

int bundle_buf_put_u64(struct bundle_buf *b, uint64_t v) {
        return buf_put_le(b, v, 8);
}

void bundle_buf_done(struct bundle_buf *b) {
        free(b->data);
        *b = (struct bundle_buf){ 0 };
}

size_t bundle_put_header(uint8_t *buf) {
        memcpy(buf, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
        put_le(buf + BUNDLE_MAGIC_LEN, BUNDLE_VERSION, 4);
        return BUNDLE_HEADER_LEN;
}

int bundle_put_entry_head(uint8_t *buf, const char *name, uint64_t len) {
        size_t n = strlen(name);
        if (n == 0 || n > BUNDLE_NAME_MAX)
                return -EINVAL;
        buf[0] = 'E';
        put_le(buf + 1, n, 2);
        memcpy(buf + 3, name, n);
        put_le(buf + 3 + n, len, 8);
        return (int) (3 + n + 8);
}

size_t bundle_put_end(uint8_t *buf, uint64_t entries, struct sha256_ctx *whole) {
        buf[0] = 'Z';
        put_le(buf + 1, entries, 8);
        sha256_update(whole, 9, buf);
        sha256_digest(whole, BUNDLE_HASH_LEN, buf + 9);
        return BUNDLE_END_LEN;
}

static int check_header(const uint8_t *buf, size_t len, struct error *err) {
        if (len < BUNDLE_HEADER_LEN || memcmp(buf, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN) != 0)
                return error_set(err, 400, "invalid_bundle", "bundle",
                                 "not a slicelab bundle: it does not start with \"" BUNDLE_MAGIC "\" and a format version");
        uint32_t version = bundle_get_u32(buf + BUNDLE_MAGIC_LEN);
        if (version == 0 || version > BUNDLE_VERSION)
                return error_set(err, 400, "unsupported_version", "bundle.version",
                                 "bundle format version %" PRIu32 " is not one this daemon reads (it reads up to %d)",
                                 version, BUNDLE_VERSION);
        return 0;
}

/* One entry's framing at *pos: its name and where its bytes are. */
static int parse_entry(const uint8_t *buf, size_t len, size_t *pos, struct bundle_entry *e, struct error *err) {
        size_t p = *pos;
        if (len - p < 3)
                return error_set(err, 400, "invalid_bundle", "bundle", "truncated at byte %zu: an entry's head is cut", p);
        size_t n = bundle_get_u16(buf + p + 1);
        if (n == 0 || n > BUNDLE_NAME_MAX)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry at byte %zu: its name length %zu is not 1 to %d",
                                 p, n, BUNDLE_NAME_MAX);
        if (len - p - 3 < n + 8)
                return error_set(err, 400, "invalid_bundle", "bundle", "truncated at byte %zu: an entry's head is cut", p);
        memcpy(e->name, buf + p + 3, n);
        e->name[n] = '\0';
        /* Names are echoed in refusals (JSON) and become file names: text, nothing else. */
        for (size_t i = 0; i < n; i++)
                if ((uint8_t) e->name[i] < 0x20 || e->name[i] == 0x7f)
                        return error_set(err, 400, "invalid_bundle", "bundle", "entry at byte %zu: its name holds a control character",
                                         p);
        if (!utf8_valid(e->name, n))
                return error_set(err, 400, "invalid_bundle", "bundle", "entry at byte %zu: its name is not UTF-8", p);
        e->len = bundle_get_u64(buf + p + 3 + n);
        p += 3 + n + 8;
        if (e->len > len - p || len - p - e->len < BUNDLE_HASH_LEN)
                return error_set(err, 400, "invalid_bundle", "bundle",
                                 "entry %.*s: truncated (its %" PRIu64 " bytes and hash end past the bundle's %zu bytes)",
                                 UTF8_PREFIX(e->name, 200), e->len, len);
        e->data = buf + p;
        *pos = p + e->len + BUNDLE_HASH_LEN;
        return 0;
}

int bundle_check(const uint8_t *buf, size_t len, struct error *err) {
        if (check_header(buf, len, err) < 0)
                return -EINVAL;
        size_t pos = BUNDLE_HEADER_LEN;
        uint64_t count = 0;
        struct sha256_ctx whole;
        sha256_init(&whole);
        sha256_update(&whole, BUNDLE_HEADER_LEN, buf);
        for (;;) {
                if (pos >= len)
                        return error_set(err, 400, "invalid_bundle", "bundle", "truncated: no end marker after %" PRIu64 " entries",
                                         count);
                if (buf[pos] == 'Z')
                        break;
                if (buf[pos] != 'E')
                        return error_set(err, 400, "invalid_bundle", "bundle", "byte %zu: neither an entry nor the end marker", pos);
                struct bundle_entry e;
                size_t head = pos;
                if (parse_entry(buf, len, &pos, &e, err) < 0)
                        return -EINVAL;
                sha256_update(&whole, (size_t) (e.data - buf) - head, buf + head);
                sha256_update(&whole, BUNDLE_HASH_LEN, e.data + e.len);
                uint8_t digest[BUNDLE_HASH_LEN];
                struct sha256_ctx ctx;
                sha256_init(&ctx);
                sha256_update(&ctx, e.len, e.data);
                sha256_digest(&ctx, sizeof digest, digest);
                if (memcmp(digest, e.data + e.len, BUNDLE_HASH_LEN) != 0)
                        return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: sha256 mismatch", e.name);
                count++;
        }
        if (len - pos < BUNDLE_END_LEN)
                return error_set(err, 400, "invalid_bundle", "bundle", "truncated: the end marker is cut");
        if (len - pos > BUNDLE_END_LEN)
                return error_set(err, 400, "invalid_bundle", "bundle", "%zu bytes follow the end marker", len - pos - BUNDLE_END_LEN);
        if (bundle_get_u64(buf + pos + 1) != count)
                return error_set(err, 400, "invalid_bundle", "bundle", "the end marker counts %" PRIu64 " entries, the bundle has %" PRIu64,
                                 bundle_get_u64(buf + pos + 1), count);
        uint8_t digest[BUNDLE_HASH_LEN];
        sha256_update(&whole, 9, buf + pos);
        sha256_digest(&whole, sizeof digest, digest);
        if (memcmp(digest, buf + pos + 9, BUNDLE_HASH_LEN) != 0)
                return error_set(err, 400, "invalid_bundle", "bundle", "the end marker's sha256 (of the header and every entry's head and hash) does not match");
        return 0;
}

int bundle_next(const uint8_t *buf, size_t len, size_t *pos, struct bundle_entry *ret) {
        if (*pos == 0)
                *pos = BUNDLE_HEADER_LEN;
        if (*pos >= len || buf[*pos] != 'E')
                return 0;
        struct error err;
        return parse_entry(buf, len, pos, ret, &err) < 0 ? -EBADMSG : 1;
}
