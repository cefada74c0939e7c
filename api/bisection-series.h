/* bisection-series.h: a bisection's request made from a series' change point (bisection-series.c). */
#pragma once

#include <cjson/cJSON.h>

#include "basic/error.h"

struct db_conn;

/* body (POST /v1/bisections with "series" and "change_point", its versions already checked) as
 * the request an author would write: *ret_request, to be checked as any; *ret_origin: where it
 * came from (the series, the change point, its two experiments, the fields that changed). A
 * 400/422 in err naming the field, or -errno; nothing returned on failure. */
int api_bisection_from_series(struct db_conn *c, const cJSON *body, cJSON **ret_request, cJSON **ret_origin,
                              struct error *err);
