/* peer-http.c: HTTP exchanges with a peer's daemon (see peer-http.h). */
#include "peer/peer-http.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"

static size_t on_body(char *data, size_t size, size_t n, void *userdata) {
        struct peer_http *h = userdata;
        size_t len = size * n;
        if (h->sink_fd >= 0 && h->status / 100 == 2) {
                if ((uint64_t) h->size + len > h->sink_max) {
                        h->too_big = true;
                        return 0;
                }
                int r = write_full(h->sink_fd, data, len);
                if (r < 0) {
                        h->sink_error = r;
                        return 0;
                }
                h->size += len;
                return len;
        }
        if (h->size + len > PEER_BODY_MAX) {
                h->too_big = true;
                return 0;
        }
        char *grown = realloc(h->body, h->size + len + 1);
        if (!grown)
                return 0;
        memcpy(grown + h->size, data, len);
        h->size += len;
        grown[h->size] = '\0';
        h->body = grown;
        return len;
}

/* The status is known before the body: a sink takes only a 2xx answer's body. */
static size_t on_header(char *data, size_t size, size_t n, void *userdata) {
        struct peer_http *h = userdata;
        if (size * n > 5 && strncmp(data, "HTTP/", 5) == 0)
                curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &h->status);
        return size * n;
}

/* The template with {host} replaced; an IPv6 literal goes in brackets. */
static int make_base(struct peer_http *h, struct error *err) {
        const char *tpl = h->config->url_template, *mark = tpl ? strstr(tpl, "{host}") : NULL;
        if (!mark)
                return error_set(err, 502, "peer_not_configured", NULL,
                                 "peer %s: this daemon has no --peer-url-template", h->host);
        bool v6 = strchr(h->host, ':') != NULL;
        int n = snprintf(h->base, sizeof h->base, "%.*s%s%s%s%s", (int) (mark - tpl), tpl, v6 ? "[" : "", h->host,
                         v6 ? "]" : "", mark + strlen("{host}"));
        if (n < 0 || (size_t) n >= sizeof h->base)
                return error_set(err, 502, "peer_not_configured", NULL, "peer %s: the URL is too long", h->host);
        if (n > 0 && h->base[n - 1] == '/')
                h->base[n - 1] = '\0';
        return 0;
}

/* Fills *h; on failure what it made is freed by http_done(). */
static int http_setup(struct peer_http *h, const struct peer_config *c, const char *host, struct error *err) {
        *h = (struct peer_http){ .config = c, .host = host, .sink_fd = -1 };
        if (!peer_host_valid(host))
                return error_set(err, 400, "invalid_host", NULL, "peer '%.*s' is not a host name or IP literal",
                                 UTF8_PREFIX(host, 64));
        if (!peer_host_allowed(c, host))
                return error_set_errno(err, EPERM, 403, "peer_not_allowed", NULL, "peer %s is not matched by --peer-allow", host);
        int r = make_base(h, err);
        if (r < 0)
                return r;
        CURL *curl = curl_easy_init();
        if (!curl)
                return error_set_errno(err, ENOMEM, 500, "internal", NULL, "peer %s: cannot start libcurl", host);
        h->curl = curl;
        struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
        if (c->token && hd) {
                char auth[160];
                snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->token);
                struct curl_slist *more = curl_slist_append(hd, auth);
                explicit_bzero(auth, sizeof auth);
                if (!more) {
                        curl_slist_free_all(hd);
                        hd = NULL;
                } else
                        hd = more;
        }
        if (!hd)
                return error_set_errno(err, ENOMEM, 500, "internal", NULL, "peer %s: out of memory", host);
        h->headers = hd;
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hd);
        curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long) PEER_CONNECT_TIMEOUT_MS);
        curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, h->errbuf);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, h);
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, h);
        curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
        return 0;
}

static void http_done(struct peer_http *h) {
        if (h->curl)
                curl_easy_cleanup(h->curl);
        curl_slist_free_all(h->headers);
        free(h->body);
}

