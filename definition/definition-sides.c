/* definition-sides.c: a template from the two sides of a change (issue 38, item 3). A series'
 * change point lies between two experiments; when their definitions differ, for one cell, only
 * in strings a template may hold placeholders in (the sites of definition-template.c: sut.command,
 * sut.ready.http, load.target, the cell's jvm_args), a list of versions can fill what changed.
 * The fields the two sides may differ in without it mattering (names, labels, iterations, stop,
 * checks, the order of runs and its seed, the other cells) are left out; any other difference is
 * named, and nothing is made.
 *
 * The template is the before side's text with each occurrence of the first version's values put
 * back as {name} (the longest value first, so that "1.4.10" is not read as "1.4.1" and a "0");
 * the last version's values must then make the after side's text exactly, or the versions do not
 * span this change and the request says which field and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "definition/definition-internal.h"
#include "definition/definition-sides.h"

/* Top-level fields a step's definition does not take from the sides: the bisection makes its
 * own, they name cells that the versions replace, or they say how an experiment runs its runs
 * (order, seed, when to give up), not what a version is. */
static const char *const side_only[] = { "name",  "description", "labels", "iterations", "stop", "checks", "cells",
                                         "order", "seed",        "max_consecutive_failures" };

struct walk {
        const cJSON *first_vars, *last_vars;    /* NULL: only say what differs */
        const char *first_path, *last_path;     /* "versions[0].vars", for the errors */
        cJSON *fields;                          /* the strings that differ, by path */
        struct error *err;
};

static bool is_side_only(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(side_only); i++)
                if (strcmp(key, side_only[i]) == 0)
                        return true;
        return false;
}

/* May a placeholder stand at path (as definition-template.c's sites are named)? */
static bool is_site(const char *path) {
        static const char *const arrays[] = { "definition.sut.command[", "cell.jvm_args[" };
        static const char *const strings[] = { "definition.sut.ready.http", "definition.load.target" };
        for (size_t i = 0; i < ELEMENTSOF(arrays); i++)
                if (strncmp(path, arrays[i], strlen(arrays[i])) == 0 && !strchr(path + strlen(arrays[i]), '.'))
                        return true;
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (strcmp(path, strings[i]) == 0)
                        return true;
        return false;
}

static int not_fillable(struct walk *w, const char *path, const char *why) {
        return error_set(w->err, 422, "not_fillable", path,
                         "%s differs between the change's two sides%s: versions fill only the strings of sut.command, "
                         "sut.ready.http, load.target and the cell's jvm_args",
                         path, why);
}

/* The name in vars whose value starts text, the longest such value; NULL when none does. */
static const cJSON *longest_value_at(const cJSON *vars, const char *text) {
        const cJSON *v, *best = NULL;
        cJSON_ArrayForEach(v, vars) {
                const char *s = cJSON_GetStringValue(v);
                size_t n = s ? strlen(s) : 0;
                if (n > 0 && strncmp(text, s, n) == 0 && (!best || n > strlen(best->valuestring)))
                        best = v;
        }
        return best;
}

/* A string built piece by piece; NULL once out of memory. */
struct text {
        char *s;
        size_t n, cap;
};

static void text_add(struct text *t, const char *piece, size_t len) {
        if (!t->s)
                return;
        if (t->n + len + 1 > t->cap) {
                size_t cap = 2 * (t->n + len + 1);
                char *bigger = realloc(t->s, cap);
                if (!bigger) {
                        free(t->s);
                        t->s = NULL;
                        return;
                }
                t->s = bigger;
                t->cap = cap;
        }
        memcpy(t->s + t->n, piece, len);
        t->n += len;
        t->s[t->n] = '\0';
}

static struct text text_new(size_t cap) {
        struct text t = { .s = malloc(cap + 1), .cap = cap + 1 };
        if (t.s)
                t.s[0] = '\0';
        return t;
}

