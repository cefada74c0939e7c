/* capacity-steps.h: a capacity search's steps within one run (load.mode "capacity"): which rate
 * comes next (basic/capacity-search), each step's injector started at it, each step judged
 * (capacity.h), stored and recorded, and at the end the step at max_rps kept as the run's
 * timeline and summary. One of the run's loads (load.h): the run (run.c) keeps its state machine
 * and its deadline, which each step's start renews. */
#pragma once

#include "daemon/load.h"

/* The search as a load (load.h): the run measures from its start, each step's injector is the
 * run's load process (load-local.h), and the search is over once the step at max_rps is found. */
extern const struct load_ops load_capacity_ops;
