/* http-parser.h: an incremental HTTP/1.x response parser for the injector's hot path. It keeps
 * no body and allocates nothing: bodies are counted and skipped, and lines are looked at through
 * a small per-connection buffer (only the status line and a few framing headers matter). It
 * understands Content-Length, chunked bodies (with trailers), bodies ended by the connection
 * closing, HEAD/1xx/204/304 answers without a body, interim 1xx answers and Connection: close. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_PARSER_LINE_MAX 256
#define HTTP_PARSER_HEADERS_MAX (64u << 10)

enum {
        HTTP_PARSE_MORE = 0,    /* the answer is not complete yet */
        HTTP_PARSE_DONE = 1,    /* one complete answer */
};

struct http_parser {
        uint8_t state;
        bool head;              /* the request was HEAD: no body whatever the headers say */
        bool chunked;
        bool has_length;
        bool close;             /* the server will close the connection after this answer */
        bool keep_alive;        /* an HTTP/1.0 server said Connection: keep-alive */
        bool http10;
        bool overflow;          /* the current line was longer than line[] */
        uint16_t status;
        uint16_t line_len;
        uint32_t header_bytes;
        uint64_t remaining;     /* body or chunk bytes still to skip */
        uint64_t bytes;         /* every byte of the answer, interim answers included */
        char line[HTTP_PARSER_LINE_MAX];
};

void http_parser_reset(struct http_parser *p, bool head);

/* Feed len bytes; *consumed tells how many belong to this answer (after HTTP_PARSE_DONE the
 * rest is not part of it). Returns HTTP_PARSE_MORE, HTTP_PARSE_DONE or -EBADMSG. */
int http_parser_feed(struct http_parser *p, const char *data, size_t len, size_t *consumed);

/* The server closed the connection: HTTP_PARSE_DONE when that ends a close-delimited body,
 * -ECONNRESET when the answer is cut short. */
int http_parser_eof(struct http_parser *p);

/* After HTTP_PARSE_DONE: may the connection carry another request? */
static inline bool http_parser_keep_alive(const struct http_parser *p) {
        return !p->close && (!p->http10 || p->keep_alive);
}
