/* report-sequential.h: the report's `sequential` section (issue 37): a stop rule's comparisons
 * as the rounds ended so far decide them. */
#pragma once

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "storage/db.h"

/* NULL (the report says null) for a definition without stop; finished: the experiment has
 * ended (an undecided comparison then stays undecided). -errno on a store error. */
int report_sequential_json(struct db_conn *db, const char *id, const cJSON *definition, bool finished, cJSON **ret);
