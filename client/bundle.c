/* bundle.c: slicelab export ID [-o FILE] and slicelab import FILE: a finished experiment's bundle
 * (GET /v1/experiments/{id}/bundle) to a file, and a bundle file into a daemon (POST /v1/imports),
 * e.g. a lab's results daemon. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/bundle-format.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "client/commands.h"
#include "client/exit-status.h"
#include "client/json-print.h"

int cmd_export(struct http *h, const struct client_options *o, const char *id) {
        _cleanup_free_ char *path = http_path(h, "/v1/experiments/", id, "/bundle");
        return client_stream_to(h, path, BUNDLE_MEDIA_TYPE, o->output);
}

int cmd_import(struct http *h, const struct client_options *o, const char *file) {
        _cleanup_fclose_ FILE *f = fopen(file, "re");
        struct stat st;
        if (!f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
                fprintf(stderr, "slicelab: %s: %s\n", file, f ? "not a regular file" : strerror(errno));
                return EXIT_USAGE;
        }
        struct http_response r;
        int k = http_upload(h, "/v1/imports", f, (long long) st.st_size, BUNDLE_MEDIA_TYPE, &r);
        if (k < 0) {
                fprintf(stderr, "slicelab: %s\n", h->error);
                return EXIT_DAEMON;
        }
        if (r.status != 200 && r.status != 201) {
                http_print_error(&r);
                http_response_done(&r);
                return EXIT_DAEMON;
        }
        _cleanup_json_ cJSON *j = cJSON_Parse(r.body);
        long status = r.status;
        http_response_done(&r);
        if (o->json) {
                json_print(j);
                return EXIT_OK;
        }
        const cJSON *origin = cJSON_GetObjectItem(j, "origin");
        printf("%s %s (from %s, experiment %s there)\n", status == 201 ? "imported" : "already stored",
               str_or(cJSON_GetStringValue(cJSON_GetObjectItem(j, "id")), "?"),
               str_or(cJSON_GetStringValue(cJSON_GetObjectItem(origin, "host")), "this host"),
               str_or(cJSON_GetStringValue(cJSON_GetObjectItem(origin, "id")), "?"));
        return EXIT_OK;
}
