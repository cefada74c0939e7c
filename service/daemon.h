/* daemon.h: slicelabd's lifecycle: set up the state dir, the store, the API and the event
 * loop; run until SIGTERM/SIGINT; tear down in reverse order. */
#pragma once

#include "service/options.h"

/* Returns the process exit code: 0 after a clean shutdown, 1 when set-up failed. */
int daemon_run(const struct options *o);
