/* macro.h: cleanup helpers and small macros shared by every slicelab binary.
 *
 * Resources are released by __attribute__((cleanup)) so that every early return on an error
 * path frees what the function made; ownership leaves a scope with TAKE_PTR / TAKE_FD. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* Hand a pointer or fd out of a scope whose cleanup would otherwise release it. */
static inline void *take_ptr_impl(void **p) {
        void *v = *p;
        *p = NULL;
        return v;
}
#define TAKE_PTR(p) ((__typeof__(p)) take_ptr_impl((void **) &(p)))

static inline int take_fd_impl(int *fd) {
        int v = *fd;
        *fd = -1;
        return v;
}
#define TAKE_FD(fd) take_fd_impl(&(fd))

/* errno as a negative return value, never 0 even if a libc call forgot to set it. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/* Generate a typed pointer cleanup from a free function: DEFINE_POINTER_CLEANUP(struct timeline,
 * timeline_free) gives timeline_freep() for use as _cleanup_(timeline_freep). (cJSON has its own,
 * json_freep in basic/json-util.h.) */
#define DEFINE_POINTER_CLEANUP(type, func)                 \
        static inline void func##p(type **p) {             \
                if (*p)                                    \
                        func(*p);                          \
        }
