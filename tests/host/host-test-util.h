/* host-test-util.h: fixture trees for the hostinfo tests: the committed ones under
 * tests/host/fixtures/ (the scratch trees the tests build and change: tests/lib/test-tmp.h). */
#pragma once

#include <cjson/cJSON.h>

/* $SLICELAB_SRC/tests/host/fixtures/<name> (static buffer). */
const char *fixture_root(const char *name);
/* Whether the JSON array holds a string equal to s. */
int json_array_has(const cJSON *array, const char *s);
/* Number of open fds of this process. */
int count_open_fds(void);
