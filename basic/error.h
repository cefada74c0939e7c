/* error.h: a failure that carries an HTTP status, a machine code, the field at fault and a
 * message for people. Validators and storage fill one; the API turns it into the JSON error
 * body of the design: {"error":{"code":...,"field":...,"message":...}}. */
#pragma once

#include <stdarg.h>

#include "basic/macro.h"

struct error {
        int status;             /* HTTP status to answer with; 0 = no error set */
        char code[48];          /* machine-readable, e.g. "invalid_field" */
        char field[128];        /* JSON path of the offending field, "" when none */
        char message[512];
};

/* Fill *err (when err is non-NULL) and return -EINVAL so callers can `return error_set(...)`.
 * The texts are made valid UTF-8 whatever the arguments hold (U+FFFD for a byte that begins no
 * character) and cut between characters when they do not fit: a request's bytes can be echoed
 * as they came. A value of unbounded length is still best cut with UTF8_PREFIX (basic/utf8.h). */
int error_set(struct error *err, int status, const char *code, const char *field,
              const char *fmt, ...) _printf_(5, 6);
int error_setv(struct error *err, int status, const char *code, const char *field, const char *fmt,
               va_list ap) _printf_(5, 0);

/* As error_set, but returns the errno the failure has (either sign given, the negative one
 * returned; 0 reads as EINVAL): a peer that cannot be reached, a file that cannot be written,
 * a store that fails is not an invalid argument to whoever tests the errno. errnum is read before
 * the message is made (the message may well hold strerror(errno)). */
#define error_set_errno(err, errnum, status, code, field, ...)                                       \
        __extension__({                                                                             \
                int _errno_ = error_errno_negative(errnum);                                         \
                error_set(err, status, code, field, __VA_ARGS__);                                   \
                _errno_;                                                                            \
        })

static inline int error_errno_negative(int errnum) {
        return errnum > 0 ? -errnum : errnum < 0 ? errnum : -EINVAL;
}