/* before with each value of vars written as its {name}; NULL when none occurs (or out of memory). */
static char *placeholders_for(const char *before, const cJSON *vars) {
        struct text t = text_new(2 * strlen(before));
        bool any = false;
        for (const char *p = before; *p;) {
                const cJSON *v = longest_value_at(vars, p);
                if (!v) {
                        text_add(&t, p++, 1);
                        continue;
                }
                text_add(&t, "{", 1);
                text_add(&t, v->string, strlen(v->string));
                text_add(&t, "}", 1);
                p += strlen(v->valuestring);
                any = true;
        }
        if (!any) {
                free(t.s);
                return NULL;
        }
        return t.s;
}

/* template with vars' values for its placeholders; NULL when vars lacks one (*missing: its name)
 * or out of memory (*missing left empty). */
static char *fill(const char *template, const cJSON *vars, char missing[64]) {
        struct text t = text_new(strlen(template));
        for (const char *p = template; *p;) {
                size_t len = def_placeholder_len(p);
                if (len == 0) {
                        text_add(&t, p++, 1);
                        continue;
                }
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int) (len - 2), p + 1);
                const char *value = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vars, name));
                if (!value) {
                        snprintf(missing, 64, "%s", name);
                        free(t.s);
                        return NULL;
                }
                text_add(&t, value, strlen(value));
                p += len;
        }
        return t.s;
}

static bool has_placeholder(const char *s) {
        for (; *s; s++)
                if (def_placeholder_len(s) > 0)
                        return true;
        return false;
}

/* A string that differs at a site: its template in place of the before side's text. */
static int template_string(struct walk *w, cJSON *before, const char *after, const char *path) {
        char q[96];
        if (has_placeholder(before->valuestring) || has_placeholder(after)) {
                def_quote(q, sizeof q, has_placeholder(before->valuestring) ? before->valuestring : after);
                return error_set(w->err, 422, "not_fillable", path,
                                 "%s holds %s on a side, which a template would read as a placeholder", path, q);
        }
        if (!cJSON_AddItemToArray(w->fields, cJSON_CreateString(path)))
                return def_oom(w->err);
        if (!w->first_vars)
                return 0;
        _cleanup_free_ char *template = placeholders_for(before->valuestring, w->first_vars);
        if (!template) {
                def_quote(q, sizeof q, before->valuestring);
                return error_set(w->err, 400, "invalid_value", w->first_path,
                                 "none of its values occurs in the change's before side's %s (%s): the first version must "
                                 "be the before side",
                                 path, q);
        }
        char missing[64] = "";
        _cleanup_free_ char *made = fill(template, w->last_vars, missing);
        if (!made && missing[0])
                return error_set(w->err, 400, "invalid_value", w->last_path,
                                 "has no {%s}, which the first version's values make of %s", missing, path);
        if (!made)
                return def_oom(w->err);
        if (strcmp(made, after) != 0) {
                char q_after[96];
                def_quote(q, sizeof q, made);
                def_quote(q_after, sizeof q_after, after);
                return error_set(w->err, 400, "invalid_value", w->last_path,
                                 "make %s of %s, but the change's after side has %s: the last version must be the after side",
                                 q, path, q_after);
        }
        return cJSON_SetValuestring(before, template) ? 0 : def_oom(w->err);
}

static int compare(struct walk *w, cJSON *before, const cJSON *after, const char *path, bool top);

