/* http-parser.c: the injector's incremental HTTP/1.x response parser. */
#include "injector/http-parser.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "basic/macro.h"

enum {
        HP_STATUS,
        HP_HEADERS,
        HP_BODY_LENGTH,
        HP_BODY_EOF,
        HP_CHUNK_SIZE,
        HP_CHUNK_DATA,
        HP_CHUNK_END,
        HP_TRAILERS,
        HP_DONE,
};

void http_parser_reset(struct http_parser *p, bool head) {
        p->state = HP_STATUS;
        p->head = head;
        p->chunked = p->has_length = p->close = p->keep_alive = p->http10 = p->overflow = false;
        p->status = 0;
        p->line_len = 0;
        p->header_bytes = 0;
        p->remaining = 0;
        p->bytes = 0;
}

static bool is_ows(char c) {
        return c == ' ' || c == '\t';
}

/* Does the comma-separated list in v (OWS allowed) contain token, case-insensitively? */
static bool list_has(const char *v, const char *token) {
        size_t tlen = strlen(token);
        while (*v) {
                while (is_ows(*v) || *v == ',')
                        v++;
                size_t n = strcspn(v, ",");
                size_t m = n;
                while (m > 0 && is_ows(v[m - 1]))
                        m--;
                if (m == tlen && strncasecmp(v, token, tlen) == 0)
                        return true;
                v += n;
        }
        return false;
}

/* The last element of a comma-separated list is token (Transfer-Encoding: gzip, chunked). */
static bool list_ends_with(const char *v, const char *token) {
        size_t len = strlen(v), tlen = strlen(token);
        while (len > 0 && is_ows(v[len - 1]))
                len--;
        if (len < tlen || strncasecmp(v + len - tlen, token, tlen) != 0)
                return false;
        return len == tlen || v[len - tlen - 1] == ',' || is_ows(v[len - tlen - 1]);
}

