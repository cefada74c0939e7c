/* host-test-util.h: fixture trees for the hostinfo tests: the committed ones under
 * tests/hostinfo/fixtures/, and scratch trees the tests build and change. */
#pragma once

#include <cjson/cJSON.h>

/* $SLICELAB_SRC/tests/hostinfo/fixtures/<name> (static buffer). */
const char *fixture_root(const char *name);
/* A new empty directory under $TMPDIR; free with scratch_free(). */
char *scratch_new(void);
/* Create root/path with content (parents made), replacing what was there. */
void scratch_put(const char *root, const char *path, const char *content);
/* rm -r root and free it. */
void scratch_free(char *root);
/* Whether the JSON array holds a string equal to s. */
int json_array_has(const cJSON *array, const char *s);
/* Number of open fds of this process. */
int count_open_fds(void);
