/* main.c: slicelabd's entry point: parse the settings, then hand over to daemon_run(). */
#include <signal.h>
#include <stdio.h>

#include "service/daemon.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "service/options.h"

int main(int argc, char **argv) {
        json_setup();
        log_setup();
        struct options o;
        int r = options_parse(argc, argv, &o);
        if (r <= 0)
                return r == 0 ? 0 : 2;
        log_set_level(o.log_level);

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
