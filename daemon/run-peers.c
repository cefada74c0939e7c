/* run-peers.c: a run's load on its load hosts, on a thread of its own (see run-peers.h). */
#include "daemon/run-peers.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/timeline-merge.h"
#include "basic/utf8.h"
#include "peer/peer-client.h"

#define START_AHEAD_NS (2 * NSEC_PER_SEC)       /* posting every load fits in it, on a lab's network */
#define RENEW_EVERY_NS (3 * NSEC_PER_SEC)       /* a third of the lease: two renewals may fail */
#define WATCH_EVERY_MS 500
#define PARTIAL_WAIT_NS (5 * NSEC_PER_SEC)      /* a deleted load's end, for its partial timeline */

struct host_state {
        const char *host;
        struct peer_clock clock;
        bool has_clock;
        struct definition_host_load part;
        char *id;                       /* the peer's load id once posted */
        char state[16];                 /* as the peer said it last */
        cJSON *summary;                 /* the injector's, once finished */
        int64_t last_answer_ns;
        char last_error[512];       /* = struct error.message */
        bool finished, fetched;
};

struct run_peers {
        const struct peer_config *peers;
        const struct definition *def;
        const char *run_id;
        char dir[PATH_MAX];
        struct host_state *hosts;
        size_t n;
        int64_t start_ns;
        pthread_t thread;
        bool thread_started;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stop;                      /* under lock */
        bool go;                        /* under lock: the SUT is ready, start the loads */
        unsigned pending;               /* under lock: 1 << enum run_peers_event not yet told */
        int efd;
        sd_event_source *source;
        int result;
        char reason[32];
        char message[1024];
        run_peers_fn cb;
        void *userdata;
};

/* ---- the thread's helpers ---------------------------------------------------------------- */

static void post_event(struct run_peers *p, enum run_peers_event ev) {
        pthread_mutex_lock(&p->lock);
        p->pending |= 1u << ev;
        pthread_mutex_unlock(&p->lock);
        uint64_t one = 1;
        (void) !write(p->efd, &one, sizeof one);
}

/* Sleep ms unless a stop comes first: true when the run asked to stop. */
static bool wait_or_stop(struct run_peers *p, unsigned ms) {
        struct timespec until = timespec_from_ns(now_mono_ns() + (int64_t) ms * NSEC_PER_MSEC);
        pthread_mutex_lock(&p->lock);
        while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &until) == 0)
                ;
        bool stop = p->stop;
        pthread_mutex_unlock(&p->lock);
        return stop;
}

/* Until the run says go (its SUT is ready): false when it asked to stop instead. */
static bool wait_go(struct run_peers *p) {
        pthread_mutex_lock(&p->lock);
        while (!p->stop && !p->go)
                pthread_cond_wait(&p->cond, &p->lock);
        bool go = !p->stop;
        pthread_mutex_unlock(&p->lock);
        return go;
}

static bool stop_asked(struct run_peers *p) {
        pthread_mutex_lock(&p->lock);
        bool stop = p->stop;
        pthread_mutex_unlock(&p->lock);
        return stop;
}

static int fail(struct run_peers *p, const char *reason, const char *fmt, ...) _printf_(3, 4);
static int fail(struct run_peers *p, const char *reason, const char *fmt, ...) {
        if (p->result < 0)
                return p->result; /* the first cause is the run's */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->message, sizeof p->message, fmt, ap);
        va_end(ap);
        p->message[utf8_complete_len(p->message, strlen(p->message))] = '\0';
        snprintf(p->reason, sizeof p->reason, "%s", reason);
        p->result = -EIO;
        return p->result;
}

/* The address this host sends from towards host: what the peer sees as the coordinator. */
static int source_address_towards(const char *host, char *buf, size_t size) {
        struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res = NULL;
        if (getaddrinfo(host, "7", &hints, &res) != 0 || !res)
                return -EHOSTUNREACH;
        int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -EHOSTUNREACH;
        struct sockaddr_storage local;
        socklen_t len = sizeof local;
        if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
            getsockname(fd, (struct sockaddr *) &local, &len) == 0 &&
            getnameinfo((struct sockaddr *) &local, len, buf, (socklen_t) size, NULL, 0, NI_NUMERICHOST) == 0)
                r = 0;
        if (fd >= 0)
                close(fd);
        freeaddrinfo(res);
        return r;
}

/* The body of POST /v1/loads for host i (PEERS-CONTRACT.md): the definition's load with the
 * host's rate, no hosts or cpus. */
