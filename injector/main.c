/* main.c: slicelab-inject, the load injector: parse the command line, resolve the target, run
 * the load, then compute and write the summary. Exit status 0 when the run took place (failed
 * requests are data), 1 when it could not run, 2 on a usage error. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/hlog.h"
#include "basic/latency.h"
#include "basic/time-util.h"
#include "injector/csv-convert.h"
#include "injector/engine.h"
#include "basic/fileio.h"
#include "injector/http-request.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "injector/options.h"
#include "injector/output.h"
#include "injector/summary.h"
#include "injector/lag-attribution.h"
#include "injector/timeline-stats.h"
#include "injector/url.h"

enum {
        EXIT_RUN_FAILED = 1,
        EXIT_USAGE = 2,
};

static int usage_failure(void) {
        options_usage(stderr);
        return EXIT_USAGE;
}

static int run_convert(const struct inject_options *o) {
        struct csv_error err;
        int r = csv_convert(o->convert_csv, o->timeline_path, o->warmup_ns, &err);
        if (r == -EINVAL && err.line > 0)
                log_error("%s:%llu: %s", o->convert_csv, (unsigned long long) err.line, err.message);
        else if (r == -EINVAL)
                log_error("%s: %s", o->convert_csv, err.message);
        else if (r < 0)
                log_error_errno(r, "Cannot convert %s into %s", o->convert_csv, o->timeline_path);
        return r < 0 ? EXIT_RUN_FAILED : 0;
}

/* One fd per connection plus a few; the hard limit is the ceiling. */
static int raise_fd_limit(unsigned connections) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return negative_errno();
        rlim_t want = (rlim_t) connections + 64;
        if (rl.rlim_cur >= want)
                return 0;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
                return -EMFILE;
        rl.rlim_cur = want;
        return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? negative_errno() : 0;
}

/* The timeline file, or an anonymous one: the summary is computed from it either way. It must
 * be a regular file, since it is read back. */
static int open_timeline(const char *path) {
        _cleanup_close_ int fd = -1;
        if (path)
                fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
        else {
                const char *dir = getenv("TMPDIR");
                fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        }
        if (fd < 0)
                return negative_errno();
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        return TAKE_FD(fd);
}

static int write_summary(const struct inject_options *o, const struct engine_result *er,
                         const struct timeline_stats *st, const struct lag_attribution *late) {
        _cleanup_free_ char *json = summary_format(o, er, st, late);
        if (!json)
                return -ENOMEM;
        size_t len = strlen(json);
        json[len] = '\n';   /* replaces the NUL; the length below excludes nothing else */
        if (!o->summary_path) {
                if (fwrite(json, 1, len + 1, stdout) != len + 1 || fflush(stdout) != 0)
                        return -EIO;
                return 0;
        }
        return output_replace_file(o->summary_path, json, len + 1, 0644);
}

/* Everything the engine needs that can be wrong in the arguments: exit status or -1 to go on. */
static int prepare_request(const struct inject_options *o, struct url *url, struct http_request *req) {
        int r = url_parse(o->url, url);
        if (r == -EPROTONOSUPPORT) {
                fprintf(stderr, "slicelab-inject: --url: only http:// is supported\n");
                return usage_failure();
        }
        if (r < 0) {
                fprintf(stderr, "slicelab-inject: --url: '%s' is not an http://host[:port]/path URL\n", o->url);
                return usage_failure();
        }
        _cleanup_free_ char *body = NULL;
        size_t body_size = 0;
        if (o->body_path) {
                r = read_file_bounded(o->body_path, HTTP_REQUEST_MAX_BODY, &body, &body_size);
                if (r < 0) {
                        log_error_errno(r, "Cannot read the body file %s (at most 16 MiB)", o->body_path);
                        return EXIT_RUN_FAILED;
                }
        }
        r = http_request_build(url, o->method, o->headers, o->n_headers, body, body_size, req);
        if (r == -ENOMEM) {
                log_error_errno(r, "Cannot build the request");
                return EXIT_RUN_FAILED;
        }
        if (r < 0) {
                fprintf(stderr, "slicelab-inject: --method or --header: not a valid HTTP token or "
                        "'Name: value' header (Content-Length and Transfer-Encoding are set by the injector)\n");
                return usage_failure();
        }
        return -1;
}

struct hlog_fill {
        struct hlog log;
        int error;
};

static void hlog_fill_one(const struct timeline_record *r, void *userdata) {
        struct hlog_fill *f = userdata;
        if (f->error == 0)
                f->error = hlog_add(&f->log, r);
}

