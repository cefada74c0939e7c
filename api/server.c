/* server.c: libmicrohttpd plumbing: routing, authentication, request limits, body collection.
 * Everything that can be refused is refused before the body is read. */
#include "api/server.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "api/conn-guard.h"
#include "basic/bundle-format.h"
#include "basic/hostport.h"
#include "basic/id.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/utf8.h"

#define BODY_MAX (1024 * 1024)
#define CONNECTIONS_MAX 1000
/* One client (one address) cannot take every connection: loopback readers, the SUT and local
 * users all come from 127.0.0.1, so this is generous, and the global limit stays for others. */
#define CONNECTIONS_PER_CLIENT_MAX 64
/* Inactivity on an open connection; a request's headers have HEADER_DEADLINE_S in all. */
#define IDLE_TIMEOUT_S 30
#define HEADER_DEADLINE_S 10

struct api_server {
        struct MHD_Daemon *mhd;
        struct conn_guard *guard;
        struct api_config config;
        unsigned streams;               /* open streamed responses, atomically */
        /* What a request's Host may name besides loopback names: the listen address, this
         * host's name, and for a wildcard listen any address literal. */
        char listen_host[HOSTPORT_HOST_MAX + 1];
        bool listen_wildcard;
        bool listen_unix;               /* no browser reaches it: Host is not checked */
        char hostname[HOSTPORT_HOST_MAX + 1];
};

/* Per-request state kept by libmicrohttpd between calls of the access handler. */
struct request_state {
        const struct api_route *route;
        char *segments;                 /* copy of the path, split at '/', for path_params */
        const char *params[API_MAX_PATH_PARAMS];
        char *body;
        size_t body_len, body_cap;
        bool too_large;
        int upload_fd;                  /* .upload routes: the body so far, in an unlinked file */
        uint64_t upload_len;            /* bytes taken, in the file or still in upload_buf */
        int upload_errno;
        uint8_t *upload_buf;            /* what the file has yet to get: libmicrohttpd hands over */
        size_t upload_buffered;         /* some 16 KiB at a time, a write each */
};

static void request_state_free(struct request_state *st) {
        if (!st)
                return;
        free(st->segments);
        free(st->body);
        if (st->upload_fd >= 0)
                close(st->upload_fd);
        free(st->upload_buf);
        free(st);
}

#define PATH_MAX_LEN 512

/* Match "/v1/runs/{}/gc" against a path; {} matches one non-empty segment. On success the
 * matched segments are copied into *segments (cut at their ends) and pointed to by params. */
static bool route_match(const char *pattern, const char *path, char **segments,
                        const char *params[API_MAX_PATH_PARAMS]) {
        size_t offsets[API_MAX_PATH_PARAMS], n = 0;
        const char *p = pattern, *q = path;
        if (strlen(path) >= PATH_MAX_LEN)
                return false;
        if (strcmp(pattern, "/") == 0)
                return strcmp(path, "/") == 0;
        while (*p && *q) {
                if (*p++ != '/' || *q++ != '/')
                        return false;
                size_t plen = strcspn(p, "/"), qlen = strcspn(q, "/");
                if (qlen == 0)
                        return false;
                if (plen == 2 && memcmp(p, "{}", 2) == 0) {
                        if (n == API_MAX_PATH_PARAMS)
                                return false;
                        offsets[n++] = (size_t) (q - path);
                } else if (plen != qlen || memcmp(p, q, plen) != 0)
                        return false;
                p += plen;
                q += qlen;
        }
        if (*p || *q)
                return false;
        if (!segments)
                return true;
        char *copy = strdup(path);
        if (!copy)
                return false;
        for (size_t i = 0; i < n; i++) {
                params[i] = copy + offsets[i];
                copy[offsets[i] + strcspn(copy + offsets[i], "/")] = '\0';
        }
        free(*segments);
        *segments = copy;
        return true;
}

/* HEAD is answered wherever GET is, by the GET's handler: libmicrohttpd sends its headers
 * (Content-Length included) and leaves out the body. */
static bool method_matches(const char *route_method, const char *method) {
        return strcmp(route_method, method) == 0 ||
               (strcmp(method, "HEAD") == 0 && strcmp(route_method, "GET") == 0);
}

