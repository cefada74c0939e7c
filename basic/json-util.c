/* json-util.c: cJSON's allocator for slicelab's programs (see json-util.h for why it aborts), and
 * printing that never sends invalid UTF-8. */
#include "basic/json-util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/utf8.h"

static void *json_malloc(size_t size) {
        void *p = malloc(size);
        if (!p && size > 0) {
                /* fprintf on unbuffered stderr allocates nothing: the one line gets out */
                fprintf(stderr, "%s: out of memory (%zu bytes for JSON), aborting\n",
                        program_invocation_short_name, size);
                abort();
        }
        return p;
}

void json_setup(void) {
        cJSON_Hooks hooks = { .malloc_fn = json_malloc, .free_fn = free };
        cJSON_InitHooks(&hooks);
}

char *json_print_utf8(const cJSON *j, bool *ret_replaced) {
        char *text = cJSON_PrintUnformatted(j);
        if (ret_replaced)
                *ret_replaced = false;
        if (!text)
                return NULL;
        size_t len = strlen(text);
        if (utf8_valid(text, len))
                return text;
        /* cJSON escapes only ASCII, so a byte that begins no character lies inside a string and
         * its U+FFFD keeps the document's structure. */
        char *clean = utf8_sanitize_dup(text, len);
        free(text);
        if (clean && ret_replaced)
                *ret_replaced = true;
        return clean;
}
