/* capture.c: child output to capped files, line by line. */
#include "daemon/capture.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/macro.h"
#include "basic/utf8.h"

#define CAPTURE_HALF_BYTES (CAPTURE_MAX_BYTES / 2)

/* The one place a capture file is opened: never through a link the run user left, never
 * blocking on a FIFO, never becoming our terminal. */
static int open_output(const char *path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0640);
        return fd < 0 ? negative_errno() : fd;
}

int capture_file_open(struct capture_file *f, const char *path) {
        *f = (struct capture_file){ .fd = -1 };
        if (snprintf(f->path, sizeof f->path, "%s", path) >= (int) sizeof f->path)
                return -ENAMETOOLONG;
        int fd = open_output(path);
        if (fd < 0)
                return fd;
        f->fd = fd;
        return 0;
}

/* NAME becomes NAME.1, whose older bytes are dropped, and NAME starts empty. */
static void rotate(struct capture_file *f) {
        char older[PATH_MAX + 2];
        snprintf(older, sizeof older, "%s.1", f->path);
        struct stat st;
        if (lstat(older, &st) == 0 && S_ISREG(st.st_mode))
                f->dropped += (uint64_t) st.st_size;
        closep(&f->fd);
        f->fd = -1;
        if (rename(f->path, older) < 0) {
                log_warning_errno(negative_errno(), "rotating %s", f->path);
                return;
        }
        int fd = open_output(f->path);
        if (fd < 0) {
                log_warning_errno(fd, "reopening %s", f->path);
                return;
        }
        f->fd = fd;
        f->written = 0;
}

void capture_file_write(struct capture_file *f, const char *data, size_t len) {
        while (len > 0 && f->fd >= 0) {
                if (f->written >= CAPTURE_HALF_BYTES) {
                        rotate(f);
                        continue;
                }
                size_t n = MIN(len, CAPTURE_HALF_BYTES - f->written);
                ssize_t w = write(f->fd, data, n);
                if (w <= 0)
                        return; /* a full disk: this output is lost, the run goes on */
                f->written += (size_t) w;
                data += w;
                len -= (size_t) w;
        }
}

void capture_file_close(struct capture_file *f) {
        if (f->fd >= 0 && f->dropped > 0)
                dprintf(f->fd, "\n[slicelab: %llu bytes of older output dropped; the newest are in %s.1 and here]\n",
                        (unsigned long long) f->dropped, f->path);
        closep(&f->fd);
        f->fd = -1;
}

static void remember_line(struct capture *c) {
        c->line[c->line_len] = '\0';
        if (c->line_len > 0) {
                memcpy(c->last_line, c->line, c->line_len + 1);
                /* The tail goes into a run's message, served as JSON: whatever the program
                 * printed, kept as valid UTF-8 and cut between characters. */
                utf8_sanitize(c->tail[c->tail_next], sizeof c->tail[0], c->line, c->line_len);
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
                capture_file_write(&c->file, buf, (size_t) n);
                if (c->shared)
                        capture_file_write(c->shared, buf, (size_t) n);
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

int capture_open(struct capture *c, sd_event *e, const char *path, struct capture_file *shared,
                 capture_line_fn on_line, void *userdata, int *ret_child_fd) {
        *c = (struct capture){ .pipe_fd = -1, .file = { .fd = -1 }, .shared = shared, .on_line = on_line,
                               .userdata = userdata };
        int r = capture_file_open(&c->file, path);
        if (r < 0)
                return r;
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0) {
                r = negative_errno();
                capture_file_close(&c->file);
                return r;
        }
        if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
                r = negative_errno();
        if (r >= 0)
                r = sd_event_add_io(e, &c->source, p[0], EPOLLIN, on_readable, c);
        if (r < 0) {
                close(p[0]);
                close(p[1]);
                capture_file_close(&c->file);
                return r;
        }
        c->pipe_fd = p[0];
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
        capture_file_close(&c->file);
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
        if (len >= size)
                buf[utf8_complete_len(buf, strlen(buf))] = '\0';
}
