/* definition-sides.h: a template from the two sides of a series' change point (issue 38, item 3):
 * the before side's definition for one cell, with the strings that differ at the template's
 * sites made {name} placeholders that a bisection's versions fill (definition-sides.c). */
#pragma once

#include <cjson/cJSON.h>

#include "basic/error.h"

struct definition_sides {
        cJSON *definition;      /* the before side's, without names, labels, iterations, stop, checks, cells */
        cJSON *cell;            /* the before side's cell, without its name */
        cJSON *fields;          /* the paths of the strings that differ ("definition.sut.command[2]") */
};

/* The versions that span the change: the first makes the before side, the last the after side.
 * The paths name them in errors ("versions[0].vars"). */
struct definition_sides_versions {
        const cJSON *first_vars, *last_vars;
        const char *first_path, *last_path;
};

/* From before and after (two experiments' stored definitions) and the cell the series follows.
 * Without versions, only what differs (fields; definition and cell as the before side's); with
 * them, the template too. A 422 not_fillable naming the first field that differs otherwise than
 * in a site's string (or the cell when a side lacks it or is a template itself, or change_point
 * when nothing differs); a 400 naming a version whose vars do not make its side; *ret untouched. */
int definition_sides_template(const cJSON *before, const cJSON *after, const char *cell,
                              const struct definition_sides_versions *versions, struct definition_sides *ret,
                              struct error *err);
void definition_sides_done(struct definition_sides *s);
