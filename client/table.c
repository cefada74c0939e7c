/* table.c: columns sized to their content (see table.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "client/table.h"

#define ELLIPSIS "\xe2\x80\xa6"

static bool continuation_byte(char c) {
        return ((unsigned char) c & 0xc0) == 0x80;
}

/* Characters in s: bytes that do not continue a UTF-8 sequence. */
static size_t width(const char *s) {
        size_t n = 0;
        for (; *s; s++)
                n += !continuation_byte(*s);
        return n;
}

/* A copy of s, cut to cap characters with an ellipsis when longer. */
static char *cut(const char *s, size_t cap) {
        if (width(s) <= cap) {
                char *copy = strdup(s);
                if (!copy)
                        abort();
                return copy;
        }
        size_t bytes = 0;
        for (size_t chars = 0; s[bytes] && chars < cap - 1; chars++)
                do
                        bytes++;
                while (continuation_byte(s[bytes]));
        char *ret;
        if (asprintf(&ret, "%.*s" ELLIPSIS, (int) bytes, s) < 0)
                abort();
        return ret;
}

void table_init(struct table *t, size_t n_columns, size_t cap) {
        *t = (struct table) { .n_columns = n_columns, .cap = MAX(cap, (size_t) 2) };
}

void table_add(struct table *t, ...) {
        va_list ap;
        t->cells = reallocarray(t->cells, (t->n_rows + 1) * t->n_columns, sizeof *t->cells);
        if (!t->cells)
                abort();
        va_start(ap, t);
        for (size_t i = 0; i < t->n_columns; i++) {
                const char *v = va_arg(ap, const char *);
                t->cells[t->n_rows * t->n_columns + i] = cut(v ? v : "-", t->cap);
        }
        va_end(ap);
        t->n_rows++;
}

void table_print(const struct table *t, FILE *f) {
        _cleanup_free_ size_t *widths = calloc(t->n_columns, sizeof *widths);
        if (!widths)
                abort();
        for (size_t r = 0; r < t->n_rows; r++)
                for (size_t i = 0; i < t->n_columns; i++)
                        widths[i] = MAX(widths[i], width(t->cells[r * t->n_columns + i]));
        for (size_t r = 0; r < t->n_rows; r++) {
                for (size_t i = 0; i < t->n_columns; i++) {
                        const char *v = t->cells[r * t->n_columns + i];
                        if (i + 1 == t->n_columns) {
                                fprintf(f, "%s\n", v);
                                break;
                        }
                        fprintf(f, "%s%*s ", v, (int) (widths[i] - width(v)), "");
                }
        }
}

void table_done(struct table *t) {
        for (size_t i = 0; i < t->n_rows * t->n_columns; i++)
                free(t->cells[i]);
        free(t->cells);
        *t = (struct table) { 0 };
}
