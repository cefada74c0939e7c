/* error.c: filling a struct error. */
#include "basic/error.h"

#include <stdarg.h>
#include <string.h>

int error_set(struct error *err, int status, const char *code, const char *field,
              const char *fmt, ...) {
        if (!err)
                return -EINVAL;
        err->status = status;
        snprintf(err->code, sizeof err->code, "%s", code);
        snprintf(err->field, sizeof err->field, "%s", field ? field : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        return -EINVAL;
}
