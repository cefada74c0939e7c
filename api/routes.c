/* routes.c: the route table: which handler serves which method and path, and which query
 * parameters each accepts (any other is a 400). */
#include "handlers.h"
#include "macro.h"

const struct api_route api_routes[] = {
        { "GET", "/v1/health", api_get_health, NULL },
};

const size_t api_routes_count = ELEMENTSOF(api_routes);
