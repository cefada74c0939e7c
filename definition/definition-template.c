/* definition-template.c: cells from a template (issue 38). Once any cell has "vars", the strings
 * of sut.command, sut.ready.http and load.target may hold {name} placeholders that every cell's
 * vars fill, and a cell's jvm_args placeholders its own vars fill. Substitution is plain text on
 * the JSON, before parsing, and each cell's expansion is then parsed and validated as a written-out
 * definition is: a value can make no path, URL or option that such a definition could not. A '{'
 * that does not open a {name} is plain text; without vars nothing is a placeholder, so that the
 * definitions stored before templates keep their meaning. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "definition/definition-internal.h"

#define VAR_NAME_MAX 32

size_t def_placeholder_len(const char *s) {
        if (s[0] != '{' || !(s[1] >= 'a' && s[1] <= 'z'))
                return 0;
        size_t n = 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyz0123456789_");
        return s[n] == '}' && n - 1 <= VAR_NAME_MAX ? n + 1 : 0;
}

static int check_var_name(const char *key, const char *path, struct error *err) {
        size_t n = strlen(key);
        if (n >= 1 && n <= VAR_NAME_MAX && key[0] >= 'a' && key[0] <= 'z' &&
            strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") == n)
                return 0;
        char q[96];
        def_quote(q, sizeof q, key);
        return def_error(err, "invalid_value", path, "variable names must be 1 to %d of [a-z0-9_], starting with a letter, got %s",
                         VAR_NAME_MAX, q);
}

static const struct def_kv_rules vars_rules = {
        .noun = "variable",
        .nouns = "variables",
        .max = DEFINITION_VARS_MAX,
        .value_max = DEFINITION_VAR_VALUE_MAX,
        .check_key = check_var_name,
};

/* The index of the name at s (length n) in kv, or -1. */
static ssize_t var_index(const struct definition_kv *kv, const char *s, size_t n) {
        for (size_t i = 0; i < kv->n; i++)
                if (strlen(kv->keys[i]) == n && memcmp(kv->keys[i], s, n) == 0)
                        return (ssize_t) i;
        return -1;
}

/* ---- where placeholders may be ---------------------------------------------------------------- */

/* One string that may hold placeholders: its JSON path as text (for errors) and as keys and
 * indexes (for canonical JSON), and whose vars fill it: one cell's (cell >= 0) or every cell's. */
struct site {
        cJSON *string;
        char path[DEF_PATH_MAX];
        const char *keys[4];    /* NULL: index[k] is an array index */
        int index[4];
        size_t depth;
        int cell;
};

typedef int (*site_fn)(const struct site *s, void *userdata);

/* The strings of array (at s's path) as sites one level deeper. */
static int visit_array(cJSON *array, struct site *s, site_fn fn, void *userdata) {
        if (!cJSON_IsArray(array))
                return 0;
        char parent[DEF_PATH_MAX];
        memcpy(parent, s->path, sizeof parent);
        size_t k = 0;
        cJSON *e;
        s->depth++;
        cJSON_ArrayForEach(e, array) {
                s->keys[s->depth - 1] = NULL;
                s->index[s->depth - 1] = (int) k;
                def_path_index(s->path, parent, k++);
                s->string = e;
                int r = cJSON_IsString(e) ? fn(s, userdata) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

static int visit_string(cJSON *v, struct site *s, site_fn fn, void *userdata) {
        s->string = v;
        return cJSON_IsString(v) ? fn(s, userdata) : 0;
}

/* Calls fn for every string of the template's places in root, in a fixed order. */
static int visit_sites(cJSON *root, site_fn fn, void *userdata) {
        cJSON *sut = cJSON_GetObjectItemCaseSensitive(root, "sut");
        cJSON *load = cJSON_GetObjectItemCaseSensitive(root, "load");
        struct site command = { .path = "sut.command", .keys = { "sut", "command" }, .depth = 2, .cell = -1 };
        struct site ready = { .path = "sut.ready.http", .keys = { "sut", "ready", "http" }, .depth = 3, .cell = -1 };
        struct site target = { .path = "load.target", .keys = { "load", "target" }, .depth = 2, .cell = -1 };
        int r;
        if ((r = visit_array(cJSON_GetObjectItemCaseSensitive(sut, "command"), &command, fn, userdata)) < 0 ||
            (r = visit_string(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sut, "ready"), "http"), &ready,
                              fn, userdata)) < 0 ||
            (r = visit_string(cJSON_GetObjectItemCaseSensitive(load, "target"), &target, fn, userdata)) < 0)
                return r;
        cJSON *cell;
        int j = 0;
        cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(root, "cells")) {
                struct site args = { .keys = { "cells", NULL, "jvm_args" }, .index = { 0, j, 0 }, .depth = 3, .cell = j };
                char p[DEF_PATH_MAX];
                def_path_index(p, "cells", (size_t) j);
                def_path_key(args.path, p, "jvm_args");
                if ((r = visit_array(cJSON_GetObjectItemCaseSensitive(cell, "jvm_args"), &args, fn, userdata)) < 0)
                        return r;
                j++;
        }
        return 0;
}

