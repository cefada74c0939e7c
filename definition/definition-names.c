/* definition-names.c: the JSON names of the definition's enums, shared by the parser
 * (definition.c) and the canonical JSON (definition-format.c) so that neither needs the other. */
#include "definition/definition-internal.h"

/* Indexed by value; NULL = not expressible (the default "any"). */
const char *const def_order_names[3] = {
        [DEFINITION_ORDER_INTERLEAVED] = "interleaved",
        [DEFINITION_ORDER_SEQUENTIAL] = "sequential",
        [DEFINITION_ORDER_RANDOM] = "random",
};
const char *const def_mode_names[3] = { [DEFINITION_MODE_RATE] = "rate", [DEFINITION_MODE_MAX] = "max",
                                        [DEFINITION_MODE_CAPACITY] = "capacity" };
const char *const def_arrival_names[2] = { [DEFINITION_ARRIVAL_UNIFORM] = "uniform",
                                           [DEFINITION_ARRIVAL_POISSON] = "poisson" };
const char *const def_smt_names[3] = { [DEFINITION_SMT_ANY] = NULL, [DEFINITION_SMT_ON] = "on",
                                       [DEFINITION_SMT_OFF] = "off" };
const char *const def_thp_names[4] = { [DEFINITION_THP_ANY] = NULL,
                                       [DEFINITION_THP_ALWAYS] = "always",
                                       [DEFINITION_THP_MADVISE] = "madvise",
                                       [DEFINITION_THP_NEVER] = "never" };
const char *const def_on_mismatch_names[2] = { [DEFINITION_ON_MISMATCH_FAIL] = "fail",
                                               [DEFINITION_ON_MISMATCH_WARN] = "warn" };

const char *definition_names_order(enum definition_order o) {
        return (size_t) o < ELEMENTSOF(def_order_names) ? def_order_names[o] : NULL;
}
