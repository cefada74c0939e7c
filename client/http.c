/* http.c: requests to slicelabd through libcurl (see http.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "client/exit-status.h"
#include "client/http.h"

/* Whole answers are small JSON documents; anything bigger is streamed to a sink. */
#define MAX_BODY (64u << 20)

struct buffer {
        char *data;
        size_t size;
        FILE *sink;
        long *status;           /* to stream only a 2xx answer into the sink */
        bool too_big;
};

/* HOST[:PORT][/]: a host, and a port of 1-65535 when a colon says there is one. */
static bool valid_authority(const char *a) {
        size_t n = strlen(a);
        if (n > 0 && a[n - 1] == '/')
                n--;
        if (n == 0 || memchr(a, '/', n) || a[0] == ':')
                return false;
        const char *colon = memrchr(a, ':', n), *bracket = memrchr(a, ']', n);
        if (!colon || (bracket && bracket > colon))
                return true;
        size_t digits = n - (size_t) (colon + 1 - a);
        if (digits == 0 || digits > 5 || strspn(colon + 1, "0123456789") < digits)
                return false;
        long port = strtol(colon + 1, NULL, 10);
        return port >= 1 && port <= 65535;
}

int http_open(struct http *h, const char *url, const char *token, const char *cacert) {
        CURL *c;
        bool tls = strncmp(url, "https://", 8) == 0;
        const char *authority = tls ? url + 8 : strncmp(url, "http://", 7) == 0 ? url + 7 : url;

        *h = (struct http) { 0 };
        if (strncmp(url, "unix:", 5) == 0) {
                if (url[5] != '/')
                        return -EINVAL;
                if (!(h->unix_path = strdup(url + 5)) || !(h->base = strdup("http://localhost")))
                        abort();
        } else {
                if (strstr(authority, "://") || !valid_authority(authority))
                        return -EINVAL;
                if (asprintf(&h->base, "%s://%s", tls ? "https" : "http", authority) < 0)
                        abort();
                /* "http://host:port/" and "http://host:port" name the same daemon */
                size_t n = strlen(h->base);
                if (h->base[n - 1] == '/')
                        h->base[n - 1] = '\0';
        }
        if ((token && !(h->token = strdup(token))) || (cacert && !(h->cacert = strdup(cacert))))
                abort();
        c = curl_easy_init();
        if (!c)
                abort();
        h->curl = c;
        return 0;
}

void http_close(struct http *h) {
        if (h->curl)
                curl_easy_cleanup(h->curl);
        free(h->base);
        free(h->unix_path);
        free(h->token);
        free(h->cacert);
        *h = (struct http) { 0 };
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct buffer *b = userdata;
        size_t n = size * nmemb;

        if (b->sink && *b->status / 100 == 2)
                return fwrite(ptr, 1, n, b->sink) == n ? n : 0;
        if (b->size + n > MAX_BODY) {
                b->too_big = true;
                return 0;
        }
        char *p = realloc(b->data, b->size + n + 1);
        if (!p)
                abort();
        memcpy(p + b->size, ptr, n);
        b->size += n;
        p[b->size] = '\0';
        b->data = p;
        return n;
}

/* The status is known once the headers are in, before the first byte of the body. */
static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct buffer *b = userdata;
        if (nmemb * size > 9 && strncmp(ptr, "HTTP/", 5) == 0) {
                const char *sp = memchr(ptr, ' ', size * nmemb);
                if (sp)
                        *b->status = strtol(sp + 1, NULL, 10);
        }
        return size * nmemb;
}

static bool retryable(CURLcode rc) {
        switch (rc) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_GOT_NOTHING:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_PARTIAL_FILE:
                return true;
        default:
                return false;
        }
}

/* One exchange; the body is JSON text, or an upload read from a file (with its type and size). */
struct request_body {
        const char *json;
        FILE *upload;
        long long upload_size;
        const char *upload_type;        /* "Content-Type: ..." */
};

