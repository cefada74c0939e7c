/* load-hosts.c: a run's load on its load hosts, on a thread of its own (see load-hosts.h). */
#include "daemon/load-hosts.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/hash.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/utf8.h"
#include "daemon/collect.h"
#include "daemon/collect-hosts.h"
#include "daemon/load.h"
#include "daemon/loop-thread.h"
#include "definition/definition-peer-load.h"
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
        bool finished;
};

enum hosts_event {
        HOSTS_CHECKED,          /* preflight: every peer answered for its clock */
        HOSTS_STARTED,          /* every peer has its load; start_ns is the instant */
        HOSTS_STEP_DONE,        /* a capacity step's files are written */
};

struct load_hosts {
        struct load load;               /* its head */
        sd_event_source *phase_timer;   /* warmup's and measure's starts, at start_ns */
        bool stopped;                   /* the run ends: started is not acted on */
        bool done;                      /* finished told, or the thread joined */
        const struct peer_config *peers;
        const struct definition *def;
        const char *run_id;
        char dir[PATH_MAX];
        struct host_state *hosts;
        size_t n;
        struct collect_host *collect;   /* collect_view()'s */
        struct collect_hosts view;
        int64_t start_ns;
        const struct definition_load *running;  /* what the hosts run now: the definition's, or a step's */
        char suffix[24];                /* of the files a step's merge writes: "-step-N" */
        struct loop_thread *thread;     /* from the preflight on */
        bool stop;                      /* under the thread's lock */
        bool go;                        /* under the thread's lock: the SUT is ready (or a stop) */
        /* A capacity search's steps (load_hosts_steps_new()): the loop sets step, step_load and
         * then step_go for each; step_end with it once the search is over. */
        bool steps;
        bool step_go;                   /* under the thread's lock */
        bool step_end;                  /* under the thread's lock */
        unsigned step;
        struct definition_load step_load;       /* mode rate at the step's rate, with its warmup */
        bool clocks_warned;
        bool posted_any;                /* on the thread: a load was posted (a step's, or the load) */
        load_hosts_step_fn step_done;
        void *step_userdata;
        int result;
        char reason[32];
        char message[1024];
};

/* ---- the thread's helpers ---------------------------------------------------------------- */

static void post_event(struct load_hosts *p, enum hosts_event ev) {
        loop_thread_post(p->thread, ev);
}

/* Sleep ms unless a stop comes first: true when the run asked to stop. */
static bool wait_or_stop(struct load_hosts *p, unsigned ms) {
        return loop_thread_wait(p->thread, &p->stop, now_mono_ns() + (int64_t) ms * NSEC_PER_MSEC);
}

/* Until the run says go (its SUT is ready): false when it asked to stop instead (a stop is a go
 * too, so that this wait ends). */
static bool wait_go(struct load_hosts *p) {
        loop_thread_wait(p->thread, &p->go, -1);
        return !loop_thread_get(p->thread, &p->stop);
}

static bool stop_asked(struct load_hosts *p) {
        return loop_thread_get(p->thread, &p->stop);
}