static char *load_body(const struct run_peers *p, size_t i, const char *coordinator) {
        const struct definition_load *l = &p->def->load;
        const struct host_state *h = &p->hosts[i];
        char url[DEFINITION_URL_MAX + 64], cpus[1024];
        def_format_url(url, sizeof url, &l->target);
        if (cpulist_format(&l->hosts[i].cpus, cpus, sizeof cpus) < 0)
                return NULL;
        _cleanup_json_ cJSON *b = cJSON_CreateObject();
        cJSON *o = cJSON_AddObjectToObject(b, "load");
        if (!o || !cJSON_AddStringToObject(b, "coordinator", coordinator) ||
            !cJSON_AddStringToObject(b, "coordinator_run", p->run_id) || !cJSON_AddStringToObject(b, "host", h->host) ||
            !cJSON_AddStringToObject(b, "cpus", cpus) || !cJSON_AddStringToObject(o, "target", url) ||
            !cJSON_AddStringToObject(o, "mode", l->mode == DEFINITION_MODE_RATE ? "rate" : "max"))
                return NULL;
        if (l->mode == DEFINITION_MODE_RATE &&
            (!cJSON_AddNumberToObject(o, "rate", h->part.rate) ||
             !cJSON_AddStringToObject(o, "arrival", l->arrival == DEFINITION_ARRIVAL_POISSON ? "poisson" : "uniform")))
                return NULL;
        if (!cJSON_AddNumberToObject(o, "connections", l->connections) ||
            !cJSON_AddNumberToObject(o, "timeout_ms", l->timeout_ms) || !cJSON_AddNumberToObject(o, "warmup_s", l->warmup_s) ||
            !cJSON_AddNumberToObject(o, "measure_s", l->measure_s) ||
            !cJSON_AddNumberToObject(b, "phase_ns", (double) h->part.phase_ns) ||
            !cJSON_AddNumberToObject(b, "seed", (double) h->part.seed) ||
            !cJSON_AddNumberToObject(b, "start_at_ns", (double) (p->start_ns + h->clock.offset_ns)) ||
            !cJSON_AddNumberToObject(b, "lease_s", RUN_PEERS_LEASE_S))
                return NULL;
        return cJSON_PrintUnformatted(b);
}

static uint64_t seed_of(const char *run_id) {
        uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a: the run's id names its schedules */
        for (const char *c = run_id; *c; c++)
                h = (h ^ (unsigned char) *c) * UINT64_C(1099511628211);
        return h;
}

/* ---- the phases -------------------------------------------------------------------------- */

static int measure_clocks(struct run_peers *p) {
        int64_t max_rtt = 0;
        for (size_t i = 0; i < p->n && !stop_asked(p); i++) {
                struct error err = { 0 };
                struct host_state *h = &p->hosts[i];
                if (peer_clock_measure(p->peers, h->host, RUN_PEERS_CLOCK_SAMPLES, &h->clock, &err) < 0)
                        return fail(p, "preflight", "load host %s (load.hosts[%zu]) did not answer for its clock: %s", h->host,
                                    i, err.message);
                h->has_clock = true;
                max_rtt = MAX(max_rtt, h->clock.rtt_ns);
        }
        p->start_ns = now_mono_ns() + START_AHEAD_NS + max_rtt;
        return 0;
}

static int post_loads(struct run_peers *p) {
        for (size_t i = 0; i < p->n && !stop_asked(p); i++) {
                struct host_state *h = &p->hosts[i];
                char coordinator[INET6_ADDRSTRLEN + 8];
                if (source_address_towards(h->host, coordinator, sizeof coordinator) < 0)
                        return fail(p, "preflight", "load host %s (load.hosts[%zu]): no route to it", h->host, i);
                _cleanup_free_ char *body = load_body(p, i, coordinator);
                struct error err = { 0 };
                if (!body)
                        return fail(p, "preflight", "out of memory");
                if (peer_load_start(p->peers, h->host, body, &h->id, &err) < 0)
                        return fail(p, "preflight", "load host %s (load.hosts[%zu]) refused the load: %s", h->host, i,
                                    err.message);
                h->last_answer_ns = now_mono_ns();
        }
        return 0;
}

static bool state_final(const char *s) {
        static const char *const final[] = { "succeeded", "failed", "cancelled", "expired", "interrupted" };
        for (size_t i = 0; i < ELEMENTSOF(final); i++)
                if (strcmp(s, final[i]) == 0)
                        return true;
        return false;
}

