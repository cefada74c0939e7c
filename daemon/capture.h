/* capture.h: a child's stdout or stderr, read from a pipe on the event loop and appended to a
 * file in the run directory, capped so that the newest output survives: past half the cap, NAME
 * becomes NAME.1 (replacing the older half) and NAME starts again; at the end a note in NAME
 * says how many bytes were dropped. Complete lines are
 * offered to a callback (the `log` readiness regex) and the last one is kept (the no-load SUT's
 * `{"ops_per_s": N}`). A second file may get a copy (sut.log holds stdout and stderr together). */
#pragma once

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#define CAPTURE_MAX_BYTES (64u * 1024 * 1024)
#define CAPTURE_LINE_MAX 4096

/* One capped output file: at most CAPTURE_MAX_BYTES in NAME and NAME.1 together. */
struct capture_file {
        char path[PATH_MAX];
        int fd;                 /* -1: closed, or writing failed */
        size_t written;         /* bytes in NAME */
        uint64_t dropped;       /* bytes of older output gone with a replaced NAME.1 */
};

/* Create (truncate) path, 0640, never through a symlink. */
int capture_file_open(struct capture_file *f, const char *path);
void capture_file_write(struct capture_file *f, const char *data, size_t len);
/* Appends the note of dropped bytes when there were any, and closes. Idempotent. */
void capture_file_close(struct capture_file *f);

struct capture;
typedef void (*capture_line_fn)(struct capture *c, const char *line, void *userdata);

struct capture {
        int pipe_fd;            /* read end; -1 once closed */
        struct capture_file file;       /* this stream's own file */
        struct capture_file *shared;    /* the combined log, or NULL (not owned) */
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
 * slice_spawn dup2()s it). shared: the combined log, open, or NULL. */
int capture_open(struct capture *c, sd_event *e, const char *path, struct capture_file *shared,
                 capture_line_fn on_line, void *userdata, int *ret_child_fd);
/* Read what is left (the child is gone, so the pipe ends) and close everything. Idempotent. */
void capture_close(struct capture *c);
/* The last 20 lines, oldest first, joined with '\n' into buf. */
void capture_tail(const struct capture *c, char *buf, size_t size);
