/* json-util.h: checked cJSON builders for figures that may be missing.
 *
 * The design says a figure that could not be read is null, never a made-up 0; these helpers
 * make "value or null" one call, and turn cJSON's NULL-on-allocation-failure into -ENOMEM so
 * every addition can be checked. Header-only so any module can use it without a build change. */
#pragma once

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/macro.h"

/* Named apart from DEFINE_POINTER_CLEANUP(cJSON, cJSON_Delete), which several files define
 * locally, so including this header never clashes with them. */
static inline void json_freep(cJSON **p) {
        if (*p)
                cJSON_Delete(*p);
}
#define _cleanup_json_ _cleanup_(json_freep)

static inline int json_add_number(cJSON *obj, const char *key, double v) {
        return cJSON_AddNumberToObject(obj, key, v) ? 0 : -ENOMEM;
}

static inline int json_add_number_or_null(cJSON *obj, const char *key, bool have, double v) {
        cJSON *item = have ? cJSON_AddNumberToObject(obj, key, v) : cJSON_AddNullToObject(obj, key);
        return item ? 0 : -ENOMEM;
}

/* NULL s gives null. */
static inline int json_add_string_or_null(cJSON *obj, const char *key, const char *s) {
        cJSON *item = s ? cJSON_AddStringToObject(obj, key, s) : cJSON_AddNullToObject(obj, key);
        return item ? 0 : -ENOMEM;
}

static inline int json_add_bool(cJSON *obj, const char *key, bool v) {
        return cJSON_AddBoolToObject(obj, key, v) ? 0 : -ENOMEM;
}

/* Append a string to an array (warnings, mismatches). */
static inline int json_append_string(cJSON *array, const char *s) {
        cJSON *item = cJSON_CreateString(s);
        if (!item)
                return -ENOMEM;
        if (!cJSON_AddItemToArray(array, item)) {
                cJSON_Delete(item);
                return -ENOMEM;
        }
        return 0;
}

/* Append a formatted string to an array. */
_printf_(2, 3) static inline int json_append_printf(cJSON *array, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (n < 0)
                return -ENOMEM;
        int r = json_append_string(array, s);
        free(s);
        return r;
}

/* Attach a freshly made child; on failure the child is freed, so callers never leak it. */
static inline int json_attach(cJSON *obj, const char *key, cJSON *child) {
        if (!child)
                return -ENOMEM;
        if (!cJSON_AddItemToObject(obj, key, child)) {
                cJSON_Delete(child);
                return -ENOMEM;
        }
        return 0;
}
