/* main.c: slicelabd's entry point: parse the settings, then hand over to daemon_run(). */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>

#include "service/daemon.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "service/options.h"

/* SQLite drops a connection's page cache (16 KiB pages) whenever another connection has written,
 * and allocates it again at the next read. With glibc's defaults each drop gave the heap's top
 * back to the kernel (madvise) and the next transaction faulted it in again page by page: a dozen
 * faults a POST on a busy API, a third of its CPU. Free memory up to 8 MiB now stays in each
 * arena; blocks of 4 MiB and more still come from mmap and go back to the kernel when freed (at
 * 1 MiB, a timeline page's answer was mapped and faulted in anew each time: p50 +3 ms). Setting
 * either fixes both: glibc's thresholds no longer follow the blocks freed. */
static void memory_setup(void) {
        if (mallopt(M_TRIM_THRESHOLD, 8 << 20) != 1 || mallopt(M_MMAP_THRESHOLD, 4 << 20) != 1)
                log_debug("malloc keeps its default trim and mmap thresholds");
}

int main(int argc, char **argv) {
        json_setup();
        log_setup();
        struct options o;
        int r = options_parse(argc, argv, &o);
        if (r <= 0)
                return r == 0 ? 0 : 2;
        log_set_level(o.log_level);
        memory_setup();

        /* Blocked before any thread starts, so that only the loop's signalfd sees them. */
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGCHLD);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        signal(SIGPIPE, SIG_IGN);

        r = daemon_run(&o);
        options_done(&o);
        return r;
}
