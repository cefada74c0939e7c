/* fault.h: kill points for the tests of crash safety. In a build with fault hooks
 * (-Dfault_hooks, on by default where the tests are built, never in a package), fault_point(name)
 * ends the process with SIGKILL, as a power cut or kill -9 would, when $SLICELAB_FAULT is name;
 * in any other build it is nothing. Names say where: "import-before-commit". */
#pragma once

#ifdef SLICELAB_FAULT_HOOKS
void fault_point(const char *name);
#else
static inline void fault_point(const char *name) {
        (void) name;
}
#endif
