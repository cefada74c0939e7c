/* submit.c: `slicelab submit FILE [--wait] [--key KEY]`. A connection that fails (daemon
 * restarting, network dropped after the request went out) is retried with the same
 * Idempotency-Key, generated when none is given, so that however many attempts reach the daemon
 * there is one experiment. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"

#define BACKOFF_FIRST_NS 200000000L
#define BACKOFF_MAX_NS 2000000000L

int client_read_body(const char *file, char **ret) {
        if (strcmp(file, "-") != 0) {
                size_t size;
                return read_file_bounded(file, CLIENT_BODY_MAX, ret, &size);
        }
        _cleanup_free_ char *buf = malloc(CLIENT_BODY_MAX + 1);
        if (!buf)
                abort();
        size_t n = fread(buf, 1, CLIENT_BODY_MAX + 1, stdin);
        if (ferror(stdin))
                return -EIO;
        if (n > CLIENT_BODY_MAX)
                return -EFBIG;
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

static void generate_key(char *buf, size_t size) {
        uint64_t r[2];
        if (getrandom(r, sizeof r, 0) != sizeof r)
                abort();
        snprintf(buf, size, "slicelab-%016" PRIx64 "%016" PRIx64, r[0], r[1]);
}

static double seconds_since(const struct timespec *t0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double) (now.tv_sec - t0->tv_sec) + (double) (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* POSTs until an answer other than 503 comes or retry_for_s ran out; *ret is that answer. */
static int post_with_retries(struct http *h, const struct client_options *o, const char *body,
                             const char *key, struct http_response *ret) {
        _cleanup_free_ char *header = NULL;
        long backoff = BACKOFF_FIRST_NS;
        struct timespec t0;

        if (asprintf(&header, "Idempotency-Key: %s", key) < 0)
                abort();
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int attempt = 1;; attempt++) {
                struct http_response r;
                int k = http_request(h, "POST", "/v1/experiments", body, header, NULL, NULL, &r);
                bool again = k == -EAGAIN || (k == 0 && r.status == 503);
                if (!again || seconds_since(&t0) + (double) backoff / 1e9 > o->retry_for_s) {
                        if (k < 0) {
                                fprintf(stderr, "slicelab: %s (%d attempt%s, key %s)\n", h->error,
                                        attempt, attempt > 1 ? "s" : "", key);
                                return EXIT_DAEMON;
                        }
                        *ret = r;
                        return 0;
                }
                /* Said once: a daemon restarting for a minute should not fill a job's log. */
                if (attempt == 1)
                        fprintf(stderr, "slicelab: %s; retrying for up to %.0f s with key %s\n",
                                k < 0 ? h->error : "daemon unavailable (503)", o->retry_for_s, key);
                if (k == 0)
                        http_response_done(&r);
                nanosleep(&(struct timespec) { .tv_sec = backoff / 1000000000L,
                                               .tv_nsec = backoff % 1000000000L }, NULL);
                backoff = MIN(backoff * 2, BACKOFF_MAX_NS);
        }
}

int client_created(struct http_response *r, const char *noun, cJSON **ret, const char **ret_id) {
        if (r->status != 200 && r->status != 201) {
                http_print_error(r);
                http_response_done(r);
                return EXIT_DAEMON;
        }
        cJSON *created = cJSON_Parse(r->body);
        http_response_done(r);
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(created, "id"));
        if (!id) {
                cJSON_Delete(created);
                fprintf(stderr, "slicelab: the daemon's answer names no %s\n", noun);
                return EXIT_DAEMON;
        }
        *ret = created;
        *ret_id = id;
        return 0;
}

int cmd_submit(struct http *h, const struct client_options *o, const char *file) {
        _cleanup_free_ char *body = NULL;
        _cleanup_json_ cJSON *created = NULL;
        struct http_response r;
        char key[256];
        int k;

        k = client_read_body(file, &body);
        if (k < 0) {
                fprintf(stderr, "slicelab: %s: %s\n", file,
                        k == -EFBIG ? "larger than 1 MiB" : strerror(-k));
                return EXIT_USAGE;
        }
        if (o->key)
                snprintf(key, sizeof key, "%s", o->key);
        else
                generate_key(key, sizeof key);
        k = post_with_retries(h, o, body, key, &r);
        if (k != 0)
                return k;
        const char *id;
        if ((k = client_created(&r, "experiment", &created, &id)) != 0)
                return k;
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(created, "warnings"))
                fprintf(stderr, "slicelab: warning: %s\n", str_or(cJSON_GetStringValue(w), "?"));
        if (o->wait) {
                if (!o->json)
                        printf("%s\n", id);
                fflush(stdout);
                return cmd_wait(h, o, id);
        }
        if (o->json)
                json_print(created);
        else
                printf("%s\n", id);
        return EXIT_OK;
}