/* The interval log of the run, from the timeline as written (basic/hlog.h). */
static int write_hlog(const struct inject_options *o, const struct engine_result *er, int fd) {
        struct hlog_fill f = { .error = 0 };
        int64_t wall_start = now_wall_ns() - now_mono_ns() + er->measure_start_ns;
        int r = hlog_begin(&f.log, er->measure_start_ns, wall_start, o->hlog_interval_ns);
        if (r < 0)
                return r;
        struct timeline_source src = { .fd = fd, .offset = sizeof(struct timeline_header), .count = er->records };
        r = timeline_source_for_each(&src, hlog_fill_one, &f);
        if (r == 0)
                r = f.error;
        if (r < 0) {
                hlog_done(&f.log);
                return r;
        }
        _cleanup_free_ char *text = NULL;
        size_t len;
        r = hlog_end(&f.log, &text, &len);
        if (r < 0)
                return r;
        return output_replace_file(o->hlog_path, text, len, 0644);
}

/* Run the load into cfg->timeline_fd, then summarise: 0 or EXIT_RUN_FAILED. */
static int run_engine(const struct inject_options *o, const struct engine_config *cfg) {
        int fd = cfg->timeline_fd, r;
        struct engine_result er;
        r = engine_run(cfg, &er);
        if (r < 0) {
                log_error_errno(r, "The run failed");
                return EXIT_RUN_FAILED;
        }
        struct timeline_stats st;
        r = timeline_stats_compute(fd, sizeof(struct timeline_header), er.records, &st);
        if (r < 0) {
                log_error_errno(r, "Cannot read back the timeline");
                return EXIT_RUN_FAILED;
        }
        struct lag_attribution late;
        if (o->mode == INJECT_MODE_RATE) {
                const struct timeline_source src = { .fd = fd, .offset = sizeof(struct timeline_header), .count = er.records };
                r = lag_attribution_compute(&src, o->connections, o->threads, &late);
                if (r < 0) {
                        log_error_errno(r, "Cannot read back the timeline");
                        return EXIT_RUN_FAILED;
                }
        }
        if (o->hlog_path) {
                r = write_hlog(o, &er, fd);
                if (r < 0) {
                        log_error_errno(r, "Cannot write the interval log %s", o->hlog_path);
                        return EXIT_RUN_FAILED;
                }
        }
        r = write_summary(o, &er, &st, o->mode == INJECT_MODE_RATE ? &late : NULL);
        if (r < 0) {
                log_error_errno(r, "Cannot write the summary %s", o->summary_path ? o->summary_path : "(stdout)");
                return EXIT_RUN_FAILED;
        }
        return 0;
}

/* Resolve, run, summarise: 0, or EXIT_RUN_FAILED with the reason logged. */
static int run_request(const struct inject_options *o, const struct url *url,
                       const struct http_request *req) {
        struct engine_config cfg = { .opts = o, .request = req, .timeline_fd = -1 };
        int r = url_resolve(url, o->timeout_ns, &cfg.addr, &cfg.addr_len);
        if (r < 0) {
                log_error("Cannot resolve %s (or no address to connect to)", url->host);
                return EXIT_RUN_FAILED;
        }
        r = raise_fd_limit(o->connections);
        if (r < 0) {
                log_error_errno(r, "Cannot allow %u connections", o->connections);
                return EXIT_RUN_FAILED;
        }
        _cleanup_close_ int fd = open_timeline(o->timeline_path);
        if (fd < 0) {
                log_error_errno(fd, "Cannot create the timeline %s (a regular file)",
                                o->timeline_path ? o->timeline_path : "(temporary)");
                return EXIT_RUN_FAILED;
        }
        cfg.timeline_fd = fd;
        r = run_engine(o, &cfg);
        if (r != 0 && o->timeline_path)
                (void) unlink(o->timeline_path);   /* a failed run leaves no half a timeline */
        return r;
}

static int run_load(const struct inject_options *o) {
        struct url url;
        struct http_request req = { .data = NULL };
        int status = prepare_request(o, &url, &req);
        if (status >= 0)
                return status;
        status = run_request(o, &url, &req);
        http_request_done(&req);
        return status;
}

int main(int argc, char **argv) {
        json_setup();
        /* Before anything else, so a stop that comes early is kept for the run to see, and a
         * SIGUSR1 (the end of a --warmup-until-signal warmup) never takes its default action:
         * ending the injector. */
        engine_block_signals();
        signal(SIGPIPE, SIG_IGN);
        log_setup();

        struct inject_options o;
        if (options_parse(argc, argv, &o) < 0)
                return usage_failure();
        if (o.help) {
                options_usage(stdout);
                return 0;
        }
        if (o.version) {
                printf("slicelab-inject %s\n", SLICELAB_VERSION);
                return 0;
        }
        if (o.convert_csv)
                return run_convert(&o);
        if (options_check_start_at(&o, now_mono_ns()) < 0)
                return usage_failure();
        return run_load(&o);
}