static int perform(struct http *h, const char *method, const char *path, const struct request_body *rb,
                   const char *extra_header, const char *accept, FILE *sink, struct http_response *ret) {
        const char *body = rb->json;
        CURL *c = h->curl;
        struct curl_slist *headers = NULL;
        _cleanup_free_ char *url = NULL, *auth = NULL, *acc = NULL;
        long status = 0;
        struct buffer b = { .sink = sink, .status = &status };
        char errbuf[CURL_ERROR_SIZE] = "";
        CURLcode rc;

        if (asprintf(&url, "%s%s", h->base, path) < 0 ||
            asprintf(&acc, "Accept: %s", str_or(accept, "application/json")) < 0)
                abort();
        headers = curl_slist_append(headers, acc);
        if (h->token) {
                if (asprintf(&auth, "Authorization: Bearer %s", h->token) < 0)
                        abort();
                headers = curl_slist_append(headers, auth);
        }
        if (body)
                headers = curl_slist_append(headers, "Content-Type: application/json");
        if (rb->upload)
                headers = curl_slist_append(headers, rb->upload_type);
        if (extra_header)
                headers = curl_slist_append(headers, extra_header);
        if (!headers)
                abort();

        curl_easy_reset(c);
        curl_easy_setopt(c, CURLOPT_URL, url);
        if (h->unix_path)
                curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, h->unix_path);
        if (h->cacert)
                curl_easy_setopt(c, CURLOPT_CAINFO, h->cacert);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
        curl_easy_setopt(c, CURLOPT_PROXY, "");  /* the daemon is local: never through a proxy */
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &b);
        curl_easy_setopt(c, CURLOPT_USERAGENT, "slicelab/" SLICELAB_VERSION);
        if (body) {
                curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
                curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) strlen(body));
        }
        if (rb->upload) {
                curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
                curl_easy_setopt(c, CURLOPT_READDATA, rb->upload);
                curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t) rb->upload_size);
        }
        rc = curl_easy_perform(c);
        curl_slist_free_all(headers);
        if (rc != CURLE_OK) {
                free(b.data);
                if (b.too_big)
                        snprintf(h->error, sizeof h->error, "answer larger than %u MiB", MAX_BODY >> 20);
                else if (rc == CURLE_PEER_FAILED_VERIFICATION)
                        snprintf(h->error, sizeof h->error, "%.*s: the daemon's certificate did not verify "
                                 "(%.*s); give the CA that signed it with --cacert FILE or $SLICELAB_CACERT",
                                 UTF8_PREFIX(h->base, 200), UTF8_PREFIX(errbuf[0] ? errbuf : curl_easy_strerror(rc), 200));
                else
                        snprintf(h->error, sizeof h->error, "%.*s: %.*s", UTF8_PREFIX(str_or(h->unix_path, h->base), 200),
                                 UTF8_PREFIX(errbuf[0] ? errbuf : curl_easy_strerror(rc), 256));
                return retryable(rc) ? -EAGAIN : -EIO;
        }
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        *ret = (struct http_response) { .status = status, .body = b.data, .size = b.size };
        if (!ret->body && !(sink && status / 100 == 2) && !(ret->body = strdup("")))
                abort();
        return 0;
}

int http_request(struct http *h, const char *method, const char *path, const char *body,
                 const char *extra_header, const char *accept, FILE *sink, struct http_response *ret) {
        const struct request_body rb = { .json = body };
        return perform(h, method, path, &rb, extra_header, accept, sink, ret);
}

int http_upload(struct http *h, const char *path, FILE *file, long long size, const char *content_type,
                struct http_response *ret) {
        _cleanup_free_ char *type = NULL;
        if (asprintf(&type, "Content-Type: %s", content_type) < 0)
                abort();
        const struct request_body rb = { .upload = file, .upload_size = size, .upload_type = type };
        return perform(h, "POST", path, &rb, NULL, NULL, NULL, ret);
}

void http_response_done(struct http_response *r) {
        free(r->body);
        *r = (struct http_response) { 0 };
}

