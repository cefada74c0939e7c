/* bundle-format.h: the container of an experiment's bundle (GET /v1/experiments/{id}/bundle,
 * POST /v1/imports): a versioned sequence of named entries, each with its length and SHA-256,
 * closed by an end marker holding the entry count and the SHA-256 of everything before it.
 *
 *   header   "SLBUNDLE" (8 bytes), u32 format version
 *   entry    'E', u16 name length, name (UTF-8, no control character), u64 length, the bytes, SHA-256 of the bytes
 *   end      'Z', u64 number of entries, SHA-256 of every byte of the bundle before this hash
 *            except the entries' bytes (the header, each entry's head and hash, 'Z' and the count)
 *
 * Integers are little-endian. The hash follows the bytes so that a writer can stream a file
 * whose length it knows without reading it twice. The end's hash covers the entries through
 * their hashes, so every byte is hashed once: a bundle is checked at the speed of one SHA-256. What the entries hold is the business of the
 * layers above (storage/bundle-rows.h, api/bundle.c); this file only frames and checks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/sha256.h"

#include "basic/error.h"

#define BUNDLE_MAGIC "SLBUNDLE"
#define BUNDLE_MAGIC_LEN 8
#define BUNDLE_VERSION 1
#define BUNDLE_HEADER_LEN (BUNDLE_MAGIC_LEN + 4)
#define BUNDLE_NAME_MAX 255
#define BUNDLE_HASH_LEN SHA256_DIGEST_SIZE
/* 'E', name length, name, length: what precedes an entry's bytes. */
#define BUNDLE_ENTRY_HEAD_MAX (1 + 2 + BUNDLE_NAME_MAX + 8)
#define BUNDLE_END_LEN (1 + 8 + BUNDLE_HASH_LEN)
#define BUNDLE_MEDIA_TYPE "application/vnd.slicelab.bundle"

/* A growable byte buffer for entries built in memory. */
struct bundle_buf {
        uint8_t *data;
        size_t len, cap;
};
int bundle_buf_put(struct bundle_buf *b, const void *p, size_t n);
int bundle_buf_put_u8(struct bundle_buf *b, uint8_t v);
int bundle_buf_put_u16(struct bundle_buf *b, uint16_t v);
int bundle_buf_put_u32(struct bundle_buf *b, uint32_t v);
int bundle_buf_put_u64(struct bundle_buf *b, uint64_t v);
void bundle_buf_done(struct bundle_buf *b);

/* Writing: the header, an entry's head (the caller then writes len bytes and the hash of them),
 * the end marker from the hash of what it covers (all bytes written before it but the entries'). Each returns bytes written into
 * buf, which must hold BUNDLE_HEADER_LEN / BUNDLE_ENTRY_HEAD_MAX / BUNDLE_END_LEN; -EINVAL for
 * a name that is empty or too long. */
size_t bundle_put_header(uint8_t *buf);
int bundle_put_entry_head(uint8_t *buf, const char *name, uint64_t len);
size_t bundle_put_end(uint8_t *buf, uint64_t entries, struct sha256_ctx *whole);

/* Reading a bundle held in memory. bundle_check() verifies all of it before anything is used:
 * the magic, the version (a newer one: 400 field "bundle.version"), every entry's framing and
 * hash (400 naming the entry: "entry runs/x/timeline.bin: sha256 mismatch"), every name UTF-8
 * without control characters, the end marker,
 * its count and the whole hash, and that nothing follows it. */
int bundle_check(const uint8_t *buf, size_t len, struct error *err);

struct bundle_entry {
        char name[BUNDLE_NAME_MAX + 1];
        const uint8_t *data;
        uint64_t len;
};
/* Entries of a checked bundle in order: *pos starts at 0; 1 with *ret, 0 after the last. */
int bundle_next(const uint8_t *buf, size_t len, size_t *pos, struct bundle_entry *ret);

/* Little-endian readers for the layers that decode entries. */
uint16_t bundle_get_u16(const uint8_t *p);
uint32_t bundle_get_u32(const uint8_t *p);
uint64_t bundle_get_u64(const uint8_t *p);
