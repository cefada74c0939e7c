/* test-tmp.h: the C tests' scratch directories: made under $TMPDIR (/tmp when it is unset), never
 * in a daemon's state dir, and removed with everything in them. Failures are cmocka assertions. */
#pragma once

#include <stddef.h>

#include "basic/macro.h"

/* A new empty directory $TMPDIR/slicelab-<name>-XXXXXX; its path, malloc'd. */
char *tmp_dir_new(const char *name);
/* Remove dir and everything below it (symbolic links removed, not followed); 0 or negative errno
 * (-ENOENT when dir is not there). */
int tmp_dir_remove(const char *dir);
/* tmp_dir_remove() that must succeed, then free(dir); NULL is fine. */
void tmp_dir_free(char *dir);
DEFINE_POINTER_CLEANUP(char, tmp_dir_free)
#define _cleanup_tmp_dir_ _cleanup_(tmp_dir_freep)

/* cmocka group setup and teardown (cmocka_run_group_tests(tests, tmp_group_setup,
 * tmp_group_teardown)): one scratch directory, $TMPDIR/slicelab-<program>-XXXXXX, for the group's
 * tests to share, in tmp_group_dir while they run. */
extern char *tmp_group_dir;
int tmp_group_setup(void **state);
int tmp_group_teardown(void **state);

/* dir/rel into buf (the test fails when it does not fit). */
void tmp_path(char *buf, size_t size, const char *dir, const char *rel);
/* Write text to dir/rel, making its parent directories, replacing what was there. */
void tmp_put(const char *dir, const char *rel, const char *text);
