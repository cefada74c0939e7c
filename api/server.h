/* server.h: the HTTP API on libmicrohttpd's own threads. API threads only read and insert
 * through storage/ and wake the event loop (an eventfd); they never touch processes or cgroups. */
#pragma once

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "definition/definition.h"
#include "basic/error.h"
#include "basic/host-limits.h"
#include "storage/db.h"

struct definition_policy;
struct peer_config;

struct storage;
struct cJSON;

/* What the daemon tells the API about itself; read-only once the server runs. */
struct api_config {
        struct storage *storage;
        int listen_fd;                  /* bound and listening; the server owns it from start */
        int wake_fd;                    /* eventfd: "work queued or cancelled", written by the API */
        const char *token;              /* bearer token, 64 hex chars */
        bool reads_need_auth;           /* --listen is not loopback or a unix socket */
        const char *cgroup_mode;        /* "v1", "v2", "hybrid" */
        const char *cgroup_driver;      /* "libcgroup", "cgroupfs", or NULL when not available */
        const char *cgroup_root;        /* e.g. "/sys/fs/cgroup/cpu/slicelab" */
        const char *state_dir;
        unsigned threads;               /* worker threads (thread pool size) */
        unsigned max_streams;           /* CSV/NDJSON streams served at once, 503 beyond */
        unsigned queue_max;             /* --queue-max: queued runs of all experiments, 429 beyond */
        const char *listen_name;        /* "127.0.0.1:7878", "[::]:7878", "unix:/path": what Host may name */
        const char *tls_cert_pem;       /* HTTPS when set (with tls_key_pem): PEM text, not paths */
        const char *tls_key_pem;
        struct host_limits host;        /* online CPUs, memory nodes and memory, for validation */
        const struct definition_policy *policy; /* --allow-exec, --allow-jvm-option; outlives the server */
        bool results_only;              /* --results-only: no experiment runs here, imports only */
        uint64_t import_max;            /* --import-max: the largest bundle POST /v1/imports takes */
        const struct peer_config *peers;        /* --peer-*: who may ask this daemon for loads, and aim where */
        const char *perf;               /* --perf, or NULL: perf on PATH (profile.cpu needs one) */
};

struct api_server;

int api_server_start(const struct api_config *config, struct api_server **ret);
struct db_conn;
/* The bisections' driver, called by the loop after each scheduling pass and at the start: each
 * open bisection whose step's experiment ended is decided and goes on (the next step queued, or
 * its end). Returns how many experiments it queued (the loop then schedules again). */
int api_bisections_advance(struct db_conn *c, const struct api_config *config);
/* Removes the stages (<state dir>/import-<id>) of imports a crash cut short, at the daemon's
 * start: directories of that name only, never through a link, never one an import holds. A
 * stage whose run directories were moving into runs/ is settled first with the store c: left as
 * it is if the import's rows were committed (its files all moved before), else its files are
 * moved back and removed with it. Returns how many, or a negative errno when the state dir
 * cannot be read. */
int api_imports_clean_stages(const char *state_dir, struct db_conn *c);
/* Stop accepting new connections (the listening socket closes), keep serving open ones. */
void api_server_quiesce(struct api_server *s);
/* Stop all threads and free the server. */
void api_server_stop(struct api_server *s);
/* A slot for one more streamed response: false (with the cap in *ret_max) when max_streams are
 * open. Every true is matched by one api_stream_end() when the response is freed. */
bool api_stream_begin(struct api_server *s, unsigned *ret_max);
void api_stream_end(struct api_server *s);

/* One request as a handler sees it. */
#define API_MAX_PATH_PARAMS 3
struct api_request {
        struct api_server *server;
        const struct api_config *config;
        struct MHD_Connection *connection;
        const char *method;
        const char *url;
        const char *path_params[API_MAX_PATH_PARAMS];   /* the {id}s of the route, in order */
        const char *body;
        size_t body_len;
        int body_fd;                    /* a route with .upload: the body in an unlinked file, else -1 */
        struct db_lease lease;          /* a route with .lease: a pool connection, released after the
                                         * handler (which may release it earlier, or take it over) */
};

typedef enum MHD_Result (*api_handler)(struct api_request *req);

/* What the router does before a handler runs, so that no handler repeats it: the id check
 * (404 "<resource> not found" for a path {id} that cannot be an id, without asking the store),
 * a finished answer kept by api_reply_json_cached() served as it is (200, or 304 when
 * If-None-Match has its tag), and the lease of a pool connection (503 pool_exhausted when none
 * came free). An id of the right shape that the store does not know is the handler's 404, from
 * its own read (api_reply_errno's -ENOENT). */
