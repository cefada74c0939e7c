/* verdict.h: the definition's `checks` evaluated on an experiment's succeeded runs, for the
 * report and GET /v1/experiments/{id}:
 * {"passed": bool, "final": bool, "checks": [{"metric", "cell", "ratio_to"?, "min"?, "max"?,
 *   "n", "value", "ci95", "basis", "passed", "note"}]}
 * basis says what min/max were compared with: "mean" (the cell's mean over n >= 2 succeeded
 * runs), "value" (a single run's value), "ratio_interval" (the ratio's 95% Fieller interval:
 * min against its low end, max against its high end, the least favourable), "ratio_value" (the
 * ratio of the values when a side has a single run), "sequence_interval" (a stop rule's
 * confidence sequence for a ratio it decides), or null when there was nothing to compare
 * (no succeeded run, an unbounded interval): the check then fails, its note says why.
 * "final" is false while the experiment still runs. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

/* NULL when the definition has no checks. sequential: the stop rule's section (report-sequential.h)
 * or NULL: a ratio check on a comparison it makes is checked on its confidence sequence (basis
 * "sequence_interval"), and fails as undecided when the rule left it undecided. */
cJSON *verdict_json(const cJSON *definition, const cJSON *rows, const cJSON *sequential, bool final);
