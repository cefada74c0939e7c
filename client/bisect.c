/* bisect.c: `slicelab bisect FILE`: starts a bisection (POST /v1/bisections), follows its steps
 * as they are decided, and exits with the status its outcome stands for: found 0, no change 3,
 * undecided 5, failed or cancelled 1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"

#define POLL_INTERVAL_NS 500000000L

static const char *version_at(const cJSON *pair, int i) {
        return str_or(cJSON_GetStringValue(cJSON_GetArrayItem(pair, i)), "?");
}

/* "step 2: v4 against v3 (attempt 0): different, ratio 1.52 in [1.31, 1.77]" */
static void print_step(const cJSON *step) {
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(step, "versions");
        const cJSON *interval = cJSON_GetObjectItemCaseSensitive(step, "interval");
        double n = 0, attempt = 0, ratio;
        json_print_num(step, "step", &n);
        json_print_num(step, "attempt", &attempt);
        fprintf(stderr, "step %.0f: %s against %s (attempt %.0f, experiment %s): %s", n, version_at(versions, 1),
                version_at(versions, 0), attempt, json_print_str(step, "experiment_id"),
                json_print_str(step, "decision"));
        if (json_print_num(step, "ratio", &ratio)) {
                fprintf(stderr, ", ratio %.3f", ratio);
                if (cJSON_GetArraySize(interval) == 2)
                        fprintf(stderr, " in [%.3f, %.3f]", cJSON_GetNumberValue(cJSON_GetArrayItem(interval, 0)),
                                cJSON_GetNumberValue(cJSON_GetArrayItem(interval, 1)));
        }
        fputc('\n', stderr);
}

/* Prints the steps decided since the last call; *printed counts those already printed. Steps
 * are listed in order and only the newest may still be running. */
static void print_new_steps(const cJSON *bisection, int *printed) {
        const cJSON *steps = cJSON_GetObjectItemCaseSensitive(bisection, "steps");
        for (int i = *printed; i < cJSON_GetArraySize(steps); i++) {
                const cJSON *step = cJSON_GetArrayItem(steps, i);
                if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(step, "decision")))
                        return;
                print_step(step);
                *printed = i + 1;
        }
}

static bool bisection_is_final(const cJSON *bisection) {
        const char *status = json_print_str(bisection, "status");
        return strcmp(status, "queued") != 0 && strcmp(status, "running") != 0;
}

static int exit_status_of_bisection(const cJSON *bisection) {
        const char *outcome = json_print_str(cJSON_GetObjectItemCaseSensitive(bisection, "result"), "outcome");
        if (strcmp(json_print_str(bisection, "status"), "succeeded") != 0)
                return EXIT_NOT_SUCCEEDED;
        if (strcmp(outcome, "found") == 0)
                return EXIT_OK;
        if (strcmp(outcome, "no_change") == 0)
                return EXIT_NO_CHANGE;
        return EXIT_UNDECIDED;
}

static void print_result(const cJSON *bisection) {
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(bisection, "result");
        const cJSON *range = cJSON_GetObjectItemCaseSensitive(result, "range");
        const char *outcome = json_print_str(result, "outcome");
        const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(bisection, "message"));

        if (strcmp(outcome, "found") == 0)
                printf("%s: first changed %s (last unchanged %s)\n", json_print_str(bisection, "id"),
                       json_print_str(result, "first_changed"), json_print_str(result, "last_unchanged"));
        else if (strcmp(outcome, "no_change") == 0 || strcmp(outcome, "undecided") == 0)
                printf("%s: %s between %s and %s\n", json_print_str(bisection, "id"), outcome, version_at(range, 0),
                       version_at(range, 1));
        else
                printf("%s: %s\n", json_print_str(bisection, "id"), json_print_str(bisection, "status"));
        if (message)
                printf("%s\n", message);
}

/* POST once: a bisection has no idempotency key, so a retried POST could start it twice. */
static int start_bisection(struct http *h, const char *body, char **ret_id) {
        _cleanup_json_ cJSON *created = NULL;
        struct http_response r;

        if (http_request(h, "POST", "/v1/bisections", body, NULL, NULL, NULL, &r) < 0) {
                fprintf(stderr, "slicelab: %s\n", h->error);
                return EXIT_DAEMON;
        }
        const char *id;
        int k = client_created(&r, "bisection", &created, &id);
        if (k != 0)
                return k;
        *ret_id = strdup(id);
        if (!*ret_id)
                abort();
        return 0;
}

int cmd_bisect(struct http *h, const struct client_options *o, const char *file) {
        _cleanup_free_ char *body = NULL, *id = NULL, *path = NULL;
        int printed = 0, k;

        k = client_read_body(file, &body);
        if (k < 0) {
                fprintf(stderr, "slicelab: %s: %s\n", file, k == -EFBIG ? "larger than 1 MiB" : strerror(-k));
                return EXIT_USAGE;
        }
        k = start_bisection(h, body, &id);
        if (k != 0)
                return k;
        fprintf(stderr, "bisection %s started\n", id);
        path = http_path(h, "/v1/bisections/", id, "");
        for (;;) {
                _cleanup_json_ cJSON *bisection = NULL;
                k = http_get_json_retrying(h, path, o->retry_for_s, &bisection);
                if (k != 0)
                        return k;
                print_new_steps(bisection, &printed);
                if (bisection_is_final(bisection)) {
                        if (o->json)
                                json_print(bisection);
                        else
                                print_result(bisection);
                        return exit_status_of_bisection(bisection);
                }
                nanosleep(&(struct timespec) { .tv_nsec = POLL_INTERVAL_NS }, NULL);
        }
}
