/* error.c: filling a struct error. Its texts end up in JSON answers, and their arguments are
 * often what a request sent (a query value, a header, a path): whatever bytes those hold, and
 * wherever the buffers cut them, the code, field and message leave here as valid UTF-8 (a byte
 * that begins no character becomes U+FFFD, a cut falls between characters). */
#include "basic/error.h"

#include <stdarg.h>
#include <string.h>

#include "basic/utf8.h"

static void copy_clean(char *dst, size_t size, const char *s) {
        utf8_sanitize(dst, size, s, strlen(s));
}

int error_setv(struct error *err, int status, const char *code, const char *field, const char *fmt,
               va_list ap) {
        if (!err)
                return -EINVAL;
        /* A sanitised byte takes at least one byte of the message, so the message is made from
         * at most its size in input: a little more is formatted, for the cut to see whole
         * characters at the end. */
        char raw[sizeof err->message + 8];
        vsnprintf(raw, sizeof raw, fmt, ap);
        err->status = status;
        copy_clean(err->code, sizeof err->code, code);
        copy_clean(err->field, sizeof err->field, field ? field : "");
        copy_clean(err->message, sizeof err->message, raw);
        return -EINVAL;
}

int error_set(struct error *err, int status, const char *code, const char *field,
              const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = error_setv(err, status, code, field, fmt, ap);
        va_end(ap);
        return r;
}