static int compare_objects(struct walk *w, cJSON *before, const cJSON *after, const char *path, bool top) {
        const cJSON *m;
        char child[DEF_PATH_MAX];
        cJSON_ArrayForEach(m, after)
                if (!(top && is_side_only(m->string)) && !cJSON_GetObjectItemCaseSensitive(before, m->string)) {
                        def_path_key(child, path, m->string);
                        return not_fillable(w, child, " (the after side alone has it)");
                }
        cJSON *b;
        cJSON_ArrayForEach(b, before) {
                if (top && is_side_only(b->string))
                        continue;
                def_path_key(child, path, b->string);
                const cJSON *a = cJSON_GetObjectItemCaseSensitive(after, b->string);
                if (!a)
                        return not_fillable(w, child, " (the before side alone has it)");
                int r = compare(w, b, a, child, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int compare(struct walk *w, cJSON *before, const cJSON *after, const char *path, bool top) {
        if ((before->type & 0xFF) != (after->type & 0xFF))
                return not_fillable(w, path, " (not the same type)");
        if (cJSON_IsObject(before))
                return compare_objects(w, before, after, path, top);
        if (cJSON_IsArray(before)) {
                if (cJSON_GetArraySize(before) != cJSON_GetArraySize(after))
                        return not_fillable(w, path, " (not as many items)");
                char child[DEF_PATH_MAX];
                size_t i = 0;
                cJSON *b;
                const cJSON *a = after->child;
                cJSON_ArrayForEach(b, before) {
                        def_path_index(child, path, i++);
                        int r = compare(w, b, a, child, false);
                        if (r < 0)
                                return r;
                        a = a->next;
                }
                return 0;
        }
        if (cJSON_Compare(before, after, true))
                return 0;
        if (cJSON_IsString(before) && is_site(path))
                return template_string(w, before, after->valuestring, path);
        return not_fillable(w, path, "");
}

/* The cell named cell of definition d, or NULL. */
static const cJSON *cell_named(const cJSON *d, const char *cell) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "cells")) {
                const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
                if (name && strcmp(name, cell) == 0)
                        return c;
        }
        return NULL;
}

static cJSON *without(const cJSON *o, bool side_only_too) {
        cJSON *copy = cJSON_Duplicate(o, true);
        if (!copy)
                return NULL;
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "name");
        if (side_only_too)
                for (size_t i = 0; i < ELEMENTSOF(side_only); i++)
                        cJSON_DeleteItemFromObjectCaseSensitive(copy, side_only[i]);
        return copy;
}

static int cells_of(const cJSON *before, const cJSON *after, const char *cell, const cJSON **ret_b, const cJSON **ret_a,
                    struct error *err) {
        const cJSON *b = cell_named(before, cell), *a = cell_named(after, cell);
        if (!b || !a)
                return error_set(err, 422, "not_fillable", "cell", "the change's %s side has no cell of that name",
                                 b ? "after" : "before");
        if (cJSON_GetObjectItemCaseSensitive(b, "vars") || cJSON_GetObjectItemCaseSensitive(a, "vars"))
                return error_set(err, 422, "not_fillable", "cell",
                                 "the change's sides are templates themselves (their cells have vars): bisect over their "
                                 "vars instead");
        *ret_b = b;
        *ret_a = a;
        return 0;
}

int definition_sides_template(const cJSON *before, const cJSON *after, const char *cell,
                              const struct definition_sides_versions *versions, struct definition_sides *ret,
                              struct error *err) {
        const cJSON *cell_b = NULL, *cell_a = NULL;
        int r = cells_of(before, after, cell, &cell_b, &cell_a, err);
        if (r < 0)
                return r;
        struct definition_sides s = {
                .definition = without(before, true),
                .cell = without(cell_b, false),
                .fields = cJSON_CreateArray(),
        };
        struct walk w = { .fields = s.fields, .err = err };
        if (versions)
                w = (struct walk){ .first_vars = versions->first_vars, .last_vars = versions->last_vars,
                                   .first_path = versions->first_path, .last_path = versions->last_path,
                                   .fields = s.fields, .err = err };
        r = s.definition && s.cell && s.fields ? 0 : def_oom(err);
        if (r >= 0)
                r = compare(&w, s.definition, after, "definition", true);
        if (r >= 0)
                r = compare(&w, s.cell, cell_a, "cell", true);
        if (r >= 0 && cJSON_GetArraySize(s.fields) == 0)
                r = error_set(err, 422, "not_fillable", "change_point",
                              "the change's two sides have the same definition for this cell: no version made the change");
        if (r < 0) {
                definition_sides_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

void definition_sides_done(struct definition_sides *s) {
        cJSON_Delete(s->definition);
        cJSON_Delete(s->cell);
        cJSON_Delete(s->fields);
        *s = (struct definition_sides){ 0 };
}
