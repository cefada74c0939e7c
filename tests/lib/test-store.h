/* test-store.h: fresh stores for the C tests, in the scratch directory of test-tmp.h's group
 * setup, and SQL run on a store file from outside the daemon's pool (as an operator's sqlite3
 * would). Failures are cmocka assertions. */
#pragma once

#include <stddef.h>

#include "storage/db.h"

/* A new store name in the group's scratch directory (test-tmp.h's tmp_group_dir), opened (so
 * created and migrated); its path in path. */
struct storage *test_store_new(const char *name, char *path, size_t size);
/* Run sql on the store file at path through a connection of its own. */
void test_store_exec(const char *path, const char *sql);
