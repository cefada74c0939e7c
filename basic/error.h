/* error.h: a failure that carries an HTTP status, a machine code, the field at fault and a
 * message for people. Validators and storage fill one; the API turns it into the JSON error
 * body of the design: {"error":{"code":...,"field":...,"message":...}}. */
#pragma once

#include "basic/macro.h"

struct error {
        int status;             /* HTTP status to answer with; 0 = no error set */
        char code[48];          /* machine-readable, e.g. "invalid_field" */
        char field[128];        /* JSON path of the offending field, "" when none */
        char message[512];
};

/* Fill *err (when err is non-NULL) and return -EINVAL so callers can `return error_set(...)`. */
int error_set(struct error *err, int status, const char *code, const char *field,
              const char *fmt, ...) _printf_(5, 6);