/* ---- reading the template ----------------------------------------------------------------------- */

struct reading {
        struct def_template *t;
        bool **used;            /* per cell, per variable */
        struct error *err;
};

static int check_placeholder(struct reading *rd, const struct site *s, size_t cell, const char *name, size_t n) {
        ssize_t i = var_index(&rd->t->vars[cell], name, n);
        if (i >= 0) {
                rd->used[cell][i] = true;
                return 0;
        }
        return def_error(rd->err, "invalid_value", s->path, "placeholder {%.*s} is not among cells[%zu].vars%s", (int) n, name, cell,
                         s->cell < 0 ? " (every cell's vars fill this field)" : "");
}

/* The raw string, to be kept in the canonical JSON, as [path..., text]. */
static int keep_raw(struct def_template *t, const struct site *s) {
        cJSON *entry = cJSON_CreateArray();
        if (!entry)
                return -ENOMEM;
        if (!cJSON_AddItemToArray(t->raw, entry)) {
                cJSON_Delete(entry);
                return -ENOMEM;
        }
        for (size_t k = 0; k < s->depth; k++)
                if (!cJSON_AddItemToArray(entry, s->keys[k] ? cJSON_CreateString(s->keys[k]) : cJSON_CreateNumber(s->index[k])))
                        return -ENOMEM;
        return cJSON_AddItemToArray(entry, cJSON_CreateString(s->string->valuestring)) ? 0 : -ENOMEM;
}

/* What text becomes with cell's vars, in bytes: bounded before any expansion is made, so that
 * a short body cannot ask for a long one (each placeholder up to DEFINITION_VAR_VALUE_MAX). */
static size_t expanded_len(const char *text, const struct definition_kv *kv) {
        size_t len = 0;
        for (const char *p = text; *p;) {
                size_t n = def_placeholder_len(p);
                ssize_t i = n ? var_index(kv, p + 1, n - 2) : -1;
                len += i >= 0 ? strlen(kv->values[i]) : 1;
                p += i >= 0 ? n : 1;
        }
        return len;
}

static int check_site_cell(struct reading *rd, const struct site *s, size_t cell) {
        const char *text = s->string->valuestring;
        for (const char *p = text; *p; p++) {
                size_t n = def_placeholder_len(p);
                if (n == 0)
                        continue;
                int r = check_placeholder(rd, s, cell, p + 1, n - 2);
                if (r < 0)
                        return r;
                p += n - 1;
        }
        size_t len = expanded_len(text, &rd->t->vars[cell]);
        if (len > DEFINITION_ARG_MAX)
                return def_error(rd->err, "out_of_range", s->path, "with cells[%zu].vars it would be %zu bytes, over the limit of %d",
                                 cell, len, DEFINITION_ARG_MAX);
        return 0;
}

static int read_site(const struct site *s, void *userdata) {
        struct reading *rd = userdata;
        const char *text = s->string->valuestring;
        bool any = false;
        for (const char *p = text; *p && !any; p++)
                any = def_placeholder_len(p) > 0;
        if (!any)
                return 0;
        for (size_t c = 0; c < rd->t->n_cells; c++) {
                if (s->cell >= 0 && (size_t) s->cell != c)
                        continue;
                int r = check_site_cell(rd, s, c);
                if (r < 0)
                        return r;
        }
        return keep_raw(rd->t, s) < 0 ? def_oom(rd->err) : 0;
}

static int read_vars(const cJSON *cells, struct def_template *t, struct error *err) {
        const cJSON *cell;
        size_t j = 0;
        cJSON_ArrayForEach(cell, cells) {
                const cJSON *vars = cJSON_GetObjectItemCaseSensitive(cell, "vars");
                if (vars) {
                        char p[DEF_PATH_MAX], cell_path[DEF_PATH_MAX];
                        def_path_index(cell_path, "cells", j);
                        def_path_key(p, cell_path, "vars");
                        int r = def_kv_parse(vars, p, &vars_rules, &t->vars[j], err);
                        if (r < 0)
                                return r;
                }
                j++;
        }
        return 0;
}

static int check_all_used(const struct reading *rd) {
        for (size_t c = 0; c < rd->t->n_cells; c++)
                for (size_t i = 0; i < rd->t->vars[c].n; i++)
                        if (!rd->used[c][i]) {
                                char p[DEF_PATH_MAX], cell_path[DEF_PATH_MAX];
                                def_path_index(cell_path, "cells", c);
                                def_path_key(p, cell_path, "vars");
                                return def_error(rd->err, "invalid_value", p,
                                                 "variable \"%s\" fills no placeholder {%s} in sut.command, sut.ready.http, "
                                                 "load.target or this cell's jvm_args",
                                                 rd->t->vars[c].keys[i], rd->t->vars[c].keys[i]);
                        }
        return 0;
}