/* GET the load of host i: its state (and summary once final); false when the peer did not answer. */
static bool poll_host(struct run_peers *p, size_t i, const char **ret_message) {
        struct host_state *h = &p->hosts[i];
        _cleanup_free_ char *body = NULL;
        struct error err = { 0 };
        if (peer_load_get(p->peers, h->host, h->id, &body, &err) < 0) {
                snprintf(h->last_error, sizeof h->last_error, "%s", err.message);
                return false;
        }
        h->last_answer_ns = now_mono_ns();
        _cleanup_json_ cJSON *j = cJSON_Parse(body);
        const cJSON *state = cJSON_GetObjectItemCaseSensitive(j, "state");
        const cJSON *message = cJSON_GetObjectItemCaseSensitive(j, "message");
        if (!cJSON_IsString(state))
                return true;
        snprintf(h->state, sizeof h->state, "%s", state->valuestring);
        snprintf(h->last_error, sizeof h->last_error, "%s", cJSON_IsString(message) ? message->valuestring : "");
        *ret_message = h->last_error;
        if (state_final(h->state)) {
                h->finished = true;
                cJSON_Delete(h->summary);
                h->summary = cJSON_DetachItemFromObjectCaseSensitive(j, "summary");
        }
        return true;
}

/* Until every load has succeeded, one fails or stops answering, or the run stops. */
static int watch(struct run_peers *p) {
        int64_t renewed = now_mono_ns();
        for (;;) {
                if (wait_or_stop(p, WATCH_EVERY_MS))
                        return fail(p, "cancelled", "the run was stopped");
                bool renew = now_mono_ns() - renewed >= RENEW_EVERY_NS;
                if (renew)
                        renewed = now_mono_ns();
                size_t done = 0;
                for (size_t i = 0; i < p->n; i++) {
                        struct host_state *h = &p->hosts[i];
                        struct error err = { 0 };
                        const char *message = "";
                        if (!h->finished && renew && peer_load_renew(p->peers, h->host, h->id, &err) < 0)
                                snprintf(h->last_error, sizeof h->last_error, "%s", err.message);
                        if (!h->finished && !poll_host(p, i, &message) &&
                            now_mono_ns() - h->last_answer_ns > RUN_PEERS_LEASE_S * NSEC_PER_SEC)
                                return fail(p, "load_failed", "load host %s (load.hosts[%zu]) stopped answering for %d s: %s",
                                            h->host, i, RUN_PEERS_LEASE_S, h->last_error);
                        if (h->finished && strcmp(h->state, "succeeded") != 0)
                                return fail(p, "load_failed", "load host %s (load.hosts[%zu]): its load ended %s: %s", h->host,
                                            i, h->state, message[0] ? message : h->last_error);
                        done += h->finished;
                }
                if (done == p->n)
                        return 0;
        }
}

/* Every load still running is stopped. */
static void delete_loads(struct run_peers *p) {
        for (size_t i = 0; i < p->n; i++) {
                struct host_state *h = &p->hosts[i];
                struct error err = { 0 };
                if (h->id && !h->finished && peer_load_delete(p->peers, h->host, h->id, &err) < 0)
                        log_full(LOG_WARNING, 0, NULL, p->run_id, "run %s: cannot stop the load on %s: %s", p->run_id, h->host,
                                 err.message);
        }
}

/* A deleted load gets a moment to end, so that its partial timeline can be fetched. */
static void await_partial(struct run_peers *p) {
        int64_t until = now_mono_ns() + PARTIAL_WAIT_NS;
        for (size_t i = 0; i < p->n; i++) {
                const char *message;
                struct host_state *h = &p->hosts[i];
                while (h->id && !h->finished && now_mono_ns() < until && poll_host(p, i, &message) && !h->finished)
                        usleep(200000);
        }
}

static void host_file(size_t i, char *buf, size_t size) {
        snprintf(buf, size, "load-host-%zu.bin", i);
}

static int fetch_timelines(struct run_peers *p, bool must) {
        _cleanup_close_ int dir_fd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0)
                return must ? fail(p, "collect_failed", "cannot open the run directory: %s", strerror(errno)) : 0;
        for (size_t i = 0; i < p->n; i++) {
                struct host_state *h = &p->hosts[i];
                char name[64];
                struct error err = { 0 };
                host_file(i, name, sizeof name);
                if (!h->id || !h->finished)
                        continue;
                if (peer_load_fetch_timeline(p->peers, h->host, h->id, dir_fd, name, &err) < 0) {
                        if (must)
                                return fail(p, "load_failed", "load host %s (load.hosts[%zu]): cannot fetch its timeline: %s",
                                            h->host, i, err.message);
                        continue;
                }
                h->fetched = true;
        }
        return 0;
}