static int fail(struct load_hosts *p, const char *reason, const char *fmt, ...) _printf_(3, 4);
static int fail(struct load_hosts *p, const char *reason, const char *fmt, ...) {
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

/* The run's id names its schedules. */
static uint64_t seed_of(const char *run_id) {
        return fnv1a64(run_id, strlen(run_id));
}

/* ---- the phases -------------------------------------------------------------------------- */

/* A failure's reason: "preflight" until a load was posted (load-hosts.h), "load_failed" after. */
static const char *failure_reason(const struct load_hosts *p) {
        return p->posted_any ? "load_failed" : "preflight";
}

static int measure_clocks(struct load_hosts *p) {
        int64_t max_rtt = 0;
        for (size_t i = 0; i < p->n && !stop_asked(p); i++) {
                struct error err = { 0 };
                struct host_state *h = &p->hosts[i];
                if (peer_clock_measure(p->peers, h->host, LOAD_HOSTS_CLOCK_SAMPLES, &h->clock, &err) < 0)
                        return fail(p, failure_reason(p), "load host %s (load.hosts[%zu]) did not answer for its clock: %s", h->host,
                                    i, err.message);
                h->has_clock = true;
                max_rtt = MAX(max_rtt, h->clock.rtt_ns);
        }
        p->start_ns = now_mono_ns() + START_AHEAD_NS + max_rtt;
        return 0;
}

static int post_loads(struct load_hosts *p) {
        const struct definition_load *l = p->running;
        for (size_t i = 0; i < p->n && !stop_asked(p); i++) {
                struct host_state *h = &p->hosts[i];
                char coordinator[INET6_ADDRSTRLEN + 8];
                if (source_address_towards(h->host, coordinator, sizeof coordinator) < 0)
                        return fail(p, failure_reason(p), "load host %s (load.hosts[%zu]): no route to it", h->host, i);
                const struct definition_peer_request req = { .coordinator = coordinator, .coordinator_run = p->run_id,
                                                             .start_at_ns = p->start_ns + h->clock.offset_ns,
                                                             .lease_s = LOAD_HOSTS_LEASE_S };
                _cleanup_free_ char *body = definition_peer_load_body(l, i, &h->part, &req);
                struct error err = { 0 };
                if (!body)
                        return fail(p, failure_reason(p), "out of memory");
                if (peer_load_start(p->peers, h->host, body, &h->id, &err) < 0)
                        return fail(p, failure_reason(p), "load host %s (load.hosts[%zu]) refused the load: %s", h->host, i,
                                    err.message);
                h->last_answer_ns = now_mono_ns();
                p->posted_any = true;
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
static bool poll_host(struct load_hosts *p, size_t i, const char **ret_message) {
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
static int watch(struct load_hosts *p) {
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
                            now_mono_ns() - h->last_answer_ns > LOAD_HOSTS_LEASE_S * NSEC_PER_SEC)
                                return fail(p, "load_failed", "load host %s (load.hosts[%zu]) stopped answering for %d s: %s",
                                            h->host, i, LOAD_HOSTS_LEASE_S, h->last_error);
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
static void delete_loads(struct load_hosts *p) {
        for (size_t i = 0; i < p->n; i++) {
                struct host_state *h = &p->hosts[i];
                struct error err = { 0 };
                if (h->id && !h->finished && peer_load_delete(p->peers, h->host, h->id, &err) < 0)
                        log_full(LOG_WARNING, 0, NULL, p->run_id, "run %s: cannot stop the load on %s: %s", p->run_id, h->host,
                                 err.message);
        }
}

/* A deleted load gets a moment to end, so that its partial timeline can be fetched. */
static void await_partial(struct load_hosts *p) {
        int64_t until = now_mono_ns() + PARTIAL_WAIT_NS;
        for (size_t i = 0; i < p->n; i++) {
                const char *message;
                struct host_state *h = &p->hosts[i];
                while (h->id && !h->finished && now_mono_ns() < until && poll_host(p, i, &message) && !h->finished)
                        usleep(200000);
        }
}

/* What collection (collect-hosts.h) or a failed run's look needs of the hosts, as they ended. */
static const struct collect_hosts *collect_view(struct load_hosts *p) {
        for (size_t i = 0; i < p->n; i++) {
                const struct host_state *h = &p->hosts[i];
                p->collect[i] = (struct collect_host){ .host = h->host, .load_id = h->id, .finished = h->finished,
                                                       .offset_ns = h->clock.offset_ns, .summary = h->summary };
        }
        p->view = (struct collect_hosts){ .peers = p->peers, .hosts = p->collect, .n = p->n, .start_ns = p->start_ns,
                                          .warmup_s = p->running->warmup_s, .suffix = p->suffix };
        return &p->view;
}

/* A failed run's hosts' timelines, fetched as far as they can be: kept for a look at what
 * happened, never merged. */
static void fetch_partial(struct load_hosts *p) {
        _cleanup_free_ bool *fetched = calloc(p->n, sizeof *fetched);
        char why[512];
        if (fetched)
                (void) collect_hosts_fetch(collect_view(p), p->dir, false, fetched, why, sizeof why);
}

/* Each host's part of the load that runs now (p->running). */
static int split_load(struct load_hosts *p, uint64_t seed) {
        bool even = true;
        _cleanup_free_ struct definition_host_load *parts = calloc(p->n, sizeof *parts);
        int r = parts ? definition_load_split(p->running, seed, parts, &even) : -ENOMEM;
        if (r < 0)
                return fail(p, "load_failed", "cannot split the load over its hosts: %s", strerror(-r));
        for (size_t i = 0; i < p->n; i++)
                p->hosts[i].part = parts[i];
        return 0;
}

/* One load on every host: the clocks measured again, so that the offsets are fresh when the
 * schedules start, the parts posted to start at one instant, watched to their end. */
static int run_load(struct load_hosts *p, uint64_t seed) {
        int r = split_load(p, seed);
        if (r >= 0)
                r = measure_clocks(p);
        if (r >= 0)
                r = post_loads(p);
        if (r >= 0 && stop_asked(p))
                r = fail(p, "cancelled", "the run was stopped");
        if (r >= 0) {
                post_event(p, HOSTS_STARTED);
                r = watch(p);
        }
        return r;
}

/* Forget the load a host ran: the next step posts another. */
static void host_forget_load(struct host_state *h) {
        free(h->id);
        h->id = NULL;
        cJSON_Delete(h->summary);
        h->summary = NULL;
        h->state[0] = '\0';
        h->finished = false;
}

/* A capacity search's steps, one at a time as the loop asks (load_hosts_step()), each step's
 * timelines fetched and merged into its own files before the loop hears of it, so that the
 * search judges it as it judges a local step; until the search is over or the run stops. */
static int run_steps(struct load_hosts *p) {
        for (;;) {
                loop_thread_wait(p->thread, &p->step_go, -1);
                (void) loop_thread_take(p->thread, &p->step_go);
                if (stop_asked(p))
                        return fail(p, "cancelled", "the run was stopped");
                if (loop_thread_get(p->thread, &p->step_end))
                        return 0;
                for (size_t i = 0; i < p->n; i++)
                        host_forget_load(&p->hosts[i]);
                snprintf(p->suffix, sizeof p->suffix, "-step-%u", p->step);
                int r = run_load(p, seed_of(p->run_id) + p->step);
                if (r < 0)
                        return r;
                char why[512] = "";
                r = collect_hosts_run(collect_view(p), p->dir, p->run_id, why, sizeof why);
                if (r < 0)
                        return fail(p, "load_failed", "capacity step %u: %s", p->step, why[0] ? why : strerror(-r));
                post_event(p, HOSTS_STEP_DONE);
        }
}

static void worker_main(struct loop_thread *t, void *userdata) {
        struct load_hosts *p = userdata;
        /* In preflight: every peer answers, before the SUT starts. */
        int r = measure_clocks(p);
        if (r >= 0)
                post_event(p, HOSTS_CHECKED);
        if (r >= 0 && !wait_go(p))
                r = fail(p, "cancelled", "the run was stopped");
        if (r >= 0)
                r = p->steps ? run_steps(p) : run_load(p, seed_of(p->run_id));
        if (r < 0 && stop_asked(p))
                delete_loads(p); /* the run ends now: a cancel, a deadline, the daemon stopping */
        else if (r < 0) {
                delete_loads(p);
                await_partial(p);
                fetch_partial(p);
        }
        /* a success: collection fetches and merges the timelines (collect-hosts.h); a capacity
         * search's steps were each merged as they ended */
}

/* ---- the loop's side: the load of load.hosts (load.h) ------------------------------------- */

static struct load_hosts *hosts_of(const struct load *l) {
        return (struct load_hosts *) l;
}

static int arm_phase(struct load_hosts *p, int64_t at_ns, sd_event_time_handler_t cb) {
        p->phase_timer = sd_event_source_disable_unref(p->phase_timer);
        return sd_event_add_time(p->load.run->event, &p->phase_timer, CLOCK_MONOTONIC, (uint64_t) MAX(at_ns, 0) / 1000, 1000,
                                 cb, p);
}

static int on_measure(sd_event_source *s, uint64_t usec, void *userdata) {
        struct load_hosts *p = userdata;
        p->phase_timer = sd_event_source_disable_unref(p->phase_timer);
        p->load.run->events->measure(p->load.run->userdata, NULL);
        return 0;
}

static int on_warmup(sd_event_source *s, uint64_t usec, void *userdata) {
        struct load_hosts *p = userdata;
        p->load.run->events->warmup(p->load.run->userdata, "the load hosts' schedules started");
        arm_phase(p, p->start_ns + (int64_t) p->def->load.warmup_s * NSEC_PER_SEC, on_measure);
        return 0;
}

/* The warnings the clocks call for (an error bound above 1 ms), once started. */
static void clock_warnings(const struct load_hosts *p) {
        const struct load_run *run = p->load.run;
        for (size_t i = 0; i < p->n; i++) {
                const struct host_state *h = &p->hosts[i];
                if (!h->has_clock || h->clock.error_ns <= LOAD_HOSTS_CLOCK_ERROR_WARN_NS)
                        continue;
                char buf[512];
                snprintf(buf, sizeof buf,
                         "load host %s: its clock offset is known to within %.3f ms only (round trip %.3f ms): "
                         "its requests' times on this host's clock are that uncertain",
                         h->host, (double) h->clock.error_ns / 1e6, (double) h->clock.rtt_ns / 1e6);
                run->events->warn(run->userdata, buf);
        }
}

/* The schedules start at start_ns on this host's clock: warmup and measure follow from it. */
static void on_started(struct load_hosts *p) {
        const struct load_run *run = p->load.run;
        clock_warnings(p);
        if (p->stopped)
                return;
        arm_phase(p, p->start_ns, p->def->load.warmup_s > 0 ? on_warmup : on_measure);
        log_full(LOG_INFO, 0, run->experiment_id, run->id, "run %s: %zu load hosts start in %.3f s", run->id, p->n,
                 seconds_from_ns(p->start_ns - now_mono_ns()));
}

static void on_finished(struct load_hosts *p) {
        p->done = true;
        p->phase_timer = sd_event_source_disable_unref(p->phase_timer);
        p->load.run->events->finished(p->load.run->userdata, p->result, p->reason, p->message);
}

/* The thread found every peer answering (CHECKED: preflight goes on to the slices and the SUT),
 * has the loads posted (STARTED), has a capacity step's files (STEP_DONE) or is done (finished: every load succeeded and collection
 * merges their timelines, or the run fails; a stop asked for meanwhile waited for it, the
 * peers' loads are deleted). */
static void on_report(struct loop_thread *t, unsigned events, bool finished, void *userdata) {
        struct load_hosts *p = userdata;
        if ((events & (1u << HOSTS_CHECKED)) && !p->stopped)
                p->load.run->events->prepared(p->load.run->userdata);
        if ((events & (1u << HOSTS_STARTED)) && !p->steps)
                on_started(p);
        else if ((events & (1u << HOSTS_STARTED)) && !p->clocks_warned) {
                p->clocks_warned = true;
                clock_warnings(p);
        }
        if ((events & (1u << HOSTS_STEP_DONE)) && !p->stopped)
                p->step_done(p->step_userdata);
        if (finished)
                on_finished(p);
}

static int hosts_new(const struct load_run *run, struct load **ret) {
        const struct definition *d = run->def;
        _cleanup_free_ struct load_hosts *p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        *p = (struct load_hosts){ .peers = run->peers, .def = d, .run_id = run->id, .n = d->load.n_hosts, .running = &d->load };
        snprintf(p->dir, sizeof p->dir, "%s", run->dir);
        p->hosts = calloc(p->n, sizeof *p->hosts);
        p->collect = calloc(p->n, sizeof *p->collect);
        if (!p->hosts || !p->collect) {
                free(p->hosts);
                free(p->collect);
                return -ENOMEM;
        }
        for (size_t i = 0; i < p->n; i++)
                p->hosts[i].host = d->load.hosts[i].host;
        *ret = &TAKE_PTR(p)->load;
        return 0;
}

/* In the run's preflight: the thread checks every peer's clock; prepared follows (CHECKED). */
static int hosts_prepare(struct load *l, char *why, size_t why_size) {
        struct load_hosts *p = hosts_of(l);
        int r = loop_thread_new(l->run->event, on_report, p, &p->thread);
        if (r >= 0)
                r = loop_thread_start(p->thread, worker_main);
        if (r < 0)
                snprintf(why, why_size, "cannot start the load hosts' thread: %s", strerror(-r));
        return r;
}

/* The SUT is ready: the thread starts the loads; the deadline counts from now. */
static int hosts_start(struct load *l, char *why, size_t why_size) {
        struct load_hosts *p = hosts_of(l);
        loop_thread_set(p->thread, &p->go);
        l->run->events->started(l->run->userdata);
        return 0;
}

/* The thread deletes the peers' loads and finishes; returns at once. */
static void hosts_stop(struct load *l) {
        struct load_hosts *p = hosts_of(l);
        p->stopped = true;
        if (!p->thread)
                return;
        loop_thread_set(p->thread, &p->stop);
        loop_thread_set(p->thread, &p->go);
        loop_thread_set(p->thread, &p->step_go);
}

/* The thread still talks to the peers: it deletes their loads before the run ends. */
static bool hosts_busy(const struct load *l) {
        const struct load_hosts *p = hosts_of(l);
        return p->thread && !p->done;
}

/* Daemon shutdown: the thread deletes the peers' loads (each call bounded) and is joined here; a
 * peer it cannot reach stops its load when the lease lapses. */
static void hosts_wait(struct load *l) {
        struct load_hosts *p = hosts_of(l);
        hosts_stop(l);
        if (p->thread)
                loop_thread_join(p->thread);
        p->done = true;
}

static void hosts_reap(struct load *l) {
        struct load_hosts *p = hosts_of(l);
        p->phase_timer = sd_event_source_disable_unref(p->phase_timer);
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

/* metrics.load.hosts: per host its clock (offset_ns, rtt_ns, error_ns), its load's id and state
 * and, from its summary, requests, throughput_rps, lag_p99_us, late and saturated. */
static cJSON *hosts_json(const struct load_hosts *p) {
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

static void hosts_metrics(const struct load *l, cJSON *metrics) {
        cJSON *load = cJSON_GetObjectItemCaseSensitive(metrics, "load");
        if (cJSON_IsObject(load))
                cJSON_AddItemToObject(load, "hosts", hosts_json(hosts_of(l)));
}

cJSON *load_hosts_json(const struct load *l) {
        return hosts_json(hosts_of(l));
}

/* The thread is over: collection fetches and merges what the peers ran. */
static void hosts_collect(struct load *l, struct collect_input *in) {
        in->hosts = collect_view(hosts_of(l));
}

static void hosts_free(struct load *l) {
        struct load_hosts *p = hosts_of(l);
        hosts_wait(l);
        hosts_reap(l);
        loop_thread_free(p->thread);
        for (size_t i = 0; p->hosts && i < p->n; i++)
                host_forget_load(&p->hosts[i]);
        free(p->hosts);
        free(p->collect);
        free(p);
}

const struct load_ops load_hosts_ops = {
        .name = "hosts",
        .slice = true,
        .new = hosts_new,
        .prepare = hosts_prepare,
        .start = hosts_start,
        .stop = hosts_stop,
        .busy = hosts_busy,
        .wait = hosts_wait,
        .reap = hosts_reap,
        .collect = hosts_collect,
        .metrics = hosts_metrics,
        .free = hosts_free,
};

/* ---- a capacity search's steps on the hosts (load-hosts.h) ---------------------------------- */

int load_hosts_steps_new(const struct load_run *run, load_hosts_step_fn step_done, void *userdata, struct load **ret) {
        struct load *l = NULL;
        int r = hosts_new(run, &l);
        if (r < 0)
                return r;
        struct load_hosts *p = hosts_of(l);
        p->steps = true;
        p->step_done = step_done;
        p->step_userdata = userdata;
        p->running = &p->step_load;
        p->step_load = run->def->load;
        l->ops = &load_hosts_ops;
        l->run = run;
        *ret = l;
        return 0;
}

void load_hosts_step(struct load *l, unsigned step, double rate) {
        struct load_hosts *p = hosts_of(l);
        const struct definition_load *d = &p->def->load;
        /* written before step_go is set under the thread's lock, read after the thread took it */
        p->step = step;
        p->step_load = *d;
        p->step_load.mode = DEFINITION_MODE_RATE;
        p->step_load.rate = rate;
        p->step_load.warmup_s = d->warmup_s + (step == 0 ? d->search_warmup_s : 0);
        loop_thread_set(p->thread, &p->go);
        loop_thread_set(p->thread, &p->step_go);
        l->run->events->started(l->run->userdata);
}

void load_hosts_steps_end(struct load *l) {
        struct load_hosts *p = hosts_of(l);
        loop_thread_set(p->thread, &p->step_end);
        loop_thread_set(p->thread, &p->step_go);
}
