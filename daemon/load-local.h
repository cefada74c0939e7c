/* load-local.h: a load's process in the run's load slice, its stdout and stderr captured to
 * load.log: the local load's one process (slicelab-inject, or the external command) and each
 * step's injector of a capacity search (capacity-steps.c). Its exit comes back on the loop:
 * code 0 to on_exit(), anything else fails the run through the load's finished event with the
 * last lines it wrote. */
#pragma once

#include "daemon/capture.h"
#include "daemon/child.h"
#include "daemon/load.h"

struct load_process;
typedef void (*load_process_exit_fn)(struct load_process *p, void *userdata);

struct load_process {
        const struct load_run *run;
        struct child child;
        struct capture out;
        load_process_exit_fn on_exit;   /* it exited 0 */
        void *userdata;
};

void load_process_init(struct load_process *p, const struct load_run *run, load_process_exit_fn on_exit, void *userdata);
/* argv in the load slice, the previous process's output closed; started is sent. -errno. */
int load_process_spawn(struct load_process *p, char **argv, char **env);
/* The slice was killed: the process reaped, its output closed. */
void load_process_reap(struct load_process *p);