static int open_host_timeline(const struct run_peers *p, size_t i, int *ret) {
        char name[64], path[PATH_MAX + 64];
        host_file(i, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", p->dir, name);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct timeline_header h;
        if (fd < 0)
                return negative_errno();
        if (read_full(fd, &h, sizeof h, 0) != (ssize_t) sizeof h || memcmp(h.magic, TIMELINE_MAGIC, 4) != 0 ||
            h.version != TIMELINE_VERSION || h.record_size != sizeof(struct timeline_record))
                return -EBADMSG;
        *ret = TAKE_FD(fd);
        return 0;
}

/* The peers' timelines, each shifted by its clock's offset and marked with its host, into
 * timeline.bin, whose header is the instant the schedules started on this daemon's clock. */
static int merge_timelines(struct run_peers *p) {
        _cleanup_free_ struct timeline_merge_input *in = calloc(p->n, sizeof *in);
        unsigned n = 0;
        int r = 0;
        if (!in)
                return -ENOMEM;
        for (size_t i = 0; i < p->n && r >= 0; i++) {
                if (!p->hosts[i].fetched)
                        continue;
                r = open_host_timeline(p, i, &in[n].fd);
                if (r < 0) {
                        fail(p, "load_failed", "load host %s (load.hosts[%zu]) sent no slicelab timeline: %s",
                             p->hosts[i].host, i, r == -EBADMSG ? "bad header" : strerror(-r));
                        break;
                }
                in[n].offset = sizeof(struct timeline_header);
                in[n].shift_ns = p->hosts[i].clock.offset_ns;
                in[n++].flags = timeline_host_flags((unsigned) i);
        }
        char tmp[PATH_MAX + 32], path[PATH_MAX + 32];
        snprintf(tmp, sizeof tmp, "%s/timeline.bin.merging", p->dir);
        snprintf(path, sizeof path, "%s/timeline.bin", p->dir);
        int out = r >= 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640) : -1;
        if (r >= 0 && out < 0)
                r = negative_errno();
        struct timeline_header h = timeline_header_make(p->start_ns,
                                                        p->start_ns + (int64_t) p->def->load.warmup_s * NSEC_PER_SEC);
        uint64_t records = 0;
        if (r >= 0)
                r = write_full(out, &h, sizeof h);
        if (r >= 0)
                r = timeline_merge(out, in, n, &records);
        if (out >= 0 && close(out) < 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlink(tmp);
        for (unsigned i = 0; i < n; i++)
                close(in[i].fd);
        if (r >= 0)
                log_full(LOG_INFO, 0, NULL, p->run_id, "run %s: merged %llu records of %u load hosts", p->run_id,
                         (unsigned long long) records, n);
        return r;
}

/* The merged run's summary.json, as collection reads an injector's: saturated when a host was,
 * late requests by cause summed over the hosts (stall_max_ms the largest). */
static int write_summary(struct run_peers *p) {
        static const char *const sums[] = { "requests", "server", "stalled", "injector", "stalls", "stalls_ms" };
        _cleanup_json_ cJSON *s = cJSON_CreateObject();
        cJSON *late = cJSON_CreateObject();
        bool saturated = false, all_late = true;
        double v[ELEMENTSOF(sums)] = { 0 }, threshold = 0, stall_max = 0;
        for (size_t i = 0; i < p->n; i++) {
                const cJSON *sum = p->hosts[i].summary;
                saturated |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "saturated"));
                const cJSON *l = cJSON_GetObjectItemCaseSensitive(sum, "late");
                const cJSON *t = cJSON_GetObjectItemCaseSensitive(l, "threshold_us");
                const cJSON *m = cJSON_GetObjectItemCaseSensitive(l, "stall_max_ms");
                all_late &= cJSON_IsNumber(t) && cJSON_IsNumber(m);
                for (size_t k = 0; all_late && k < ELEMENTSOF(sums); k++) {
                        const cJSON *x = cJSON_GetObjectItemCaseSensitive(l, sums[k]);
                        all_late &= cJSON_IsNumber(x);
                        v[k] += all_late ? x->valuedouble : 0;
                }
                if (all_late) {
                        threshold = t->valuedouble;
                        stall_max = MAX(stall_max, m->valuedouble);
                }
        }
        if (!s || !late || !cJSON_AddBoolToObject(s, "saturated", saturated)) {
                cJSON_Delete(late);
                return -ENOMEM;
        }
        if (all_late) {
                cJSON_AddNumberToObject(late, "threshold_us", threshold);
                for (size_t k = 0; k < ELEMENTSOF(sums); k++)
                        cJSON_AddNumberToObject(late, sums[k], v[k]);
                cJSON_AddNumberToObject(late, "stall_max_ms", stall_max);
                cJSON_AddItemToObject(s, "late", late);
        } else
                cJSON_Delete(late);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(s);
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/summary.json", p->dir);
        return text ? write_file_atomic(path, text, strlen(text), 0640) : -ENOMEM;
}

