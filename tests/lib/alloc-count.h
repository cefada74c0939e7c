/* alloc-count.h: counts malloc/calloc/realloc calls made by the test program, so tests can
 * assert that a hot path allocates nothing. Works by interposing those three functions in the
 * test executable; under AddressSanitizer (which owns malloc) counting is unavailable and the
 * tests that need it skip. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

bool alloc_count_available(void);
uint64_t alloc_count(void);
