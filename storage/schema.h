/* schema.h: the ordered list of schema migrations; migration i brings user_version to i + 1. */
#pragma once

#include <stddef.h>

struct migration {
        const char *name;
        const char *sql;
};

size_t schema_migrations(const struct migration **ret);