static void *worker_main(void *arg) {
        struct run_peers *p = arg;
        bool even = true;
        struct definition_host_load *parts = calloc(p->n, sizeof *parts);
        int r = parts ? definition_load_split(&p->def->load, seed_of(p->run_id), parts, &even) : -ENOMEM;
        if (r < 0)
                fail(p, "preflight", "cannot split the load over its hosts: %s", strerror(-r));
        for (size_t i = 0; r >= 0 && i < p->n; i++)
                p->hosts[i].part = parts[i];
        free(parts);
        /* In preflight: every peer answers, before the SUT starts; again when it is ready, so
         * that the offsets are fresh when the schedules start. */
        if (r >= 0)
                r = measure_clocks(p);
        if (r >= 0)
                post_event(p, RUN_PEERS_CHECKED);
        if (r >= 0 && !wait_go(p))
                r = fail(p, "cancelled", "the run was stopped");
        if (r >= 0)
                r = measure_clocks(p);
        if (r >= 0)
                r = post_loads(p);
        if (r >= 0 && !stop_asked(p)) {
                post_event(p, RUN_PEERS_STARTED);
                r = watch(p);
        } else if (r >= 0)
                r = fail(p, "cancelled", "the run was stopped");
        if (r < 0 && stop_asked(p))
                delete_loads(p); /* the run ends now: a cancel, a deadline, the daemon stopping */
        else if (r < 0) {
                delete_loads(p);
                await_partial(p);
                (void) fetch_timelines(p, false); /* kept for a look at what happened, never merged */
        } else if ((r = fetch_timelines(p, true)) >= 0) {
                r = merge_timelines(p);
                if (r >= 0)
                        r = write_summary(p);
                if (r < 0)
                        fail(p, "collect_failed", "cannot merge the load hosts' timelines: %s", strerror(-r));
        }
        post_event(p, RUN_PEERS_FINISHED);
        return NULL;
}

/* ---- the loop's side --------------------------------------------------------------------- */

static int on_event(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct run_peers *p = userdata;
        uint64_t v;
        (void) !read(p->efd, &v, sizeof v);
        pthread_mutex_lock(&p->lock);
        unsigned pending = p->pending;
        p->pending = 0;
        pthread_mutex_unlock(&p->lock);
        /* in order, and the callback may free p only on the last */
        if (pending & (1u << RUN_PEERS_CHECKED))
                p->cb(p, RUN_PEERS_CHECKED, p->userdata);
        if (pending & (1u << RUN_PEERS_STARTED))
                p->cb(p, RUN_PEERS_STARTED, p->userdata);
        if (pending & (1u << RUN_PEERS_FINISHED))
                p->cb(p, RUN_PEERS_FINISHED, p->userdata);
        return 0;
}

int run_peers_start(sd_event *event, const struct peer_config *peers, const struct definition *d, const char *run_id,
                    const char *dir, run_peers_fn cb, void *userdata, struct run_peers **ret) {
        _cleanup_free_ struct run_peers *p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        *p = (struct run_peers){ .peers = peers, .def = d, .run_id = run_id, .n = d->load.n_hosts, .efd = -1, .cb = cb,
                                 .userdata = userdata };
        snprintf(p->dir, sizeof p->dir, "%s", dir);
        p->hosts = calloc(p->n, sizeof *p->hosts);
        if (!p->hosts)
                return -ENOMEM;
        for (size_t i = 0; i < p->n; i++)
                p->hosts[i].host = d->load.hosts[i].host;
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->cond, &ca);
        pthread_condattr_destroy(&ca);
        pthread_mutex_init(&p->lock, NULL);
        p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        int r = p->efd < 0 ? negative_errno() : sd_event_add_io(event, &p->source, p->efd, EPOLLIN, on_event, p);
        if (r >= 0)
                r = -pthread_create(&p->thread, NULL, worker_main, p);
        if (r < 0) {
                run_peers_free(TAKE_PTR(p));
                return r;
        }
        p->thread_started = true;
        *ret = TAKE_PTR(p);
        return 0;
}

