/* http-request.c: building the injector's request. */
#include "injector/http-request.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/macro.h"

#define HEADER_MAX 8192

static bool is_tchar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

int http_request_header_check(const char *h) {
        size_t len = strnlen(h, HEADER_MAX + 1);
        if (len > HEADER_MAX)
                return -EINVAL;
        const char *colon = strchr(h, ':');
        if (!colon || colon == h)
                return -EINVAL;
        for (const char *p = h; p < colon; p++)
                if (!is_tchar(*p))
                        return -EINVAL;
        for (const char *p = colon + 1; *p; p++)
                if (!(*p == '\t' || ((unsigned char) *p >= 0x20 && *p != 0x7f)))
                        return -EINVAL;
        return 0;
}

static bool header_is(const char *h, const char *name) {
        size_t n = strlen(name);
        return strncasecmp(h, name, n) == 0 && h[n] == ':';
}

static bool headers_have(const char *const *headers, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (header_is(headers[i], name))
                        return true;
        return false;
}

struct builder {
        char *buf;
        size_t size, cap;
};

static int append(struct builder *b, const void *data, size_t len) {
        if (b->size + len > b->cap) {
                size_t ncap = MAX(b->cap * 2, b->size + len);
                char *n = realloc(b->buf, ncap);
                if (!n)
                        return -ENOMEM;
                b->buf = n;
                b->cap = ncap;
        }
        memcpy(b->buf + b->size, data, len);
        b->size += len;
        return 0;
}

static int appendf(struct builder *b, const char *fmt, ...) _printf_(2, 3);
static int appendf(struct builder *b, const char *fmt, ...) {
        char line[HEADER_MAX + URL_MAX + 64];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t) n >= sizeof line)
                return -EINVAL;
        return append(b, line, (size_t) n);
}

int http_request_build(const struct url *u, const char *method, const char *const *headers,
                       size_t n_headers, const char *body, size_t body_size,
                       struct http_request *ret) {
        size_t mlen = strnlen(method, 17);
        if (mlen == 0 || mlen > 16)
                return -EINVAL;
        for (size_t i = 0; i < mlen; i++)
                if (!is_tchar(method[i]))
                        return -EINVAL;
        if (body_size > HTTP_REQUEST_MAX_BODY)
                return -EFBIG;
        for (size_t i = 0; i < n_headers; i++)
                if (http_request_header_check(headers[i]) < 0 || header_is(headers[i], "Content-Length") ||
                    header_is(headers[i], "Transfer-Encoding"))
                        return -EINVAL;

        struct builder b = { .buf = NULL };
        int r = appendf(&b, "%s %s HTTP/1.1\r\n", method, u->path);
        if (r >= 0 && !headers_have(headers, n_headers, "Host"))
                r = appendf(&b, "Host: %s\r\n", u->host_header);
        if (r >= 0 && !headers_have(headers, n_headers, "User-Agent"))
                r = appendf(&b, "User-Agent: slicelab-inject/%s\r\n", SLICELAB_VERSION);
        for (size_t i = 0; r >= 0 && i < n_headers; i++)
                r = appendf(&b, "%s\r\n", headers[i]);
        /* A body is framed by its length; so is the absence of one for methods that usually
         * carry a body, so that servers do not wait for one. */
        bool bodied = body || strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
                      strcmp(method, "PATCH") == 0;
        if (r >= 0 && bodied)
                r = appendf(&b, "Content-Length: %zu\r\n", body ? body_size : 0);
        if (r >= 0)
                r = append(&b, "\r\n", 2);
        if (r >= 0 && body && body_size > 0)
                r = append(&b, body, body_size);
        if (r < 0) {
                free(b.buf);
                return r;
        }
        *ret = (struct http_request){ .data = b.buf, .size = b.size, .head = strcmp(method, "HEAD") == 0 };
        return 0;
}

void http_request_done(struct http_request *r) {
        free(r->data);
        *r = (struct http_request){ .data = NULL };
}
