/* findings-causes.h: a difference joined to the findings of its cell that can explain it
 * (findings-causes.c, whose table says which mechanism can move which metric which way). */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

/* What a difference is in, for the table of what each mechanism can move. */
enum findings_effect_metric {
        FINDINGS_EFFECT_LATENCY,
        FINDINGS_EFFECT_THROUGHPUT,
        FINDINGS_EFFECT_CPU_SHARE,      /* a thread group's or frame's share of CPU samples */
};

/* A difference of cell against the baseline base that findings_causes_link() joins to the
 * findings that can explain it: in metric, worse (latency up, throughput down; a share up) or
 * not. approximate is served as the finding's "approximate" (its interval's, stats.h). */
void findings_causes_mark(cJSON *finding, const char *cell, const char *base, enum findings_effect_metric metric,
                          bool worse, bool approximate);
/* The same where only some kinds can explain it (a rise of the GC threads' share: gc, memory):
 * kinds, most likely first, NULL-terminated; static storage. */
void findings_causes_mark_kinds(cJSON *finding, const char *cell, const char *base, enum findings_effect_metric metric,
                                bool worse, bool approximate, const char *const *kinds);
/* Once findings have their ids: each marked difference gets "causes" (ids of the findings of
 * its cell that can move its metric its way and that the baseline has not as well, most likely
 * first), "shared" (ids of those the baseline has at a like size) and a claim that says so. */
void findings_causes_link(cJSON *findings);
