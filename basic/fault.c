/* fault.c: the kill points of fault.h, in a build with fault hooks. */
#include "basic/fault.h"

#ifdef SLICELAB_FAULT_HOOKS
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "basic/log.h"

void fault_point(const char *name) {
        const char *want = getenv("SLICELAB_FAULT");
        if (!want || strcmp(want, name) != 0)
                return;
        log_warning("SLICELAB_FAULT=%s: killed here, as a crash would", name);
        raise(SIGKILL);
}
#endif