static int parse_status_line(struct http_parser *p, const char *l, size_t len) {
        /* HTTP/1.x SP 3DIGIT [SP reason] */
        if (len < 12 || strncmp(l, "HTTP/1.", 7) != 0 || (l[7] != '0' && l[7] != '1') || l[8] != ' ')
                return -EBADMSG;
        for (int i = 9; i < 12; i++)
                if (l[i] < '0' || l[i] > '9')
                        return -EBADMSG;
        if (len > 12 && l[12] != ' ')
                return -EBADMSG;
        p->status = (uint16_t) ((l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0'));
        if (p->status < 100)
                return -EBADMSG;
        p->http10 = l[7] == '0';
        p->state = HP_HEADERS;
        return 0;
}

static int parse_content_length(struct http_parser *p, const char *v) {
        while (is_ows(*v))
                v++;
        if (*v < '0' || *v > '9')
                return -EBADMSG;
        uint64_t n = 0;
        for (; *v >= '0' && *v <= '9'; v++) {
                if (n > (UINT64_C(1) << 50))
                        return -EBADMSG;
                n = n * 10 + (uint64_t) (*v - '0');
        }
        while (is_ows(*v))
                v++;
        if (*v != '\0')
                return -EBADMSG;
        if (p->has_length && p->remaining != n)
                return -EBADMSG;   /* two different lengths: no way to tell where it ends */
        p->has_length = true;
        p->remaining = n;
        return 0;
}

static int end_of_headers(struct http_parser *p) {
        if (p->status >= 100 && p->status < 200) {
                if (p->status == 101)
                        return -EBADMSG;   /* nobody asked to switch protocols */
                bool head = p->head;
                uint64_t bytes = p->bytes;
                http_parser_reset(p, head);   /* interim answer: the real one follows */
                p->bytes = bytes;
                return 0;
        }
        p->header_bytes = 0;
        if (p->head || p->status == 204 || p->status == 304)
                p->state = HP_DONE;
        else if (p->chunked)
                p->state = HP_CHUNK_SIZE;
        else if (p->has_length)
                p->state = p->remaining == 0 ? HP_DONE : HP_BODY_LENGTH;
        else {
                p->state = HP_BODY_EOF;
                p->close = true;
        }
        return 0;
}

static int parse_header_line(struct http_parser *p, const char *l, size_t len) {
        if (len == 0)
                return end_of_headers(p);
        if (is_ows(l[0]))
                return 0;   /* obsolete line folding: continues a header we do not care about */
        const char *colon = memchr(l, ':', len);
        if (!colon)
                return -EBADMSG;
        size_t nlen = (size_t) (colon - l);
        const char *v = colon + 1;
        bool relevant = true;
        if (nlen == 14 && strncasecmp(l, "Content-Length", nlen) == 0) {
                if (p->overflow)
                        return -EBADMSG;
                return parse_content_length(p, v);
        } else if (nlen == 17 && strncasecmp(l, "Transfer-Encoding", nlen) == 0) {
                /* Only a final "chunked" frames the body; any other coding ends with the close. */
                p->chunked = list_ends_with(v, "chunked");
        } else if (nlen == 10 && strncasecmp(l, "Connection", nlen) == 0) {
                if (list_has(v, "close"))
                        p->close = true;
                if (list_has(v, "keep-alive"))
                        p->keep_alive = true;
        } else
                relevant = false;
        if (relevant && p->overflow)
                return -EBADMSG;
        return 0;
}

static int parse_chunk_size(struct http_parser *p, const char *l, size_t len) {
        uint64_t n = 0;
        size_t i = 0;
        for (; i < len; i++) {
                char c = l[i];
                int d = c >= '0' && c <= '9' ? c - '0' :
                        c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                        c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0)
                        break;
                if (i >= 15)
                        return -EBADMSG;
                n = n * 16 + (uint64_t) d;
        }
        if (i == 0 || p->overflow)
                return -EBADMSG;
        if (i < len && l[i] != ';' && !is_ows(l[i]))
                return -EBADMSG;
        p->remaining = n;
        p->state = n == 0 ? HP_TRAILERS : HP_CHUNK_DATA;
        return 0;
}

static int process_line(struct http_parser *p) {
        size_t len = p->line_len;
        if (len > 0 && p->line[len - 1] == '\r')
                len--;
        p->line[len] = '\0';
        switch (p->state) {
        case HP_STATUS:
                return parse_status_line(p, p->line, len);
        case HP_HEADERS:
                return parse_header_line(p, p->line, len);
        case HP_CHUNK_SIZE:
                return parse_chunk_size(p, p->line, len);
        case HP_CHUNK_END:
                if (len != 0)
                        return -EBADMSG;
                p->state = HP_CHUNK_SIZE;
                return 0;
        case HP_TRAILERS:
                if (len == 0)
                        p->state = HP_DONE;
                return 0;
        }
        return -EBADMSG;
}

/* Take bytes up to and including the next '\n' into line[]; returns how many were taken, and
 * processes the line when it is complete. */
static int feed_line(struct http_parser *p, const char *data, size_t len, size_t *taken) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t) (nl - data) + 1 : len;
        p->header_bytes += (uint32_t) MIN(n, (size_t) HTTP_PARSER_HEADERS_MAX + 1);
        if (p->header_bytes > HTTP_PARSER_HEADERS_MAX)
                return -EBADMSG;
        size_t room = sizeof p->line - 1 - p->line_len;
        size_t copy = MIN(n - (nl ? 1 : 0), room);
        memcpy(p->line + p->line_len, data, copy);
        p->line_len = (uint16_t) (p->line_len + copy);
        if (copy < n - (nl ? 1 : 0))
                p->overflow = true;
        *taken = n;
        if (!nl)
                return 0;
        int r = process_line(p);
        p->line_len = 0;
        p->overflow = false;
        return r;
}

int http_parser_feed(struct http_parser *p, const char *data, size_t len, size_t *consumed) {
        size_t off = 0;
        int r = 0;
        while (off < len && p->state != HP_DONE) {
                size_t n = 0;
                switch (p->state) {
                case HP_BODY_LENGTH:
                case HP_CHUNK_DATA:
                        n = (size_t) MIN((uint64_t) (len - off), p->remaining);
                        p->remaining -= n;
                        if (p->remaining == 0)
                                p->state = p->state == HP_BODY_LENGTH ? HP_DONE : HP_CHUNK_END;
                        break;
                case HP_BODY_EOF:
                        n = len - off;
                        break;
                default:
                        r = feed_line(p, data + off, len - off, &n);
                        break;
                }
                off += n;
                p->bytes += n;
                if (r < 0)
                        break;
        }
        *consumed = off;
        if (r < 0)
                return r;
        return p->state == HP_DONE ? HTTP_PARSE_DONE : HTTP_PARSE_MORE;
}

int http_parser_eof(struct http_parser *p) {
        if (p->state == HP_BODY_EOF) {
                p->state = HP_DONE;
                return HTTP_PARSE_DONE;
        }
        return p->state == HP_DONE ? HTTP_PARSE_DONE : -ECONNRESET;
}
