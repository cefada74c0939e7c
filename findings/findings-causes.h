/* findings-causes.h: a difference joined to the findings of its cell that can explain it
 * (findings-causes.c). */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

/* A difference in cell that findings_causes_link() joins to the findings that can explain it;
 * approximate is served as the finding's "approximate" (its interval's, stats.h). */
void findings_causes_mark(cJSON *finding, const char *cell, bool approximate);
/* The same where only some kinds can explain it (a rise of the GC threads' share: gc, memory):
 * kinds, most likely first, NULL-terminated; static storage. */
void findings_causes_mark_kinds(cJSON *finding, const char *cell, bool approximate, const char *const *kinds);
/* Once findings have their ids: each marked difference gets "causes" (ids of the findings of
 * its cell whose kind can cause a difference, most likely first) and a claim that says so. */
void findings_causes_link(cJSON *findings);
