/* alloc-count.c: see alloc-count.h. */
#include "alloc-count.h"

#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)

bool alloc_count_available(void) {
        return false;
}

uint64_t alloc_count(void) {
        return 0;
}

#else

/* glibc's own entry points, exported for exactly this kind of wrapper. */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static uint64_t counter;

void *malloc(size_t size) {
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        return __libc_realloc(p, size);
}

bool alloc_count_available(void) {
        return true;
}

uint64_t alloc_count(void) {
        return __atomic_load_n(&counter, __ATOMIC_RELAXED);
}

#endif