void def_template_free(struct def_template *t) {
        if (!t)
                return;
        for (size_t c = 0; c < t->n_cells; c++)
                def_kv_done(&t->vars[c]);
        free(t->vars);
        cJSON_Delete(t->raw);
        free(t);
}

static void free_used(bool **used, size_t n) {
        for (size_t c = 0; used && c < n; c++)
                free(used[c]);
        free(used);
}

static bool has_vars(const cJSON *cells) {
        const cJSON *cell;
        cJSON_ArrayForEach(cell, cells)
                if (cJSON_GetObjectItemCaseSensitive(cell, "vars"))
                        return true;
        return false;
}

int def_template_read(cJSON *root, struct def_template **ret, struct error *err) {
        const cJSON *cells = cJSON_GetObjectItemCaseSensitive(root, "cells");
        if (!cJSON_IsArray(cells) || cJSON_GetArraySize(cells) > DEFINITION_CELLS_MAX || !has_vars(cells)) {
                *ret = NULL; /* no template: the parser judges the cells */
                return 0;
        }
        _cleanup_(def_template_freep) struct def_template *t = calloc(1, sizeof *t);
        if (!t)
                return def_oom(err);
        t->n_cells = (size_t) cJSON_GetArraySize(cells);
        t->vars = calloc(t->n_cells, sizeof *t->vars);
        t->raw = cJSON_CreateArray();
        if (!t->vars || !t->raw)
                return def_oom(err);
        int r = read_vars(cells, t, err);
        if (r < 0)
                return r;
        struct reading rd = { .t = t, .used = calloc(t->n_cells, sizeof(bool *)), .err = err };
        for (size_t c = 0; rd.used && c < t->n_cells; c++)
                if (!(rd.used[c] = calloc(t->vars[c].n + 1, sizeof(bool)))) {
                        free_used(rd.used, t->n_cells);
                        rd.used = NULL;
                }
        if (!rd.used)
                return def_oom(err);
        r = visit_sites(root, read_site, &rd);
        if (r >= 0)
                r = check_all_used(&rd);
        free_used(rd.used, t->n_cells);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

/* ---- a cell's expansion -------------------------------------------------------------------------- */

struct expanding {
        const struct def_template *t;
        size_t cell;
};

/* text with every placeholder replaced by its value in kv (each known: def_template_read()). */
static char *substitute(const char *text, const struct definition_kv *kv) {
        char *out = malloc(expanded_len(text, kv) + 1), *o = out;
        if (!out)
                return NULL;
        for (const char *p = text; *p;) {
                size_t n = def_placeholder_len(p);
                ssize_t i = n ? var_index(kv, p + 1, n - 2) : -1;
                if (i >= 0) {
                        o = stpcpy(o, kv->values[i]);
                        p += n;
                } else
                        *o++ = *p++;
        }
        *o = '\0';
        return out;
}

static int expand_site(const struct site *s, void *userdata) {
        const struct expanding *ex = userdata;
        const struct definition_kv *kv = &ex->t->vars[s->cell >= 0 ? (size_t) s->cell : ex->cell];
        char *text = substitute(s->string->valuestring, kv);
        if (!text)
                return -ENOMEM;
        free(s->string->valuestring);
        s->string->valuestring = text;
        return 0;
}

int def_template_expand(const cJSON *root, const struct def_template *t, size_t cell, cJSON **ret) {
        cJSON *copy = cJSON_Duplicate(root, true);
        if (!copy)
                return -ENOMEM;
        struct expanding ex = { .t = t, .cell = cell };
        int r = visit_sites(copy, expand_site, &ex);
        if (r < 0) {
                cJSON_Delete(copy);
                return r;
        }
        cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(copy, "cells"))
                cJSON_DeleteItemFromObjectCaseSensitive(c, "vars");
        *ret = copy;
        return 0;
}

/* ---- the canonical JSON ------------------------------------------------------------------------ */

void def_template_format(cJSON *root, const struct def_template *t) {
        cJSON *entry, *cell;
        size_t j = 0;
        cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(root, "cells")) {
                if (j < t->n_cells)
                        def_kv_format(cell, "vars", &t->vars[j]);
                j++;
        }
        cJSON_ArrayForEach(entry, t->raw) {
                int n = cJSON_GetArraySize(entry);
                cJSON *at = root;
                for (int k = 0; at && k < n - 2; k++) {
                        const cJSON *step = cJSON_GetArrayItem(entry, k);
                        at = cJSON_IsString(step) ? cJSON_GetObjectItemCaseSensitive(at, step->valuestring)
                                                  : cJSON_GetArrayItem(at, (int) step->valuedouble);
                }
                const cJSON *last = cJSON_GetArrayItem(entry, n - 2), *raw = cJSON_GetArrayItem(entry, n - 1);
                if (!at || !last)
                        continue;
                cJSON *string = cJSON_CreateString(raw->valuestring);
                if (cJSON_IsString(last))
                        cJSON_ReplaceItemInObjectCaseSensitive(at, last->valuestring, string);
                else
                        cJSON_ReplaceItemInArray(at, (int) last->valuedouble, string);
        }
}
