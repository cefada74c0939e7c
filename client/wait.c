/* wait.c: waiting for an experiment to finish, with a progress bar on a terminal and plain lines
 * otherwise, and the exit status its outcome stands for. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"
#include "client/run-failures.h"

#define POLL_INTERVAL_NS 500000000L
#define BAR_WIDTH 30

static void show_bar(const cJSON *exp, const char *id, double elapsed_s) {
        struct json_print_progress p = json_print_progress(exp);
        char bar[BAR_WIDTH + 1];
        int fill = p.total > 0 ? (int) (BAR_WIDTH * p.done / p.total) : 0;
        for (int i = 0; i < BAR_WIDTH; i++)
                bar[i] = i < fill ? '#' : '.';
        bar[BAR_WIDTH] = '\0';
        fprintf(stderr, "\r%s [%s] %.0f/%.0f runs  %-9s %4.0fs %-24s", id, bar, p.done, p.total,
                json_print_str(exp, "status"), elapsed_s, p.phases);
}

/* "; stop rule: round 4 of at most 12, 1 of 2 decided" for an experiment with one. */
static void stop_rule_progress(const cJSON *exp, char *buf, size_t size) {
        const cJSON *seq = cJSON_GetObjectItemCaseSensitive(exp, "sequential"), *c;
        double rounds = 0, max_rounds = 0;
        unsigned decided = 0, n = 0;
        buf[0] = '\0';
        if (!cJSON_IsObject(seq))
                return;
        json_print_num(seq, "rounds", &rounds);
        json_print_num(seq, "max_rounds", &max_rounds);
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(seq, "comparisons")) {
                n++;
                decided += strcmp(json_print_str(c, "decision"), "undecided") != 0;
        }
        snprintf(buf, size, "; stop rule: %.0f of at most %.0f rounds ended, %u of %u comparisons decided", rounds, max_rounds,
                 decided, n);
}

/* Plain lines (logs, Slurm's output file): one when something changed. */
static void show_line(const cJSON *exp, const char *id, char *last, size_t size) {
        struct json_print_progress p = json_print_progress(exp);
        char line[384], stop[128];
        stop_rule_progress(exp, stop, sizeof stop);
        snprintf(line, sizeof line, "experiment %s: %s, %.0f/%.0f runs done%s%s%s", id,
                 json_print_str(exp, "status"), p.done, p.total, p.phases[0] ? ", " : "", p.phases, stop);
        if (strcmp(line, last) == 0)
                return;
        fprintf(stderr, "%s\n", line);
        snprintf(last, size, "%s", line);
}

/* Polls until finished; *ret is the finished experiment. Returns 0 or EXIT_DAEMON. A daemon
 * restarting meanwhile is waited for (--retry-for), as an experiment may take hours. */
static int wait_finished(struct http *h, const struct client_options *o, const char *id, cJSON **ret) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "");
        bool tty = isatty(STDERR_FILENO);
        char last[384] = "";
        struct timespec start, now;

        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                cJSON *exp = NULL;
                int k = http_get_json_retrying(h, path, o->retry_for_s, &exp);
                if (k != 0) {
                        if (tty)
                                fputc('\n', stderr);
                        return k;
                }
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (tty)
                        show_bar(exp, id, (double) (now.tv_sec - start.tv_sec));
                else
                        show_line(exp, id, last, sizeof last);
                if (exit_status_is_final(exp)) {
                        if (tty)
                                fputc('\n', stderr);
                        *ret = exp;
                        return 0;
                }
                cJSON_Delete(exp);
                nanosleep(&(struct timespec) { .tv_nsec = POLL_INTERVAL_NS }, NULL);
        }
}

int cmd_wait(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_json_ cJSON *exp = NULL;
        int k = wait_finished(h, o, id, &exp);
        if (k != 0)
                return k;
        if (o->json)
                json_print(exp);
        else {
                struct json_print_progress p = json_print_progress(exp);
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(exp, "verdict");
                printf("%s %s (%.0f/%.0f runs)%s\n", id, json_print_str(exp, "status"), p.done, p.total,
                       !cJSON_IsObject(v) ? "" : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "passed")) ?
                       ", checks passed" : ", checks FAILED");
                json_print_sequential(cJSON_GetObjectItemCaseSensitive(exp, "sequential"));
                if (run_failures_expected(exp) && (k = run_failures_print(h, id, stdout)) != 0)
                        return k;
        }
        return exit_status_of_experiment(exp);
}