/* Returns the route for method+path; *path_known tells a 405 from a 404. */
static const struct api_route *route_find(const char *method, const char *path,
                                          struct request_state *st, bool *path_known,
                                          char *allow, size_t allow_size) {
        const struct api_route *found = NULL;
        size_t allow_len = 0;
        allow[0] = '\0';
        *path_known = false;
        for (size_t i = 0; i < api_routes_count; i++) {
                const struct api_route *r = &api_routes[i];
                if (!route_match(r->pattern, path, NULL, NULL))
                        continue;
                *path_known = true;
                int n = snprintf(allow + allow_len, allow_size - allow_len, "%s%s%s", allow_len ? ", " : "", r->method,
                                 strcmp(r->method, "GET") == 0 ? ", HEAD" : "");
                if (n > 0 && (size_t) n < allow_size - allow_len)
                        allow_len += (size_t) n;
                if (!found && method_matches(r->method, method) && route_match(r->pattern, path, &st->segments, st->params))
                        found = r;
        }
        return found;
}

static bool constant_time_equal(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        unsigned char diff = (unsigned char) (la != lb);
        for (size_t i = 0; i < lb; i++)
                diff |= (unsigned char) (a[i < la ? i : 0] ^ b[i]);
        return diff == 0;
}

static bool authorized(struct MHD_Connection *c, const char *token) {
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!h || strncasecmp(h, "Bearer ", 7) != 0)
                return false;
        h += 7;
        while (*h == ' ')
                h++;
        return constant_time_equal(h, token);
}

static bool is_mutation(const char *method) {
        return strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
}

struct query_check {
        const char *const *allowed;
        char bad[128];
        enum { QUERY_OK, QUERY_UNKNOWN, QUERY_NOT_UTF8 } why;   /* about bad */
};

/* Every query parameter is one the route takes, and its value (decoded from %XX) is UTF-8: a
 * value is echoed in answers and compared with stored strings, which are UTF-8. */
static enum MHD_Result query_check_one(void *userdata, enum MHD_ValueKind kind, const char *key,
                                       const char *value) {
        struct query_check *qc = userdata;
        const char *const *a;
        for (a = qc->allowed; a && *a; a++)
                if (strcmp(*a, key) == 0)
                        break;
        if (!a || !*a)
                qc->why = QUERY_UNKNOWN;
        else if (value && !utf8_valid(value, strlen(value)))
                qc->why = QUERY_NOT_UTF8;
        else
                return MHD_YES;
        snprintf(qc->bad, sizeof qc->bad, "%s", key);
        return MHD_NO;
}

/* A request that announces a body: a Content-Length above 0 or any Transfer-Encoding. */
static bool has_body(struct MHD_Connection *c) {
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
        return te || (cl && strspn(cl, "0") != strlen(cl));
}

static bool content_type_is(struct MHD_Connection *c, const char *type) {
        const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (!ct)
                return false;
        size_t n = strcspn(ct, "; \t");
        return n == strlen(type) && strncasecmp(ct, type, n) == 0;
}

/* An upload's size and type, before a byte of it is read. */
static int precheck_upload(struct api_server *s, struct MHD_Connection *c, struct error *err) {
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->config.import_max)
                return error_set(err, 413, "body_too_large", NULL,
                                 "a bundle of %s bytes is over this daemon's --import-max of %" PRIu64 " bytes", cl,
                                 s->config.import_max);
        if (!content_type_is(c, BUNDLE_MEDIA_TYPE) && !content_type_is(c, "application/octet-stream"))
                return error_set(err, 415, "unsupported_media_type", NULL,
                                 "Content-Type must be " BUNDLE_MEDIA_TYPE " (or application/octet-stream)");
        return 0;
}

static bool is_ip_literal(const char *h, bool ipv6) {
        unsigned char buf[sizeof(struct in6_addr)];
        return inet_pton(ipv6 ? AF_INET6 : AF_INET, h, buf) == 1;
}

