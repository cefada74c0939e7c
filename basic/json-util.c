/* json-util.c: cJSON's allocator for slicelab's programs (see json-util.h for why it aborts). */
#include "basic/json-util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
