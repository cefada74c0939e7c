/* run-failures.c: the failed runs of an experiment, each with its reason and message (see
 * run-failures.h). */
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/exit-status.h"
#include "client/json-print.h"
#include "client/run-failures.h"

bool run_failures_expected(const cJSON *exp) {
        const cJSON *by_state = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(exp, "progress"), "by_state");
        double failed = 0, interrupted = 0;
        json_print_num(by_state, "failed", &failed);
        json_print_num(by_state, "interrupted", &interrupted);
        return failed + interrupted > 0 ||
               (exit_status_is_final(exp) && strcmp(json_print_str(exp, "status"), "succeeded") != 0);
}

static bool failed(const cJSON *run) {
        const char *state = json_print_str(run, "state");
        return strcmp(state, "failed") == 0 || strcmp(state, "interrupted") == 0 ||
               strcmp(json_print_str(run, "reason"), "repeated_failure") == 0;
}

/* "run ID: STATE (REASON): MESSAGE"; the message from the run itself, as the list has none. */
static int print_one(struct http *h, const cJSON *summary, FILE *f) {
        const char *id = json_print_str(summary, "id");
        _cleanup_free_ char *path = http_path(h, "/v1/runs/", id, "");
        _cleanup_json_ cJSON *run = NULL;
        int k = http_get_json(h, path, &run);
        if (k != 0)
                return k;
        const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "message"));
        fprintf(f, "run %s: %s (%s)%s%s\n", id, json_print_str(run, "state"), json_print_str(run, "reason"),
                message ? ": " : "", str_or(message, ""));
        return 0;
}

int run_failures_print(struct http *h, const char *id, FILE *f) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "/runs?limit=1000");
        _cleanup_json_ cJSON *runs = NULL;
        const cJSON *r;
        unsigned n = 0;
        int k = http_get_json_pages(h, path, "runs", &runs);
        if (k != 0)
                return k;
        cJSON_ArrayForEach(r, runs) {
                if (!failed(r))
                        continue;
                if (++n <= RUN_FAILURES_MAX && (k = print_one(h, r, f)) != 0)
                        return k;
        }
        if (n > RUN_FAILURES_MAX)
                fprintf(f, "(%u more failed runs: slicelab runs %s)\n", n - RUN_FAILURES_MAX, id);
        return 0;
}
