/* differences.h: what differs between two experiments besides their results: definition fields
 * (the whole definition but what names or checks it, and a cell's own fields) and the host facts
 * that change what a run measures (CPU, kernel, THP, SMT, memory, java version, boost), recorded
 * when their runs started. GET /v1/compare lists them; GET /v1/series explains a change point
 * with them. Each difference is {"source": "definition"|"host", "field": dotted path, "a", "b"}. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

/* The cell named `name` of a stored definition, or NULL. */
const cJSON *differences_cell_definition(const cJSON *definition, const char *name);
/* Definition fields, leaf by leaf, but "name", "labels", "checks", "iterations", "order", "seed"
 * and "cells". */
void differences_definitions(const cJSON *a, const cJSON *b, cJSON *out);
/* The fields of cell ca of definition a against those of cell cb of b (their names aside), as
 * "cells[ca].field", or "cells[ca|cb].field" when the cells' names differ. */
void differences_cells(const cJSON *a, const char *ca, const cJSON *b, const char *cb, cJSON *out);
/* The host facts; false (nothing added) when either side recorded none. */
bool differences_hosts(const cJSON *a, const cJSON *b, cJSON *out);
/* One warning per difference: "definition field F differs: X in a, Y in b". */
void differences_warn(const cJSON *differences, cJSON *warnings);
