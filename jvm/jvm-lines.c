/* jvm-lines.c: reading text the JVM wrote (bounded lines, printable strings). */
#include "jvm/jvm-lines.h"

#include <errno.h>
#include <stdbool.h>

int jvm_read_line(FILE *f, char *buf, size_t size, size_t *ret_len) {
        size_t n = 0;
        bool bad = false;

        if (size < 2)
                return -EINVAL;
        for (;;) {
                int c = getc_unlocked(f);
                if (c == EOF)
                        return ferror(f) ? -EIO : JVM_LINE_EOF;
                if (c == '\n')
                        break;
                if (c == '\0' || n >= size - 1)
                        bad = true;
                else
                        buf[n++] = (char) c;
        }
        if (bad)
                return JVM_LINE_SKIPPED;
        buf[n] = '\0';
        if (ret_len)
                *ret_len = n;
        return JVM_LINE_OK;
}

int jvm_next_line(FILE *f, char *buf, size_t size, size_t *ret_len, uint64_t *lines, uint64_t *skipped) {
        for (;;) {
                int r = jvm_read_line(f, buf, size, ret_len);
                if (r < 0 || r == JVM_LINE_EOF)
                        return r;
                if (lines)
                        (*lines)++;
                if (r == JVM_LINE_OK)
                        return 1;
                if (skipped)
                        (*skipped)++;
        }
}

void jvm_copy_printable(char *dst, size_t size, const char *s, size_t n) {
        size_t i;
        for (i = 0; i < n && i + 1 < size; i++)
                dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
        dst[i] = '\0';
}
