/* exit-status.c: the exit status an experiment's outcome stands for (see exit-status.h). */
#include <string.h>

#include "client/exit-status.h"

static const char *status_of(const cJSON *exp) {
        return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(exp, "status"));
}

bool exit_status_is_final(const cJSON *exp) {
        const char *s = status_of(exp);
        return s && strcmp(s, "queued") != 0 && strcmp(s, "running") != 0;
}

int exit_status_of_experiment(const cJSON *exp) {
        if (!exit_status_is_final(exp))
                return EXIT_OK;
        if (strcmp(status_of(exp), "succeeded") != 0)
                return EXIT_NOT_SUCCEEDED;
        const cJSON *passed = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(exp, "verdict"), "passed");
        return cJSON_IsFalse(passed) ? EXIT_CHECKS : EXIT_OK;
}
