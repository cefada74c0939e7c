/* peers.c: GET /v1/peers (issue 39): the load hosts this coordinator has used that --peer-allow
 * still names, each with the clock its last run measured and whether it answers now.
 *
 * Whether a host answers is a GET of its /v1/health (peer/peer-probe.c: all hosts at once,
 * bounded by PEER_PROBE_TIMEOUT_MS). The list and its probes are kept PEERS_TTL_NS: a storm of
 * GETs costs one store read and one round of probes per period, and only the request that finds
 * the list stale does them; the others meanwhile are served the stale list, or wait for the
 * first one there is (bounded, else 503). The token goes to the peers only: nothing of the
 * answer comes from a peer but its version, which peer_probe() drops if it holds the token. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "api/handlers.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "peer/peer-config.h"
#include "peer/peer-probe.h"
#include "storage/peer-hosts.h"

/* The hosts listed at most (?limit's bound, openapi.yaml's maxItems). */
#define PEERS_LIST_MAX 100
#define PEERS_TTL_NS (10 * NSEC_PER_SEC)
/* How long a request waits for another's first list: the store read and a round of probes. */
#define PEERS_WAIT_NS (PEER_PROBE_TIMEOUT_MS * NSEC_PER_MSEC + DB_LEASE_WAIT_MS * NSEC_PER_MSEC + 2 * NSEC_PER_SEC)

struct peer_row {
        struct peer_host_used used;
        struct peer_probe probe;
};

struct peer_list {
        struct peer_row rows[PEERS_LIST_MAX];
        size_t n;
        bool truncated;                 /* --peer-allow names more used hosts than listed */
        int64_t checked_wall_ns, checked_mono_ns;
};

static struct {
        pthread_mutex_t lock;
        pthread_cond_t changed;         /* a refresh ended */
        bool refreshing;                /* one request is reading the store and probing */
        struct peer_list *list;         /* the last one made, or NULL */
} peers = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

struct collect {
        const struct peer_config *config;
        struct peer_list *list;
};

static int collect_host(const struct peer_host_used *h, void *userdata) {
        struct collect *c = userdata;
        if (!peer_host_allowed(c->config, h->host))
                return 0;
        if (c->list->n == PEERS_LIST_MAX) {
                c->list->truncated = true;
                return -ECANCELED;
        }
        c->list->rows[c->list->n++].used = *h;
        return 0;
}

/* A new list: the used hosts from the store (the lease held only for that read), then probed. */
static int list_make(struct api_request *req, struct peer_list **ret) {
        _cleanup_free_ struct peer_list *l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        struct collect c = { .config = req->config->peers, .list = l };
        if (c.config && c.config->allow) {
                _cleanup_lease_ struct db_lease lease = { 0 };
                int r = db_lease_take(req->config->storage, &lease);
                if (r < 0)
                        return r;
                r = peer_hosts_used(lease.conn, PEER_HOSTS_SCAN_MAX, collect_host, &c);
                if (r < 0 && r != -ECANCELED)
                        return r;
        }
        const char *hosts[PEERS_LIST_MAX];
        _cleanup_free_ struct peer_probe *probes = calloc(PEERS_LIST_MAX, sizeof *probes);
        if (!probes)
                return -ENOMEM;
        for (size_t i = 0; i < l->n; i++)
                hosts[i] = l->rows[i].used.host;
        (void) peer_probe(c.config, hosts, l->n, probes);       /* each result says what failed */
        for (size_t i = 0; i < l->n; i++)
                l->rows[i].probe = probes[i];
        l->checked_wall_ns = now_wall_ns();
        l->checked_mono_ns = now_mono_ns();
        *ret = TAKE_PTR(l);
        return 0;
}

static bool list_fresh(const struct peer_list *l) {
        return l && now_mono_ns() - l->checked_mono_ns < PEERS_TTL_NS;
}

static void add_time(cJSON *o, const char *name, int64_t wall_ns) {
        char buf[40];
        format_rfc3339(wall_ns, buf, sizeof buf);
        cJSON_AddStringToObject(o, name, buf);
}

static void add_string_or_null(cJSON *o, const char *name, const char *v) {
        if (v && *v)
                cJSON_AddStringToObject(o, name, v);
        else
                cJSON_AddNullToObject(o, name);
}

static cJSON *row_json(const struct peer_row *p) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "host", p->used.host);
        add_time(o, "last_used", p->used.used_wall_ns);
        cJSON_AddStringToObject(o, "last_run", p->used.run_id);
        cJSON *clock = cJSON_AddObjectToObject(o, "clock");
        cJSON_AddNumberToObject(clock, "offset_ns", p->used.offset_ns);
        cJSON_AddNumberToObject(clock, "rtt_ns", p->used.rtt_ns);
        cJSON_AddNumberToObject(clock, "error_ns", p->used.error_ns);
        cJSON_AddBoolToObject(o, "answers", p->probe.answers);
        add_string_or_null(o, "version", p->probe.answers ? p->probe.version : NULL);
        add_string_or_null(o, "error", p->probe.answers ? NULL : p->probe.error);
        return o;
}

/* The body from l's first limit rows; called with the lock held (l is shared). */
static cJSON *list_json(const struct peer_list *l, size_t limit) {
        cJSON *root = cJSON_CreateObject();
        cJSON *a = cJSON_AddArrayToObject(root, "peers");
        size_t n = MIN(l->n, limit);
        for (size_t i = 0; a && i < n; i++)
                cJSON_AddItemToArray(a, row_json(&l->rows[i]));
        cJSON_AddBoolToObject(root, "truncated", l->truncated || l->n > limit);
        add_time(root, "checked_at", l->checked_wall_ns);
        cJSON_AddNumberToObject(root, "max_age_s", (double) (PEERS_TTL_NS / NSEC_PER_SEC));
        return root;
}

/* This request makes the next list (peers.refreshing is ours): done outside the lock. */
static int refresh(struct api_request *req) {
        struct peer_list *l = NULL;
        int r = list_make(req, &l);
        pthread_mutex_lock(&peers.lock);
        if (r >= 0) {
                free(peers.list);
                peers.list = l;
        }
        peers.refreshing = false;
        pthread_cond_broadcast(&peers.changed);
        return r;
}

/* Waits (lock held) for a refresh under way to end, within PEERS_WAIT_NS. */
static void wait_refresh(void) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += PEERS_WAIT_NS / NSEC_PER_SEC;
        while (peers.refreshing)
                if (pthread_cond_timedwait(&peers.changed, &peers.lock, &until) == ETIMEDOUT)
                        break;
}

enum MHD_Result api_get_peers(struct api_request *req) {
        struct error err = { 0 };
        int64_t limit;
        if (api_query_int(req, "limit", 1, PEERS_LIST_MAX, PEERS_LIST_MAX, &limit, &err) < 0)
                return api_reply_error(req, &err);

        pthread_mutex_lock(&peers.lock);
        if (!list_fresh(peers.list) && !peers.refreshing) {
                peers.refreshing = true;
                pthread_mutex_unlock(&peers.lock);
                int r = refresh(req);   /* returns with the lock held */
                if (r < 0) {
                        pthread_mutex_unlock(&peers.lock);
                        return api_reply_errno(req, r, "peers");
                }
        } else if (!peers.list)
                wait_refresh();
        cJSON *body = peers.list ? list_json(peers.list, (size_t) limit) : NULL;
        pthread_mutex_unlock(&peers.lock);
        if (!body)
                return api_reply_errorf(req, 503, "busy", NULL, "peers: the hosts are being checked, retry");
        return api_reply_json(req, 200, body);
}
