/* handlers.h: the API's request handlers, one file per resource. */
#pragma once

#include "server.h"

enum MHD_Result api_get_health(struct api_request *req);
