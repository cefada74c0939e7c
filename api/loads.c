/* loads.c: the peer API of issue 25: POST /v1/loads (run a load for another host's experiment),
 * its lease, its state, its timeline, its cancel. The API checks and records; the event loop's
 * load runner (daemon/load-runner.c) starts and stops the injector.
 *
 * Who may ask: the token opens the door, --peer-allow decides the rest. The coordinator named in
 * the body must match a pattern and resolve to the address the request came from, and the
 * target must be a host matched too, so that a token alone cannot aim this host's load at a
 * service outside the lab. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/handlers.h"
#include "basic/id.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/utf8.h"
#include "definition/definition-peer-load.h"
#include "peer/peer-client.h"
#include "storage/db.h"
#include "storage/loads.h"

#define LEASE_S_MIN 1
#define LEASE_S_MAX 60
#define LEASE_S_DEFAULT 10
/* A schedule may start at most this far ahead: further is a mistake, not a plan. */
#define START_AHEAD_MAX_NS (INT64_C(3600) * NSEC_PER_SEC)
#define START_PAST_MAX_NS NSEC_PER_SEC
#define SEED_MAX (UINT64_C(1) << 53)
#define COORDINATOR_RUN_MAX 64

static const char *const known_members[] = { "coordinator", "coordinator_run", "host", "cpus", "load",
                                             "phase_ns", "seed", "start_at_ns", "lease_s", NULL };

/* ---- the body ------------------------------------------------------------------------------ */

struct load_request {
        const char *coordinator, *coordinator_run, *host;
        struct cpulist cpus;
        const cJSON *load;
        int64_t phase_ns, start_at_ns;
        uint64_t seed;
        unsigned lease_s;
};

static int check_members(const cJSON *body, struct error *err) {
        if (!cJSON_IsObject(body))
                return error_set(err, 400, "wrong_type", "", "the body must be a JSON object");
        for (const cJSON *m = body->child; m; m = m->next) {
                bool known = false;
                for (const char *const *k = known_members; *k && !known; k++)
                        known = strcmp(m->string, *k) == 0;
                if (!known)
                        return error_set(err, 400, "unknown_field", "", "unknown field '%.*s' (known: coordinator, "
                                         "coordinator_run, host, cpus, load, phase_ns, seed, start_at_ns, lease_s)",
                                         UTF8_PREFIX(m->string, 64));
                if (cJSON_GetObjectItemCaseSensitive(body, m->string) != m)
                        return error_set(err, 400, "duplicate_field", m->string, "'%s' is given twice", m->string);
        }
        return 0;
}

static int get_string(const cJSON *body, const char *name, bool (*valid)(const char *), const char *rule,
                      const char **ret, struct error *err) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, name);
        if (!v)
                return error_set(err, 400, "missing_field", name, "%s is required", name);
        if (!cJSON_IsString(v))
                return error_set(err, 400, "wrong_type", name, "%s must be a string", name);
        if (!valid(v->valuestring))
                return error_set(err, 400, "invalid_value", name, "%s must be %s", name, rule);
        *ret = v->valuestring;
        return 0;
}

/* An integer in [min, max] (JSON numbers are doubles: exact up to 2^53), or def when absent
 * and not required. */
static int get_integer(const cJSON *body, const char *name, bool required, double min, double max, double def,
                       double *ret, struct error *err) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, name);
        if (!v) {
                if (required)
                        return error_set(err, 400, "missing_field", name, "%s is required", name);
                *ret = def;
                return 0;
        }
        if (!cJSON_IsNumber(v))
                return error_set(err, 400, "wrong_type", name, "%s must be a number", name);
        double d = v->valuedouble;
        if (d != (double) (int64_t) d || d < min || d > max)
                return error_set(err, 400, "out_of_range", name, "%s must be a whole number from %.0f to %.0f, got %g", name,
                                 min, max, d);
        *ret = d;
        return 0;
}

static bool coordinator_run_valid(const char *s) {
        size_t n = strlen(s);
        return n > 0 && n <= COORDINATOR_RUN_MAX &&
               strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == n;
}

