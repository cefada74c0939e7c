/* http-request.h: the one request the injector sends, built once before the run. Every request
 * of a run is byte-for-byte the same, so the hot path only ever writes this buffer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "injector/url.h"

#define HTTP_REQUEST_MAX_BODY (16u << 20)

struct http_request {
        char *data;     /* request line, headers, body */
        size_t size;
        bool head;      /* HEAD: the answer has headers only */
};

/* Build "METHOD path HTTP/1.1" with Host, User-Agent (unless given in headers), the extra
 * "Name: value" headers and, with a body, Content-Length. -EINVAL for a method that is not an
 * HTTP token or a header that is malformed, splits lines, or sets Content-Length or
 * Transfer-Encoding (the injector frames the body itself). */
int http_request_build(const struct url *u, const char *method, const char *const *headers,
                       size_t n_headers, const char *body, size_t body_size,
                       struct http_request *ret);
void http_request_done(struct http_request *r);

/* The header name of "Name: value" must be a token and the value visible text; 0 or -EINVAL. */
int http_request_header_check(const char *h);
