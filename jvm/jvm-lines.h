/* jvm-lines.h: reading text the JVM wrote, for the JVM parsers (PrintFlagsFinal on the SUT's
 * stdout, the unified GC log, hsperfdata strings). All of it comes from the system under test,
 * so a line may be any length, contain NUL bytes, or be cut short by a killed JVM, and a string
 * may hold any byte: the reader never grows a buffer and tells the caller which of these it saw,
 * and strings kept for users are reduced to printable ASCII (all HotSpot ever writes there). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest line the JVM parsers look at (without the newline). HotSpot's lines are far shorter;
 * longer ones are skipped as a unit, never split into two lines. */
#define JVM_LINE_MAX 4096

enum jvm_line_status {
        JVM_LINE_EOF = 0,       /* end of file; an unterminated last line is dropped (see below) */
        JVM_LINE_OK = 1,        /* buf holds one complete line, NUL-terminated, newline stripped */
        JVM_LINE_SKIPPED = 2,   /* a complete line longer than the buffer or containing NUL; consumed */
};

/* Read the next line of f into buf (size >= 2). A last line without '\n' is dropped: the writer
 * may have died mid-line and a cut "12.345ms" would parse as a wrong number. Returns an
 * enum jvm_line_status, or -EIO on a read error. *ret_len is set for JVM_LINE_OK. */
int jvm_read_line(FILE *f, char *buf, size_t size, size_t *ret_len);

/* jvm_read_line() for parsers that read to the end and have no use for a line they cannot see
 * whole: the next line that fits, the others skipped. Every complete line counts in *lines and
 * a skipped one in *skipped (either may be NULL). Returns 1 with a line in buf, 0 at the end,
 * or -EIO. */
int jvm_next_line(FILE *f, char *buf, size_t size, size_t *ret_len, uint64_t *lines, uint64_t *skipped);

/* Copy at most n bytes of s into dst (size >= 1), NUL-terminated, cut to fit, every byte that
 * is not printable ASCII replaced by '?', so the result is safe in JSON, logs and terminals. */
void jvm_copy_printable(char *dst, size_t size, const char *s, size_t n);
