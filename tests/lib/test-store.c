/* test-store.c: see test-store.h. */
#include "test-store.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test-tmp.h"

struct storage *test_store_new(const char *name, char *path, size_t size) {
        assert_non_null(tmp_group_dir);
        tmp_path(path, size, tmp_group_dir, name);
        struct storage *s = NULL;
        struct error err = { 0 };
        assert_int_equal(storage_open(path, &s, &err), 0);
        return s;
}

void test_store_exec(const char *path, const char *sql) {
        sqlite3 *db;
        assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);
}
