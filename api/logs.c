/* logs.c: GET /v1/runs/{id}/logs/{sut,load}: the captured output of the SUT (stdout and stderr
 * together) or of the load, whole, as a byte Range, or its last lines (?tail=N). */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/handlers.h"
#include "basic/utf8.h"
#include "storage/db.h"
#include "storage/runs.h"

#define TAIL_LINES_MAX 100000
#define TAIL_BYTES_MAX (4u << 20)
#define LOG_CONTENT_TYPE "text/plain; charset=utf-8"

/* A finished run's log no longer changes: its tag is the file's identity, size and mtime, so a
 * poll is answered from one stat(); a log still being written has none. */
static bool log_etag(struct api_request *req, const struct stat *st, char etag[80]) {
        struct db_lease lease _cleanup_lease_ = { 0 };
        bool finished = false;
        if (db_lease_take(req->config->storage, &lease) < 0 ||
            runs_is_finished(lease.conn, req->path_params[0], &finished) < 0 || !finished)
                return false;
        snprintf(etag, 80, "\"%" PRIx64 "-%" PRIx64 "-%" PRIx64 ".%09ld\"", (uint64_t) st->st_ino, (uint64_t) st->st_size,
                 (uint64_t) st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
        return true;
}

/* "bytes=A-B", "bytes=A-", "bytes=-N"; one range only. */
static int parse_range(const char *h, uint64_t size, uint64_t *off, uint64_t *len) {
        unsigned long long a, b;
        char dash;
        if (strncmp(h, "bytes=", 6) != 0 || strchr(h, ','))
                return -EINVAL;
        h += 6;
        if (*h == '-') {
                if (sscanf(h + 1, "%llu", &b) != 1 || b == 0)
                        return -EINVAL;
                *off = b >= size ? 0 : size - b;
                *len = size - *off;
                return size ? 0 : -ERANGE;
        }
        int n = sscanf(h, "%llu%c%llu", &a, &dash, &b);
        if (n < 2 || dash != '-')
                return -EINVAL;
        if (n == 2)
                b = size ? size - 1 : 0;
        if (a >= size || b < a)
                return -ERANGE;
        *off = a;
        *len = MIN((uint64_t) b, size - 1) - a + 1;
        return 0;
}

/* Offset of the start of the last `lines` lines, reading at most TAIL_BYTES_MAX from the end. */
static int64_t tail_offset(int fd, uint64_t size, int64_t lines) {
        size_t window = (size_t) MIN(size, (uint64_t) TAIL_BYTES_MAX);
        _cleanup_free_ char *buf = malloc(MAX(window, (size_t) 1));
        if (!buf)
                return -ENOMEM;
        uint64_t start = size - window;
        if (pread(fd, buf, window, (off_t) start) != (ssize_t) window)
                return -EIO;
        size_t i = window;
        if (i > 0 && buf[i - 1] == '\n')
                i--; /* the final newline ends the last line, it does not start a new one */
        for (; i > 0; i--)
                if (buf[i - 1] == '\n' && --lines == 0)
                        return (int64_t) (start + i);
        return (int64_t) start;
}

enum MHD_Result api_get_logs(struct api_request *req) {
        const char *id = req->path_params[0], *which = req->path_params[1];
        if (strcmp(which, "sut") != 0 && strcmp(which, "load") != 0)
                return api_reply_errorf(req, 404, "not_found", NULL, "no such log: runs/%.*s/logs/%.*s",
                                        UTF8_PREFIX(id, 16), UTF8_PREFIX(which, 16));
        struct error err = { 0 };
        int64_t tail;
        if (api_query_int(req, "tail", 1, TAIL_LINES_MAX, 0, &tail, &err) < 0)
                return api_reply_error(req, &err);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/runs/%s/%s.log", req->config->state_dir, id, which);
        /* The run directory belongs to the run user: a FIFO there must not hang an API worker
         * in open(), and anything but a regular file is refused below. */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return api_reply_errorf(req, 404, "not_found", NULL, "run %s has no %s log", id, which);
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return api_reply_errno(req, -EIO, "log");
        }
        uint64_t size = (uint64_t) st.st_size;
        char etag[80];
        bool tagged = log_etag(req, &st, etag);
        if (tagged && api_if_none_match(req, etag))
                return api_reply_not_modified_fd(req, fd, etag);
        const char *const tag_headers[] = { MHD_HTTP_HEADER_ETAG, etag, MHD_HTTP_HEADER_CACHE_CONTROL, "max-age=86400, immutable", NULL };
        const char *const *base = tagged ? tag_headers : NULL;
        if (tail > 0) {
                int64_t off = tail_offset(fd, size, tail);
                if (off < 0) {
                        close(fd);
                        return api_reply_errno(req, (int) off, "log");
                }
                return api_reply_fd(req, 200, fd, (uint64_t) off, size - (uint64_t) off, LOG_CONTENT_TYPE, base);
        }
        const char *range = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
        if (!range)
                return api_reply_fd(req, 200, fd, 0, size, LOG_CONTENT_TYPE, base);
        uint64_t off, len;
        int r = parse_range(range, size, &off, &len);
        if (r < 0) {
                close(fd);
                char cr[64];
                snprintf(cr, sizeof cr, "bytes */%" PRIu64, size);
                const char *const headers[] = { "Content-Range", cr, NULL };
                struct error e = { 0 };
                error_set(&e, 416, "range_not_satisfiable", "Range", "Range '%.*s' does not fit the log's %" PRIu64 " bytes",
                          UTF8_PREFIX(range, 64), size);
                return api_reply_error_on(req->connection, &e, headers);
        }
        char cr[96];
        snprintf(cr, sizeof cr, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, off, off + len - 1, size);
        const char *const headers[] = { "Content-Range", cr, MHD_HTTP_HEADER_ETAG, tagged ? etag : NULL, NULL };
        return api_reply_fd(req, 206, fd, off, len, LOG_CONTENT_TYPE, headers);
}