static int get_cpus(const cJSON *body, const struct api_config *config, struct cpulist *ret, struct error *err) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, "cpus");
        if (!v)
                return error_set(err, 400, "missing_field", "cpus", "cpus is required (the CPUs of this host the load runs on)");
        if (!cJSON_IsString(v) || cpulist_parse(v->valuestring, ret) < 0 || cpulist_count(ret) == 0)
                return error_set(err, 400, "invalid_value", "cpus", "cpus must be a cpulist such as \"0-1\" or \"2,4\"");
        if (!cpulist_is_subset(ret, &config->host.cpus))
                return error_set(err, 400, "not_on_host", "cpus", "cpus '%.*s' names CPUs that are not online on this host",
                                 UTF8_PREFIX(v->valuestring, 64));
        return 0;
}

static int parse_request(const cJSON *body, const struct api_config *config, struct load_request *ret,
                         struct error *err) {
        struct load_request l = { 0 };
        double phase, seed, start_at, lease;
        int r = check_members(body, err);
        if (r >= 0)
                r = get_string(body, "coordinator", peer_host_valid, "a host name or IP literal", &l.coordinator, err);
        if (r >= 0)
                r = get_string(body, "coordinator_run", coordinator_run_valid, "1 to 64 of [A-Za-z0-9_-]", &l.coordinator_run, err);
        if (r >= 0)
                r = get_string(body, "host", peer_host_valid, "a host name or IP literal", &l.host, err);
        if (r >= 0)
                r = get_cpus(body, config, &l.cpus, err);
        if (r >= 0)
                r = get_integer(body, "phase_ns", false, 0, (double) NSEC_PER_SEC, 0, &phase, err);
        if (r >= 0)
                r = get_integer(body, "seed", false, 0, (double) SEED_MAX, 1, &seed, err);
        if (r >= 0)
                r = get_integer(body, "start_at_ns", true, 1, 9007199254740992.0, 0, &start_at, err);
        if (r >= 0)
                r = get_integer(body, "lease_s", false, LEASE_S_MIN, LEASE_S_MAX, LEASE_S_DEFAULT, &lease, err);
        if (r < 0)
                return r;
        l.load = cJSON_GetObjectItemCaseSensitive(body, "load");
        if (!l.load)
                return error_set(err, 400, "missing_field", "load", "load is required (a definition's load object)");
        l.phase_ns = (int64_t) phase;
        l.seed = (uint64_t) seed;
        l.start_at_ns = (int64_t) start_at;
        l.lease_s = (unsigned) lease;
        *ret = l;
        return 0;
}

/* The phase shifts a uniform schedule within one gap, as slicelab-inject --phase takes it. */
static int check_schedule(const struct load_request *l, const struct definition *d, struct error *err) {
        const struct definition_load *load = &d->load;
        if (l->phase_ns > 0 && (load->mode != DEFINITION_MODE_RATE || load->arrival != DEFINITION_ARRIVAL_UNIFORM))
                return error_set(err, 400, "conflict", "phase_ns", "phase_ns shifts uniform arrivals only: it must be 0 "
                                 "with load.mode max or load.arrival poisson");
        if (l->phase_ns > 0 && (double) l->phase_ns >= (double) NSEC_PER_SEC / load->rate)
                return error_set(err, 400, "out_of_range", "phase_ns", "phase_ns %" PRId64 " is not less than one gap of "
                                 "the schedule (%.0f ns at load.rate %g)", l->phase_ns, (double) NSEC_PER_SEC / load->rate,
                                 load->rate);
        int64_t now = now_mono_ns();
        if (l->start_at_ns < now - START_PAST_MAX_NS)
                return error_set(err, 400, "out_of_range", "start_at_ns", "start_at_ns is %.3f s in the past on this host's "
                                 "CLOCK_MONOTONIC (now %" PRId64 ")", (double) (now - l->start_at_ns) / NSEC_PER_SEC, now);
        if (l->start_at_ns > now + START_AHEAD_MAX_NS)
                return error_set(err, 400, "out_of_range", "start_at_ns", "start_at_ns is more than an hour ahead of this "
                                 "host's CLOCK_MONOTONIC (now %" PRId64 ")", now);
        return 0;
}

