/* peer-client.c: the load calls a coordinator makes on a peer, and which hosts are peers. */
#include "peer/peer-client.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "peer/peer-http.h"

/* The timeline may be large: no total timeout, but a peer that sends under 1 KiB/s for 10 s is
 * given up on. */
#define TIMELINE_TOTAL_TIMEOUT_MS (30L * 60 * 1000)

int peer_global_init(void) {
        return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

/* A load id as the peer made it: letters, digits and '-' only, so it is safe in a path. */
static int check_id(const char *host, const char *id, struct error *err) {
        size_t n = id ? strlen(id) : 0;
        if (n == 0 || n > PEER_ID_MAX || strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != n)
                return error_set(err, 502, "peer_failed", NULL, "peer %s: '%.*s' is not a load id",
                                 host, UTF8_PREFIX(id ? id : "", 64));
        return 0;
}

/* Exchanges about the load id with host. */
static int open_load(const struct peer_config *c, const char *host, const char *id, struct peer_http **ret,
                     struct error *err) {
        int r = check_id(host, id, err);
        return r < 0 ? r : peer_http_new(c, host, ret, err);
}

/* One request that must answer want; the body stays in h. */
static int call(struct peer_http *h, const char *method, const char *path, const char *body, long want,
                struct error *err) {
        int r = peer_http_exchange(h, method, path, body, PEER_TOTAL_TIMEOUT_MS, err);
        if (r < 0)
                return r;
        return peer_http_expect(h, method, path, want, err);
}

/* method /v1/loads/{id}{suffix} answering want. */
static int call_load(const struct peer_config *c, const char *host, const char *id, const char *method,
                     const char *suffix, long want, char **ret_body, struct error *err) {
        _cleanup_(peer_http_freep) struct peer_http *h = NULL;
        int r = open_load(c, host, id, &h, err);
        if (r < 0)
                return r;
        char path[128];
        snprintf(path, sizeof path, "/v1/loads/%s%s", id, suffix);
        r = call(h, method, path, NULL, want, err);
        if (r < 0)
                return r;
        if (ret_body) {
                *ret_body = h->body ? h->body : strdup("");
                h->body = NULL;
                if (!*ret_body)
                        return -ENOMEM;
        }
        return 0;
}

int peer_load_start(const struct peer_config *c, const char *host, const char *body_json,
                    char **ret_id, struct error *err) {
        _cleanup_(peer_http_freep) struct peer_http *h = NULL;
        int r = peer_http_new(c, host, &h, err);
        if (r < 0)
                return r;
        r = call(h, "POST", "/v1/loads", body_json, 201, err);
        if (r < 0)
                return r;
        _cleanup_(json_freep) cJSON *j = cJSON_Parse(h->body ? h->body : "");
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "id"));
        r = check_id(host, id, err);
        if (r < 0)
                return r;
        char *copy = strdup(id);
        if (!copy)
                return -ENOMEM;
        *ret_id = copy;
        return 0;
}

int peer_load_renew(const struct peer_config *c, const char *host, const char *id, struct error *err) {
        return call_load(c, host, id, "POST", "/lease", 200, NULL, err);
}

int peer_load_get(const struct peer_config *c, const char *host, const char *id,
                  char **ret_json, struct error *err) {
        return call_load(c, host, id, "GET", "", 200, ret_json, err);
}

int peer_load_delete(const struct peer_config *c, const char *host, const char *id, struct error *err) {
        return call_load(c, host, id, "DELETE", "", 202, NULL, err);
}

int peer_load_fetch_timeline(const struct peer_config *c, const char *host, const char *id,
                             int dir_fd, const char *name, struct error *err) {
        _cleanup_(peer_http_freep) struct peer_http *h = NULL;
        int r = open_load(c, host, id, &h, err);
        if (r < 0)
                return r;
        char tmp[300];
        if (snprintf(tmp, sizeof tmp, ".%s.part", name) >= (int) sizeof tmp || strchr(name, '/'))
                return error_set(err, 500, "internal", NULL, "peer %s: bad timeline file name", host);
        _cleanup_close_ int fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return error_set_errno(err, errno, 500, "internal", NULL, "peer %s: cannot create %s: %s", host, tmp,
                                       strerror(errno));
        h->sink_fd = fd;
        h->sink_max = PEER_TIMELINE_MAX;
        curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, 10L);
        char path[128];
        snprintf(path, sizeof path, "/v1/loads/%s/timeline", id);
        r = peer_http_exchange(h, "GET", path, NULL, TIMELINE_TOTAL_TIMEOUT_MS, err);
        if (r >= 0)
                r = peer_http_expect(h, "GET", path, 200, err);
        if (r >= 0 && fsync(fd) < 0)
                r = error_set_errno(err, errno, 500, "internal", NULL, "peer %s: cannot write %s: %s", host, name,
                                    strerror(errno));
        if (r >= 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
                r = error_set_errno(err, errno, 500, "internal", NULL, "peer %s: cannot rename to %s: %s", host, name,
                                    strerror(errno));
        if (r < 0)
                (void) unlinkat(dir_fd, tmp, 0);
        return r;
}
