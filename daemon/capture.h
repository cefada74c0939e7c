/* capture.h: a child's stdout or stderr, read from a pipe on the event loop and appended to a
 * file in the run directory, capped (with a marker line where it was cut). Complete lines are
 * offered to a callback (the `log` readiness regex) and the last one is kept (the no-load SUT's
 * `{"ops_per_s": N}`). A second file may get a copy (sut.log holds stdout and stderr together). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#define CAPTURE_MAX_BYTES (64u * 1024 * 1024)
#define CAPTURE_LINE_MAX 4096

struct capture;
typedef void (*capture_line_fn)(struct capture *c, const char *line, void *userdata);

struct capture {
        int pipe_fd;            /* read end; -1 once closed */
        int file_fd;            /* this stream's own file */
        int shared_fd;          /* the combined log, or -1 (not owned) */
        size_t written, shared_written_unused;
        size_t *shared_written; /* bytes in the combined log, shared by its writers */
        bool cut;
        sd_event_source *source;
        capture_line_fn on_line;
        void *userdata;
        char line[CAPTURE_LINE_MAX];
        size_t line_len;
        char last_line[CAPTURE_LINE_MAX];
        /* The last lines of stderr, for the sut_exit message. */
        char tail[20][256];
        size_t tail_next, tail_count;
};

/* Open path (created 0640) and a pipe; *ret_child_fd is the write end for the child (CLOEXEC:
 * slice_spawn dup2()s it). shared_fd/shared_written: the combined log, may be -1/NULL. */
int capture_open(struct capture *c, sd_event *e, const char *path, int shared_fd, size_t *shared_written,
                 capture_line_fn on_line, void *userdata, int *ret_child_fd);
/* Read what is left (the child is gone, so the pipe ends) and close everything. Idempotent. */
void capture_close(struct capture *c);
/* The last 20 lines, oldest first, joined with '\n' into buf. */
void capture_tail(const struct capture *c, char *buf, size_t size);