static bool is_loopback_name(const char *h, bool ipv6) {
        struct in_addr a4;
        struct in6_addr a6;
        if (ipv6)
                return inet_pton(AF_INET6, h, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
        if (strcasecmp(h, "localhost") == 0)
                return true;
        return inet_pton(AF_INET, h, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

/* DNS rebinding: a browser that was sent to an attacker's name which now resolves to this
 * daemon still sends that name in Host. Only names that mean this daemon are served. A request
 * without Host (HTTP/1.0; libmicrohttpd refuses HTTP/1.1 without one) comes from no browser. */
static bool host_allowed(const struct api_server *s, const char *value, char *name, size_t name_size) {
        struct hostport hp;
        name[0] = '\0';
        if (!value || s->listen_unix)
                return true;
        if (hostport_split(value, strlen(value), 0, &hp, NULL) < 0 || hp.host_len >= name_size)
                return false;
        memcpy(name, hp.host, hp.host_len);
        name[hp.host_len] = '\0';
        if (is_loopback_name(name, hp.ipv6) || (s->listen_host[0] && strcasecmp(name, s->listen_host) == 0))
                return true;
        /* This host's own name is never an attacker's: a lab reaches its daemon by it. */
        if (s->hostname[0] && strcasecmp(name, s->hostname) == 0)
                return true;
        return s->listen_wildcard && is_ip_literal(name, hp.ipv6);
}

static int check_host(const struct api_server *s, struct MHD_Connection *c, struct error *err) {
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
        char name[HOSTPORT_HOST_MAX + 1];
        if (host_allowed(s, h, name, sizeof name))
                return 0;
        return error_set(err, 421, "host_not_allowed", "Host",
                         "Host '%.*s' names neither this daemon's address (%s) nor a loopback name; refused against DNS rebinding",
                         UTF8_PREFIX(h, 100), s->config.listen_name ? s->config.listen_name : "?");
}

/* From the address it listens on, what Host may name (see host_allowed). */
static void host_rules_init(struct api_server *s) {
        const char *l = s->config.listen_name;
        struct hostport hp;
        s->listen_unix = l && strncmp(l, "unix:", 5) == 0;
        if (!l || s->listen_unix || hostport_split(l, strlen(l), HOSTPORT_PORT_ZERO, &hp, NULL) < 0 ||
            hp.host_len >= sizeof s->listen_host)
                return;
        memcpy(s->listen_host, hp.host, hp.host_len);
        s->listen_host[hp.host_len] = '\0';
        s->listen_wildcard = strcmp(s->listen_host, "0.0.0.0") == 0 || strcmp(s->listen_host, "::") == 0;
        if (gethostname(s->hostname, sizeof s->hostname) < 0)
                s->hostname[0] = '\0';
        s->hostname[sizeof s->hostname - 1] = '\0';
}

/* The checks that need no body, in the order a client would want to hear about them. */
static int precheck(struct api_server *s, struct MHD_Connection *c, const char *method,
                    const char *url, struct request_state *st, struct error *err, char *allow,
                    size_t allow_size) {
        if (check_host(s, c, err) < 0)
                return -EINVAL;
        bool path_known;
        st->route = route_find(method, url, st, &path_known, allow, allow_size);
        if (!st->route) {
                if (path_known)
                        return error_set(err, 405, "method_not_allowed", NULL, "%s is not allowed on %s (allowed: %s)",
                                         method, url, allow);
                return error_set(err, 404, "not_found", NULL, "no such resource: %s", url);
        }
        if ((is_mutation(method) || (s->config.reads_need_auth && !st->route->open)) && !authorized(c, s->config.token))
                return error_set(err, 401, "unauthorized", NULL,
                                 "this request needs 'Authorization: Bearer <token>' with the token from %s/token",
                                 s->config.state_dir);
        /* Reads take no body: refused before a byte of it is read or buffered. */
        if (!is_mutation(method) && has_body(c))
                return error_set(err, 400, "body_not_allowed", NULL, "%s requests take no body", method);
        struct query_check qc = { .allowed = st->route->query };
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_check_one, &qc);
        if (qc.why == QUERY_NOT_UTF8)
                return error_set(err, 400, "invalid_parameter", qc.bad,
                                 "query parameter '%s' must be UTF-8 (after %%XX decoding), got a byte that begins no "
                                 "character", qc.bad);
        if (qc.why == QUERY_UNKNOWN)
                return error_set(err, 400, "unknown_parameter", qc.bad, "unknown query parameter '%s'", qc.bad);
        /* A path {id} that cannot be an id is a 404 without asking the store. */
        if (st->route->id && !id_valid(st->params[0]))
                return error_set(err, 404, "not_found", NULL, "%s not found", st->route->resource);
        if (st->route->upload)
                return precheck_upload(s, c, err);
        if (strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
                const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
                if (cl && strtoull(cl, NULL, 10) > BODY_MAX)
                        return error_set(err, 413, "body_too_large", NULL, "request body of %s bytes is over the limit of %d bytes",
                                         cl, BODY_MAX);
                /* A body is JSON and says so; a request without one (a lease's renewal) needs no
                 * type, but one it declares is JSON's. */
                bool typed = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE) != NULL;
                if ((typed || has_body(c)) && !content_type_is(c, "application/json"))
                        return error_set(err, 415, "unsupported_media_type", NULL,
                                         "Content-Type must be application/json%s",
                                         typed ? "" : " (a request without a body may leave it out)");
        }
        return 0;
}

static void body_append(struct request_state *st, const char *data, size_t size) {
        if (st->too_large || size == 0)
                return;
        if (st->body_len + size > BODY_MAX) {
                st->too_large = true;
                free(st->body);
                st->body = NULL;
                return;
        }
        if (st->body_len + size + 1 > st->body_cap) {
                size_t cap = MAX(st->body_cap * 2, st->body_len + size + 1);
                cap = MIN(cap, (size_t) BODY_MAX + 1);
                char *n = realloc(st->body, cap);
                if (!n) {
                        st->too_large = true; /* treated as refusing the body */
                        return;
                }
                st->body = n;
                st->body_cap = cap;
        }
        memcpy(st->body + st->body_len, data, size);
        st->body_len += size;
        st->body[st->body_len] = '\0';
}

/* Writes of 1 MiB: a bundle of 80 MB came in 5000 writes of libmicrohttpd's pieces. */
#define UPLOAD_BUFFER_SIZE (1u << 20)

static void upload_write(struct request_state *st, const uint8_t *data, size_t size) {
        while (size > 0 && !st->upload_errno) {
                ssize_t n = write(st->upload_fd, data, size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        st->upload_errno = n < 0 ? errno : EIO;
                else {
                        data += n;
                        size -= (size_t) n;
                }
        }
}

/* What upload_buf holds into the file; before the handler reads the file. */
static void upload_flush(struct request_state *st) {
        if (st->upload_buffered > 0 && st->upload_fd >= 0)
                upload_write(st, st->upload_buf, st->upload_buffered);
        st->upload_buffered = 0;
}

/* An upload goes to an unlinked file in the state dir, never to memory: bundles are large. */
static void upload_append(struct api_server *s, struct request_state *st, const char *data, size_t size) {
        if (st->too_large || st->upload_errno)
                return;
        if (st->upload_len + size > s->config.import_max) {
                st->too_large = true;
                return;
        }
        if (st->upload_fd < 0) {
                st->upload_fd = open(s->config.state_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
                if (st->upload_fd < 0) {
                        st->upload_errno = errno;
                        return;
                }
                st->upload_buf = malloc(UPLOAD_BUFFER_SIZE);
        }
        st->upload_len += size;
        if (!st->upload_buf || size >= UPLOAD_BUFFER_SIZE) {
                upload_flush(st);
                upload_write(st, (const uint8_t *) data, size);
                return;
        }
        if (st->upload_buffered + size > UPLOAD_BUFFER_SIZE)
                upload_flush(st);
        memcpy(st->upload_buf + st->upload_buffered, data, size);
        st->upload_buffered += size;
}

/* What every handler of the route would do first (see struct api_route): a kept finished answer
 * is the answer, and a handler that reads the store starts with a connection of the pool. */
static enum MHD_Result dispatch(const struct api_route *route, struct api_request *req) {
        enum MHD_Result ret;
        if (route->cached && api_serve_cached(req, &ret))
                return ret;
        if (route->lease) {
                int r = db_lease_take(req->config->storage, &req->lease);
                if (r < 0)
                        return api_reply_errno(req, r, route->resource);
        }
        ret = route->handler(req);
        db_lease_release(&req->lease);
        return ret;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *c, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **con_cls) {
        struct api_server *s = cls;
        struct request_state *st = *con_cls;

        if (!st) {
                st = calloc(1, sizeof *st);
                if (!st)
                        return MHD_NO;
                st->upload_fd = -1;
                *con_cls = st;
                conn_guard_headers_done(s->guard, c);
                struct error err = { 0 };
                char allow[128];
                if (precheck(s, c, method, url, st, &err, allow, sizeof allow) < 0) {
                        const char *const allow_header[] = { "Allow", allow, NULL };
                        const char *const auth_header[] = { "WWW-Authenticate", "Bearer", NULL };
                        return api_reply_error_on(c, &err, err.status == 405 ? allow_header
                                                           : err.status == 401 ? auth_header : NULL);
                }
                return MHD_YES;
        }
        if (*upload_data_size > 0) {
                if (st->route->upload)
                        upload_append(s, st, upload_data, *upload_data_size);
                else
                        body_append(st, upload_data, *upload_data_size);
                *upload_data_size = 0;
                return MHD_YES;
        }
        upload_flush(st);
        if (st->too_large || st->upload_errno) {
                struct error err = { 0 };
                if (st->upload_errno)
                        error_set(&err, 500, "internal", NULL, "cannot keep the upload in %s: %s", s->config.state_dir,
                                  strerror(st->upload_errno));
                else if (st->route->upload)
                        error_set(&err, 413, "body_too_large", NULL, "the bundle is over this daemon's --import-max of %" PRIu64 " bytes",
                                  s->config.import_max);
                else
                        error_set(&err, 413, "body_too_large", NULL, "request body is over the limit of %d bytes", BODY_MAX);
                return api_reply_error_on(c, &err, NULL);
        }
        struct api_request req = {
                .server = s,
                .config = &s->config,
                .connection = c,
                .method = method,
                .url = url,
                .body = st->body ? st->body : "",
                .body_len = st->route->upload ? (size_t) st->upload_len : st->body_len,
                .body_fd = st->upload_fd,
        };
        memcpy(req.path_params, st->params, sizeof req.path_params);
        return dispatch(st->route, &req);
}

static void request_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                              enum MHD_RequestTerminationCode toe) {
        struct api_server *s = cls;
        request_state_free(*con_cls);
        *con_cls = NULL;
        conn_guard_request_done(s->guard, c);
}

static void mhd_log(void *cls, const char *fmt, va_list ap) {
        char msg[512];
        vsnprintf(msg, sizeof msg, fmt, ap);
        msg[strcspn(msg, "\n")] = '\0';
        log_debug("http: %s", msg);
}

int api_server_start(const struct api_config *config, struct api_server **ret) {
        _cleanup_free_ struct api_server *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->config = *config;
        host_rules_init(s);
        int r = conn_guard_new(CONNECTIONS_MAX, HEADER_DEADLINE_S, &s->guard);
        if (r < 0)
                return log_error_errno(r, "cannot start the HTTP header deadline's thread");
        bool tls = config->tls_cert_pem && config->tls_key_pem;
        /* libmicrohttpd's GnuTLS support: the certificate and key as PEM text. */
        struct MHD_OptionItem tls_options[] = {
                { tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *) config->tls_cert_pem },
                { MHD_OPTION_HTTPS_MEM_KEY, 0, (void *) config->tls_key_pem },
                { MHD_OPTION_END, 0, NULL },
        };
        if (tls && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
                conn_guard_free(s->guard);
                return log_error_errno(-EOPNOTSUPP, "--tls-cert: this libmicrohttpd is built without TLS");
        }
        s->mhd = MHD_start_daemon(
                MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0),
                0, NULL, NULL, access_handler, s,
                MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, /* first, so no message goes to stderr */
                MHD_OPTION_LISTEN_SOCKET, config->listen_fd,
                MHD_OPTION_THREAD_POOL_SIZE, (unsigned) MAX(config->threads, 1u),
                MHD_OPTION_CONNECTION_LIMIT, (unsigned) CONNECTIONS_MAX,
                MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned) CONNECTIONS_PER_CLIENT_MAX,
                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) IDLE_TIMEOUT_S,
                MHD_OPTION_NOTIFY_CONNECTION, conn_guard_notify, s->guard,
                MHD_OPTION_NOTIFY_COMPLETED, request_completed, s,
                MHD_OPTION_ARRAY, tls_options,
                MHD_OPTION_END);
        if (!s->mhd) {
                conn_guard_free(s->guard);
                return log_error_errno(-EIO, "cannot start the HTTP server");
        }
        *ret = TAKE_PTR(s);
        return 0;
}

bool api_stream_begin(struct api_server *s, unsigned *ret_max) {
        unsigned max = MAX(s->config.max_streams, 1u);
        unsigned n = __atomic_load_n(&s->streams, __ATOMIC_RELAXED);
        do {
                if (n >= max) {
                        *ret_max = max;
                        return false;
                }
        } while (!__atomic_compare_exchange_n(&s->streams, &n, n + 1, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
        return true;
}

void api_stream_end(struct api_server *s) {
        __atomic_fetch_sub(&s->streams, 1, __ATOMIC_ACQ_REL);
}

void api_server_quiesce(struct api_server *s) {
        if (!s || !s->mhd)
                return;
        MHD_socket fd = MHD_quiesce_daemon(s->mhd);
        if (fd != MHD_INVALID_SOCKET)
                close(fd);
}

void api_server_stop(struct api_server *s) {
        if (!s)
                return;
        if (s->mhd)
                MHD_stop_daemon(s->mhd);
        conn_guard_free(s->guard);
        free(s);
}
