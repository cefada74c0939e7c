/* engine-config.h: what a run of the engine (engine.h) is given: the options, the target's
 * address, the request and the timeline's file. Apart from engine.h so that the connections
 * (connection.c), which read it, need nothing of the engine's functions. */
#pragma once

#include <sys/socket.h>

#include "injector/http-request.h"
#include "injector/options.h"

struct engine_config {
        const struct inject_options *opts;
        struct sockaddr_storage addr;
        socklen_t addr_len;
        const struct http_request *request;
        int timeline_fd;        /* empty file open for writing; the header goes first */
};
