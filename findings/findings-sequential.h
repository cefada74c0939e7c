/* findings-sequential.h: a definition's stop rule as the findings read it (issue 37). The
 * comparisons the rule decides (its metrics, each cell against its baseline) are decided by
 * its confidence sequence here too, so a finding never contradicts the report's `sequential`:
 * the difference rule takes the rule's interval and decision for them, and the noise rule says
 * that iterations.max was reached rather than asking for a re-run. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/sequential.h"
#include "findings/findings-compare.h"
#include "findings/findings.h"

#define FINDINGS_STOP_METRICS_MAX 5

struct findings_stop {
        struct sequential_plan plan;
        const char *metrics[FINDINGS_STOP_METRICS_MAX];
        unsigned rounds;                /* the rounds with a succeeded run */
};

/* in's definition's stop rule when it has one whose baseline is in's baseline. */
bool findings_stop_of(const struct findings_input *in, struct findings_stop *ret);
/* The rule's outcome for cell and metric path; false when the rule does not compare them. */
bool findings_stop_outcome(const struct findings_input *in, const struct findings_stop *s, size_t cell, const char *path,
                           struct sequential_outcome *ret);
/* For the compared metrics the rule decides: .r from its interval (excludes_one when it
 * decided "different"), .sequential set. */
void findings_stop_apply(const struct findings_input *in, size_t cell, struct findings_compared *c, size_t n);
/* "95% confidence sequence, shared by 2 comparisons; different at round 4" */
void findings_stop_text(char *buf, size_t size, const struct findings_compared *c);
