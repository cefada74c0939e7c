/* http.h: the client's one connection to slicelabd (libcurl), over TCP (HTTP or HTTPS) or a
 * unix socket, with the bearer token on every request. A transport failure is told apart from an
 * HTTP answer: the first may be retried, the second is what the daemon said. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* s, or d when s is NULL */
static inline const char *str_or(const char *s, const char *d) {
        return s ? s : d;
}

struct http {
        void *curl;             /* CURL * */
        char *base;             /* "http://127.0.0.1:7878" (or "http://localhost" on a socket) */
        char *unix_path;        /* NULL over TCP */
        char *token;            /* NULL: no Authorization header */
        char *cacert;           /* NULL: the system's CAs verify an https:// daemon */
        char error[512];        /* the last transport error, for the user */
};

struct http_response {
        long status;            /* HTTP status; 0 when the exchange failed */
        char *body;             /* NUL-terminated (NULL when streamed to a sink) */
        size_t size;
};

/* url: "http://HOST:PORT", "https://HOST:PORT", "HOST:PORT" or "unix:/PATH". token and cacert
 * (a PEM file of the CA certificates an https:// daemon's certificate is verified against,
 * instead of the system's) may be NULL. */
int http_open(struct http *h, const char *url, const char *token, const char *cacert);
void http_close(struct http *h);

/* One request. body (JSON) may be NULL; extra_header ("Name: value") may be NULL; accept NULL
 * means JSON. With sink, a 2xx body is written there and not kept. Returns 0 when an answer came
 * (whatever its status), -EIO on a transport failure (h->error says which) and -EAGAIN when
 * retrying it may help (could not connect, connection dropped, timeout). */
int http_request(struct http *h, const char *method, const char *path, const char *body,
                 const char *extra_header, const char *accept, FILE *sink, struct http_response *ret);
void http_response_done(struct http_response *r);
/* POST the size bytes of file as the body, of content_type; answers as http_request(). */
int http_upload(struct http *h, const char *path, FILE *file, long long size, const char *content_type,
                struct http_response *ret);

/* GET path and parse the JSON answer. On an HTTP error or unparseable body, prints the daemon's
 * message and returns the exit status 4 (EXIT_DAEMON); *ret then stays untouched. */
int http_get_json(struct http *h, const char *path, cJSON **ret);
/* The same, trying again for up to retry_for_s while the daemon cannot be reached (restarting). */
int http_get_json_retrying(struct http *h, const char *path, double retry_for_s, cJSON **ret);

/* GET path (which has a query string) page by page, following next_cursor, and gather the pages'
 * arrays named key into one array *ret. Exit statuses as http_get_json. */
int http_get_json_pages(struct http *h, const char *path, const char *key, cJSON **ret);

/* Prints the daemon's error as it gave it: status, code, field and message. */
void http_print_error(const struct http_response *r);

/* prefix, id percent-encoded, suffix: "/v1/runs/" ID "/timeline". free() the result. */
char *http_path(struct http *h, const char *prefix, const char *id, const char *suffix);

/* curl_easy_escape of s, for query strings; free() the result. */
char *http_escape(struct http *h, const char *s);
/* path with "&name=value" (value escaped) appended, path freed; path itself when value is NULL. */
char *http_path_add(struct http *h, char *path, const char *name, const char *value);