int http_get_json_retrying(struct http *h, const char *path, double retry_for_s, cJSON **ret) {
        struct http_response r;
        struct timespec t0, now;
        bool said = false;
        int k;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        while ((k = http_request(h, "GET", path, NULL, NULL, NULL, NULL, &r)) == -EAGAIN) {
                clock_gettime(CLOCK_MONOTONIC, &now);
                if ((double) (now.tv_sec - t0.tv_sec) + 1 > retry_for_s)
                        break;
                if (!said)
                        fprintf(stderr, "slicelab: %s; trying again for up to %.0f s\n", h->error, retry_for_s);
                said = true;
                nanosleep(&(struct timespec) { .tv_sec = 1 }, NULL);
        }
        if (k < 0) {
                fprintf(stderr, "slicelab: %s\n", h->error);
                return EXIT_DAEMON;
        }
        if (r.status != 200) {
                http_print_error(&r);
                http_response_done(&r);
                return EXIT_DAEMON;
        }
        cJSON *j = cJSON_Parse(r.body);
        http_response_done(&r);
        if (!j) {
                fprintf(stderr, "slicelab: GET %s: the daemon's answer is not JSON\n", path);
                return EXIT_DAEMON;
        }
        *ret = j;
        return 0;
}

int http_get_json(struct http *h, const char *path, cJSON **ret) {
        return http_get_json_retrying(h, path, 0, ret);
}

int http_get_json_pages(struct http *h, const char *path, const char *key, cJSON **ret) {
        _cleanup_json_ cJSON *all = cJSON_CreateArray();
        _cleanup_free_ char *cursor = NULL;

        do {
                _cleanup_free_ char *p = NULL, *e = cursor ? http_escape(h, cursor) : NULL;
                _cleanup_json_ cJSON *page = NULL;
                if (asprintf(&p, "%s%s%s", path, e ? "&cursor=" : "", str_or(e, "")) < 0)
                        abort();
                int k = http_get_json(h, p, &page);
                if (k != 0)
                        return k;
                cJSON *item, *list = cJSON_GetObjectItemCaseSensitive(page, key);
                while ((item = cJSON_DetachItemFromArray(list, 0)))
                        cJSON_AddItemToArray(all, item);
                free(cursor);
                const char *next = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(page, "next_cursor"));
                cursor = next ? strdup(next) : NULL;
                if (next && !cursor)
                        abort();
        } while (cursor);
        *ret = TAKE_PTR(all);
        return 0;
}

void http_print_error(const struct http_response *r) {
        _cleanup_json_ cJSON *j = r->body ? cJSON_Parse(r->body) : NULL;
        cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
        const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "code"));
        const char *field = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "field"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));

        if (!msg) {
                fprintf(stderr, "slicelab: HTTP %ld%s%.*s\n", r->status,
                        r->body && r->body[0] ? ": " : "", UTF8_PREFIX(r->body ? r->body : "", 200));
                return;
        }
        fprintf(stderr, "slicelab: HTTP %ld %s%s%s: %s\n", r->status, str_or(code, "error"),
                field ? " field " : "", str_or(field, ""), msg);
}

char *http_escape(struct http *h, const char *s) {
        char *e = curl_easy_escape(h->curl, s, 0), *copy;
        if (!e || !(copy = strdup(e)))
                abort();
        curl_free(e);
        return copy;
}

char *http_path_add(struct http *h, char *path, const char *name, const char *value) {
        if (!value)
                return path;
        _cleanup_free_ char *e = http_escape(h, value), *old = path;
        char *p;
        if (asprintf(&p, "%s&%s=%s", old, name, e) < 0)
                abort();
        return p;
}

char *http_path(struct http *h, const char *prefix, const char *id, const char *suffix) {
        _cleanup_free_ char *e = http_escape(h, id);
        char *p;
        if (asprintf(&p, "%s%s%s", prefix, e, suffix) < 0)
                abort();
        return p;
}
