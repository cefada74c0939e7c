/* table.h: the client's tables (list, runs), each column as wide as its widest value, counted
 * in characters rather than bytes (names may be UTF-8), so that a long value moves the columns
 * after it instead of running into them. A value wider than the table's cap is cut to it with
 * "…"; the last column is not padded. */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct table {
        size_t n_columns;
        size_t cap;             /* the widest a value is shown, in characters */
        size_t n_rows;
        char **cells;           /* row-major, n_rows * n_columns, each already cut to cap */
};

void table_init(struct table *t, size_t n_columns, size_t cap);
/* One row of n_columns values (NULL shows as "-"). The first row added is the header. */
void table_add(struct table *t, ...);
void table_print(const struct table *t, FILE *f);
void table_done(struct table *t);