/* Set one of the flags the thread waits on, and wake it. */
static void signal_flag(struct run_peers *p, bool *flag) {
        if (!p)
                return;
        pthread_mutex_lock(&p->lock);
        *flag = true;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
}

void run_peers_go(struct run_peers *p) {
        signal_flag(p, p ? &p->go : NULL);
}

void run_peers_stop(struct run_peers *p) {
        signal_flag(p, p ? &p->stop : NULL);
}

struct run_peers *run_peers_free(struct run_peers *p) {
        if (!p)
                return NULL;
        if (p->thread_started) {
                run_peers_stop(p);
                pthread_join(p->thread, NULL);
        }
        p->source = sd_event_source_disable_unref(p->source);
        if (p->efd >= 0)
                close(p->efd);
        for (size_t i = 0; p->hosts && i < p->n; i++) {
                free(p->hosts[i].id);
                cJSON_Delete(p->hosts[i].summary);
        }
        free(p->hosts);
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
}

int64_t run_peers_start_ns(const struct run_peers *p) {
        return p->start_ns;
}

int run_peers_result(const struct run_peers *p, const char **reason, const char **message) {
        *reason = p->reason;
        *message = p->message;
        return p->result;
}

static void add_summary_number(cJSON *o, const char *name, const cJSON *summary, const char *a, const char *b,
                               const char *c) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(summary, a);
        if (b)
                v = cJSON_GetObjectItemCaseSensitive(v, b);
        if (c)
                v = cJSON_GetObjectItemCaseSensitive(v, c);
        if (cJSON_IsNumber(v))
                cJSON_AddNumberToObject(o, name, v->valuedouble);
        else
                cJSON_AddNullToObject(o, name);
}

cJSON *run_peers_hosts_json(const struct run_peers *p) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < p->n; i++) {
                const struct host_state *h = &p->hosts[i];
                cJSON *o = cJSON_CreateObject();
                if (!o || !cJSON_AddItemToArray(a, o)) {
                        cJSON_Delete(o);
                        break;
                }
                cJSON_AddStringToObject(o, "host", h->host);
                cJSON_AddNumberToObject(o, "offset_ns", (double) h->clock.offset_ns);
                cJSON_AddNumberToObject(o, "rtt_ns", (double) h->clock.rtt_ns);
                cJSON_AddNumberToObject(o, "error_ns", (double) h->clock.error_ns);
                if (h->id)
                        cJSON_AddStringToObject(o, "load_id", h->id);
                else
                        cJSON_AddNullToObject(o, "load_id");
                cJSON_AddStringToObject(o, "state", h->state[0] ? h->state : "not_started");
                add_summary_number(o, "requests", h->summary, "requests", NULL, NULL);
                add_summary_number(o, "throughput_rps", h->summary, "throughput_rps", NULL, NULL);
                add_summary_number(o, "achieved_rps", h->summary, "achieved_rps", NULL, NULL);
                add_summary_number(o, "lag_p99_us", h->summary, "latency_us", "lag", "p99");
                const cJSON *late = cJSON_GetObjectItemCaseSensitive(h->summary, "late");
                cJSON_AddItemToObject(o, "late", cJSON_IsObject(late) ? cJSON_Duplicate(late, true) : cJSON_CreateNull());
                const cJSON *sat = cJSON_GetObjectItemCaseSensitive(h->summary, "saturated");
                if (cJSON_IsBool(sat))
                        cJSON_AddBoolToObject(o, "saturated", cJSON_IsTrue(sat));
                else
                        cJSON_AddNullToObject(o, "saturated");
        }
        return a;
}

void run_peers_clock_warnings(const struct run_peers *p, cJSON *warnings) {
        for (size_t i = 0; i < p->n; i++) {
                const struct host_state *h = &p->hosts[i];
                if (!h->has_clock || h->clock.error_ns <= RUN_PEERS_CLOCK_ERROR_WARN_NS)
                        continue;
                char buf[512];
                snprintf(buf, sizeof buf,
                         "load host %s: its clock offset is known to within %.3f ms only (round trip %.3f ms): "
                         "its requests' times on this host's clock are that uncertain",
                         h->host, (double) h->clock.error_ns / 1e6, (double) h->clock.rtt_ns / 1e6);
                cJSON_AddItemToArray(warnings, cJSON_CreateString(buf));
        }
}