/* ---- who asks, and at what ----------------------------------------------------------------- */

static bool same_address(const struct sockaddr *a, const struct sockaddr *b) {
        struct in6_addr x, y;
        const struct sockaddr *pair[2] = { a, b };
        struct in6_addr *out[2] = { &x, &y };
        for (int i = 0; i < 2; i++) {
                if (pair[i]->sa_family == AF_INET6)
                        *out[i] = ((const struct sockaddr_in6 *) pair[i])->sin6_addr;
                else if (pair[i]->sa_family == AF_INET) {
                        /* as ::ffff:a.b.c.d, so that a v4-mapped peer compares equal */
                        memset(out[i], 0, sizeof *out[i]);
                        out[i]->s6_addr[10] = out[i]->s6_addr[11] = 0xff;
                        memcpy(&out[i]->s6_addr[12], &((const struct sockaddr_in *) pair[i])->sin_addr, 4);
                } else
                        return false;
        }
        return memcmp(&x, &y, sizeof x) == 0;
}

/* The coordinator is allowed and is who sent this: its name resolves to the source address. */
static int check_coordinator(struct api_request *req, const char *coordinator, struct error *err) {
        if (!peer_host_allowed(req->config->peers, coordinator))
                return error_set(err, 403, "peer_not_allowed", "coordinator",
                                 "coordinator '%s' is not matched by this daemon's --peer-allow", coordinator);
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *from = ci ? ci->client_addr : NULL;
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
        if (!from || getaddrinfo(coordinator, NULL, &hints, &res) != 0)
                return error_set(err, 403, "peer_not_allowed", "coordinator", "coordinator '%s' does not resolve", coordinator);
        bool match = false;
        for (const struct addrinfo *a = res; a && !match; a = a->ai_next)
                match = same_address(a->ai_addr, from);
        freeaddrinfo(res);
        if (!match)
                return error_set(err, 403, "peer_not_allowed", "coordinator",
                                 "coordinator '%s' does not resolve to the address this request came from", coordinator);
        return 0;
}

static int check_target(struct api_request *req, const struct definition *d, struct error *err) {
        const char *host = d->load.target.host;
        if (!peer_host_allowed(req->config->peers, host))
                return error_set(err, 403, "peer_not_allowed", "load.target",
                                 "load.target's host '%.*s' is not matched by this daemon's --peer-allow: a peer aims "
                                 "loads at lab hosts only", UTF8_PREFIX(host, 64));
        return 0;
}

/* ---- the routes ---------------------------------------------------------------------------- */

enum MHD_Result api_post_load(struct api_request *req) {
        struct error err = { 0 };
        if (req->config->results_only)
                return api_reply_results_only(req);
        if (definition_json_check(req->body, req->body_len, &err) < 0)
                return api_reply_error(req, &err);
        _cleanup_json_ cJSON *body = cJSON_ParseWithLength(req->body, req->body_len);
        struct load_request l = { 0 };
        _cleanup_(definition_freep) struct definition *d = NULL;
        /* Who asks is settled before what is asked is looked at closely. */
        if (parse_request(body, req->config, &l, &err) < 0 || check_coordinator(req, l.coordinator, &err) < 0 ||
            definition_parse_peer_load(l.load, &req->config->host, &d, &err) < 0 || check_target(req, d, &err) < 0 ||
            check_schedule(&l, d, &err) < 0)
                return api_reply_error(req, &err);