struct api_route {
        const char *method;
        const char *pattern;            /* "/v1/experiments/{}/runs": {} matches one segment */
        api_handler handler;
        const char *const *query;       /* allowed query parameters, NULL-terminated; NULL = none */
        const char *resource;           /* what it serves, for error messages: "experiment", "run" */
        bool id;                        /* the first {} is the id of a resource */
        bool cached;                    /* its finished answers are kept (api_reply_json_cached) */
        bool lease;                     /* the handler reads the store through req->lease */
        bool open;                      /* served without the token even when reads need it: the
                                         * dashboard's static files, so that the page can ask for it */
        bool upload;                    /* its body is a bundle (BUNDLE_MEDIA_TYPE) of up to
                                         * import_max bytes, kept in an unlinked file (body_fd) */
};

/* The route table (api/routes.c). */
extern const struct api_route api_routes[];
extern const size_t api_routes_count;

/* Replies (api/reply.c). Each takes ownership of what it sends. */
/* body printed as valid UTF-8 (json_print_utf8), a warning logged naming url when a string of it
 * was not; every JSON answer is printed by this. NULL when out of memory. */
char *api_json_text(const struct cJSON *body, const char *url);
enum MHD_Result api_reply_json(struct api_request *req, unsigned status, struct cJSON *body);
enum MHD_Result api_reply_json_headers(struct api_request *req, unsigned status, struct cJSON *body,
                                       const char *const *headers /* name, value, ..., NULL */);
enum MHD_Result api_reply_error(struct api_request *req, const struct error *err);
/* A malloc'd body of len bytes, freed by the reply (also when it fails). */
enum MHD_Result api_reply_buffer(struct api_request *req, unsigned status, char *text, size_t len,
                                 const char *content_type);
/* 200 with a strong ETag (304 when If-None-Match has it); Cache-Control says whether the thing
 * can still change (api/cache.c). */
enum MHD_Result api_reply_json_cached(struct api_request *req, struct cJSON *body, bool finished);
/* The same for a body whose cache key would be more than its path: a strong ETag, 304 and
 * "immutable" when finished, a plain 200 without a tag otherwise; the body is not kept. */
enum MHD_Result api_reply_buffer_finished(struct api_request *req, char *text, size_t len, const char *content_type,
                                          bool finished);
enum MHD_Result api_reply_json_finished(struct api_request *req, struct cJSON *body, bool finished);
/* 304 for a thing that no longer changes (Cache-Control immutable) whose tag the client has. */
enum MHD_Result api_reply_not_modified(struct api_request *req, const char *etag);
/* Whether If-None-Match names etag (or is "*"). */
bool api_if_none_match(struct api_request *req, const char *etag);
/* Serve a finished thing's body kept by api_reply_json_cached(); false when it is not kept. For
 * the router (routes with .cached). */
bool api_serve_cached(struct api_request *req, enum MHD_Result *ret);
enum MHD_Result api_reply_errorf(struct api_request *req, unsigned status, const char *code,
                                 const char *field, const char *fmt, ...) _printf_(5, 6);
/* 503 pool_exhausted: no database connection came free within DB_LEASE_WAIT_MS. Every 503
 * goes out with Retry-After. Returns -EAGAIN. */
int api_error_pool_exhausted(struct error *err);
/* 500 stored_data_inconsistent: what (a run, an experiment) has rows or records no slicelabd
 * writes (a store changed behind the API, or a bundle imported before imports checked them);
 * storage logged which. Returns -EUCLEAN. */
int api_error_inconsistent(struct error *err, const char *what);
/* Map a negative errno from storage to 404/409/503/500 with a message (-EAGAIN: the pool,
 * -EUCLEAN: api_error_inconsistent()). */
enum MHD_Result api_reply_errno(struct api_request *req, int r, const char *what);
enum MHD_Result api_reply_error_on(struct MHD_Connection *c, const struct error *err,
                                   const char *const *headers);

/* A file's bytes [off, off + len) as the body (fd is the reply's, closed with it; also on
 * failure), with content_type and more headers (name, value, ..., NULL). */
enum MHD_Result api_reply_fd(struct api_request *req, unsigned status, int fd, uint64_t off, uint64_t len,
                             const char *content_type, const char *const *headers);
/* 304 for a file that no longer changes (fd closed). */
enum MHD_Result api_reply_not_modified_fd(struct api_request *req, int fd, const char *etag);
/* Tell the event loop that work was queued or cancelled (the eventfd). */
void api_wake_loop(struct api_request *req);

/* Query parameters. */
const char *api_query(struct api_request *req, const char *name);
/* ?cursor=: opaque to clients, the hex of where the next page starts; absent -> 0. */
int api_query_cursor(struct api_request *req, int64_t *ret, struct error *err);
/* Parse an integer query parameter in [min, max]; absent -> *ret = def. Fills err on failure. */
int api_query_int(struct api_request *req, const char *name, int64_t min, int64_t max, int64_t def,
                  int64_t *ret, struct error *err);