void peer_http_free(struct peer_http *h) {
        if (!h)
                return;
        http_done(h);
        free(h);
}

int peer_http_new(const struct peer_config *c, const char *host, struct peer_http **ret, struct error *err) {
        struct peer_http *h = malloc(sizeof *h);
        if (!h)
                return error_set_errno(err, ENOMEM, 500, "internal", NULL, "peer %s: out of memory", host);
        int r = http_setup(h, c, host, err);
        if (r < 0) {
                http_done(h);
                free(h);
                return r;
        }
        *ret = h;
        return 0;
}

/* Why libcurl could not make a transfer, as an errno: the system's when a connect failed. */
static int transfer_errno(CURL *curl, CURLcode rc) {
        long os_errno = 0;
        if (curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK && os_errno > 0 && os_errno < 4096)
                return -(int) os_errno;
        switch (rc) {
        case CURLE_OPERATION_TIMEDOUT:
                return -ETIMEDOUT;
        case CURLE_COULDNT_RESOLVE_HOST:
                return -EHOSTUNREACH;
        case CURLE_COULDNT_CONNECT:
                return -ECONNREFUSED;
        case CURLE_OUT_OF_MEMORY:
                return -ENOMEM;
        default:
                return -EIO;
        }
}

int peer_http_prepare(struct peer_http *h, const char *method, const char *path, const char *body,
                      long total_timeout_ms, struct error *err) {
        char url[sizeof h->base + 200];
        if (snprintf(url, sizeof url, "%s%s", h->base, path) >= (int) sizeof url)
                return error_set(err, 502, "peer_failed", NULL, "peer %s: the URL of %s is too long", h->host, path);
        free(h->body);
        h->body = NULL;
        h->size = 0;
        h->status = 0;
        h->too_big = false;
        h->sink_error = 0;
        h->errbuf[0] = '\0';
        CURL *curl = h->curl;
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, total_timeout_ms);
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, NULL);
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
        if (strcmp(method, "POST") == 0) {
                curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body ? body : "");
                curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long) (body ? strlen(body) : 0));
        } else if (strcmp(method, "GET") != 0)
                curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
        return 0;
}

int peer_http_done(struct peer_http *h, int curl_code, const char *method, const char *path, struct error *err) {
        CURL *curl = h->curl;
        CURLcode rc = (CURLcode) curl_code;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &h->status);
        if (h->too_big)
                return error_set_errno(err, EFBIG, 502, "peer_failed", NULL, "peer %s: %s %s: the answer is larger than allowed",
                                       h->host, method, path);
        if (h->sink_error < 0)
                return error_set_errno(err, h->sink_error, 500, "internal", NULL, "peer %s: %s %s: cannot write the answer: %s",
                                       h->host, method, path, strerror(-h->sink_error));
        if (rc != CURLE_OK)
                return error_set_errno(err, transfer_errno(curl, rc), 502, "peer_unreachable", NULL, "peer %s: %s %s: %s",
                                       h->host, method, path, h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc));
        return 0;
}

int peer_http_exchange(struct peer_http *h, const char *method, const char *path, const char *body,
                       long total_timeout_ms, struct error *err) {
        int r = peer_http_prepare(h, method, path, body, total_timeout_ms, err);
        if (r < 0)
                return r;
        return peer_http_done(h, curl_easy_perform(h->curl), method, path, err);
}

int peer_http_expect(struct peer_http *h, const char *method, const char *path, long want, struct error *err) {
        if (h->status == want)
                return 0;
        _cleanup_(json_freep) cJSON *j = h->body ? cJSON_Parse(h->body) : NULL;
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        error_set(err, 502, "peer_refused", NULL, "peer %s: %s %s: HTTP %ld%s%.*s", h->host, method, path, h->status,
                  msg ? ": " : "", UTF8_PREFIX(msg ? msg : "", 300));
        return -EPROTO;
}