        struct load_new n = {
                .coordinator = l.coordinator, .coordinator_run = l.coordinator_run, .host = l.host, .cpus = l.cpus,
                .definition = d->canonical, .phase_ns = l.phase_ns, .seed = l.seed, .start_at_ns = l.start_at_ns,
                .lease_s = l.lease_s, .now_ns = now_mono_ns(),
        };
        int r = id_generate(n.id);
        struct db_lease lease _cleanup_lease_ = { 0 };
        if (r >= 0)
                r = db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = loads_insert(lease.conn, &n, &err);
        db_lease_release(&lease);
        if (r == -EBUSY && err.status)
                return api_reply_error(req, &err);
        if (r < 0)
                return api_reply_errno(req, r, "load");
        log_info("load %s queued for %s (run %s), CPUs %s, lease %u s", n.id, l.coordinator, l.coordinator_run,
                 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "cpus")), l.lease_s);
        api_wake_loop(req);
        cJSON *reply = cJSON_CreateObject();
        cJSON_AddStringToObject(reply, "id", n.id);
        cJSON_AddStringToObject(reply, "state", "queued");
        char location[64];
        snprintf(location, sizeof location, "/v1/loads/%s", n.id);
        const char *const headers[] = { "Location", location, NULL };
        return api_reply_json_headers(req, 201, reply, headers);
}

static enum MHD_Result reply_finished_conflict(struct api_request *req, const char *id) {
        return api_reply_errorf(req, 409, "finished", NULL, "load %s is finished", id);
}

enum MHD_Result api_renew_load(struct api_request *req) {
        const char *id = req->path_params[0];
        int64_t now = now_mono_ns(), expires = 0;
        int r = loads_renew(req->lease.conn, id, now, &expires);
        if (r == -EALREADY)
                return reply_finished_conflict(req, id);
        if (r < 0)
                return api_reply_errno(req, r, "load");
        cJSON *reply = cJSON_CreateObject();
        cJSON_AddNumberToObject(reply, "expires_in_ms", (double) ((expires - now) / NSEC_PER_MSEC));
        return api_reply_json(req, 200, reply);
}

enum MHD_Result api_get_load(struct api_request *req) {
        cJSON *o = NULL;
        int r = loads_get_json(req->lease.conn, req->path_params[0], &o);
        if (r < 0)
                return api_reply_errno(req, r, "load");
        return api_reply_json(req, 200, o);
}

enum MHD_Result api_delete_load(struct api_request *req) {
        const char *id = req->path_params[0];
        int r = loads_request_cancel(req->lease.conn, id);
        if (r == -EALREADY)
                return reply_finished_conflict(req, id);
        if (r < 0)
                return api_reply_errno(req, r, "load");
        db_lease_release(&req->lease);
        api_wake_loop(req);
        cJSON *reply = cJSON_CreateObject();
        cJSON_AddStringToObject(reply, "id", id);
        cJSON_AddStringToObject(reply, "state", "cancelling");
        return api_reply_json(req, 202, reply);
}

/* The injector's timeline.bin as it wrote it (this host's clock). The load's directory is the
 * run user's: no symlink followed, no FIFO opened blocking, regular files only. */
enum MHD_Result api_get_load_timeline(struct api_request *req) {
        const char *id = req->path_params[0];
        bool finished = false;
        int r = loads_is_finished(req->lease.conn, id, &finished);
        db_lease_release(&req->lease);    /* the file is served without the store */
        if (r < 0)
                return api_reply_errno(req, r, "load");
        if (!finished)
                return api_reply_errorf(req, 409, "not_finished", NULL, "load %s is not finished: its timeline is still "
                                        "being written", id);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/runs/load-%s/timeline.bin", req->config->state_dir, id);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return api_reply_errorf(req, 404, "not_found", NULL, "load %s has no timeline", id);
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return api_reply_errorf(req, 404, "not_found", NULL, "load %s has no timeline (not a regular file)", id);
        }
        char etag[80];
        snprintf(etag, sizeof etag, "\"%" PRIx64 "-%" PRIx64 "-%" PRIx64 ".%09ld\"", (uint64_t) st.st_ino,
                 (uint64_t) st.st_size, (uint64_t) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
        if (api_if_none_match(req, etag))
                return api_reply_not_modified_fd(req, fd, etag);
        const char *const headers[] = { MHD_HTTP_HEADER_ETAG, etag, MHD_HTTP_HEADER_CACHE_CONTROL,
                                        "max-age=86400, immutable", NULL };
        return api_reply_fd(req, 200, fd, 0, (uint64_t) st.st_size, "application/octet-stream", headers);
}
