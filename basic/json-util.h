/* json-util.h: the JSON conventions of slicelab's programs.
 *
 * cJSON reports a failed allocation as a NULL return. Checking each of hundreds of additions is
 * code that never runs (and most places skipped it anyway), and a daemon out of memory cannot
 * serve correct results whatever it checks. So, like tmux's xmalloc, json_setup() makes cJSON's
 * allocator abort instead (one line on stderr first); systemd restarts slicelabd and the runs
 * that were in flight are reconciled as interrupted at the next start. Every program calls it
 * first thing in main(), and code then uses the raw cJSON_Add* / cJSON_Create* calls without
 * checks. The helpers below exist only where they add meaning: the design says a figure that
 * could not be read is null, never a made-up 0, and "value or null" should be one call. */
#pragma once

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"

/* Install cJSON's allocation hooks (see above). Call before any other cJSON use and before any
 * thread starts: the hooks are process-wide. */
void json_setup(void);

static inline void json_freep(cJSON **p) {
        if (*p)
                cJSON_Delete(*p);
}
#define _cleanup_json_ _cleanup_(json_freep)

static inline void json_add_number_or_null(cJSON *obj, const char *key, bool have, double v) {
        if (have)
                cJSON_AddNumberToObject(obj, key, v);
        else
                cJSON_AddNullToObject(obj, key);
}

/* NULL s gives null. */
static inline void json_add_string_or_null(cJSON *obj, const char *key, const char *s) {
        if (s)
                cJSON_AddStringToObject(obj, key, s);
        else
                cJSON_AddNullToObject(obj, key);
}

/* An array holds the string s (a definition's cell names, a list of ids). */
static inline bool json_array_has_string(const cJSON *array, const char *s) {
        const cJSON *e;
        cJSON_ArrayForEach(e, array)
                if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
                        return true;
        return false;
}

/* cJSON_PrintUnformatted(j) as valid UTF-8, whatever bytes its strings hold (cJSON checks none):
 * each byte that begins no character becomes U+FFFD, and *ret_replaced (if not NULL) says it
 * happened, for the caller to log where such a string came from. Every JSON answer is printed
 * by this. NULL when out of memory. */
char *json_print_utf8(const cJSON *j, bool *ret_replaced);

/* Append a formatted string to an array (warnings, mismatches): sentences with evidence. */
_printf_(2, 3) static inline void json_append_printf(cJSON *array, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (n < 0) {
                /* the same choice as json_setup()'s hooks, for the one allocation cJSON does not make */
                fputs("out of memory formatting a JSON string\n", stderr);
                abort();
        }
        cJSON_AddItemToArray(array, cJSON_CreateString(s));
        free(s);
}
