/* capture.c: child output to capped files, line by line. */
#include "daemon/capture.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/macro.h"

static const char cut_marker[] = "\n[slicelab: output cut at 64 MiB]\n";

static void write_capped(int fd, size_t *written, bool *cut, const char *data, size_t len) {
        if (fd < 0 || *cut)
                return;
        size_t room = CAPTURE_MAX_BYTES - *written;
        size_t n = MIN(len, room);
        if (n > 0 && write(fd, data, n) == (ssize_t) n)
                *written += n;
        if (n < len) {
                (void) !write(fd, cut_marker, sizeof cut_marker - 1);
                *cut = true;
        }
}

static void remember_line(struct capture *c) {
        c->line[c->line_len] = '\0';
        if (c->line_len > 0) {
                memcpy(c->last_line, c->line, c->line_len + 1);
                snprintf(c->tail[c->tail_next], sizeof c->tail[0], "%.*s", (int) sizeof c->tail[0] - 1, c->line);
                c->tail_next = (c->tail_next + 1) % ELEMENTSOF(c->tail);
                if (c->tail_count < ELEMENTSOF(c->tail))
                        c->tail_count++;
        }
        if (c->on_line)
                c->on_line(c, c->line, c->userdata);
        c->line_len = 0;
}

/* Lines longer than CAPTURE_LINE_MAX are split: the callbacks see bounded pieces. */
static void split_lines(struct capture *c, const char *data, size_t len) {
        for (size_t i = 0; i < len; i++) {
                if (data[i] == '\n' || c->line_len == sizeof c->line - 1) {
                        remember_line(c);
                        if (data[i] == '\n')
                                continue;
                }
                c->line[c->line_len++] = data[i];
        }
}

static int drain(struct capture *c) {
        char buf[65536];
        for (;;) {
                ssize_t n = read(c->pipe_fd, buf, sizeof buf);
                if (n < 0)
                        return errno == EAGAIN ? 0 : negative_errno();
                if (n == 0)
                        return 1; /* end of stream */
                write_capped(c->file_fd, &c->written, &c->cut, buf, (size_t) n);
                if (c->shared_fd >= 0) {
                        bool shared_cut = *c->shared_written >= CAPTURE_MAX_BYTES;
                        write_capped(c->shared_fd, c->shared_written, &shared_cut, buf, (size_t) n);
                }
                split_lines(c, buf, (size_t) n);
        }
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct capture *c = userdata;
        int r = drain(c);
        if (r != 0) {
                /* EOF or error: stop watching; the fd is closed by capture_close(). */
                if (r < 0)
                        log_warning_errno(r, "reading child output");
                sd_event_source_set_enabled(s, SD_EVENT_OFF);
        }
        return 0;
}

int capture_open(struct capture *c, sd_event *e, const char *path, int shared_fd, size_t *shared_written,
                 capture_line_fn on_line, void *userdata, int *ret_child_fd) {
        *c = (struct capture){ .pipe_fd = -1, .file_fd = -1, .shared_fd = shared_fd,
                               .shared_written = shared_written ? shared_written : &c->shared_written_unused,
                               .on_line = on_line, .userdata = userdata };
        _cleanup_close_ int file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0640);
        if (file_fd < 0)
                return negative_errno();
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return negative_errno();
        if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
                int r = negative_errno();
                close(p[0]);
                close(p[1]);
                return r;
        }
        int r = sd_event_add_io(e, &c->source, p[0], EPOLLIN, on_readable, c);
        if (r < 0) {
                close(p[0]);
                close(p[1]);
                return r;
        }
        c->pipe_fd = p[0];
        c->file_fd = TAKE_FD(file_fd);
        *ret_child_fd = p[1];
        return 0;
}

void capture_close(struct capture *c) {
        if (c->pipe_fd >= 0) {
                (void) drain(c);
                if (c->line_len > 0)
                        remember_line(c);
        }
        c->source = sd_event_source_disable_unref(c->source);
        closep(&c->pipe_fd);
        c->pipe_fd = -1;
        closep(&c->file_fd);
        c->file_fd = -1;
}

void capture_tail(const struct capture *c, char *buf, size_t size) {
        size_t len = 0;
        buf[0] = '\0';
        size_t first = (c->tail_next + ELEMENTSOF(c->tail) - c->tail_count) % ELEMENTSOF(c->tail);
        for (size_t i = 0; i < c->tail_count && len < size; i++) {
                int n = snprintf(buf + len, size - len, "%s%s", i ? "\n" : "", c->tail[(first + i) % ELEMENTSOF(c->tail)]);
                if (n < 0)
                        break;
                len += (size_t) n;
        }
}
