/* conn-guard.c: the request-header deadline (see conn-guard.h). The sweeper never touches a
 * closed fd: libmicrohttpd reports MHD_CONNECTION_NOTIFY_CLOSED before it closes the socket,
 * and that notification frees the slot under the same mutex the sweeper holds while it calls
 * shutdown(), so an fd number reused by a newer connection is never hit. */
#include "api/conn-guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"

struct slot {
        bool used;
        bool headers_done;
        int fd;
        int64_t since_ns; /* CLOCK_MONOTONIC: connection start or end of the previous request */
};

struct conn_guard {
        pthread_mutex_t lock;
        pthread_cond_t wake;
        pthread_t sweeper;
        bool stop;
        unsigned deadline_s;
        unsigned n;
        struct slot slots[];
};

static void sweep(struct conn_guard *g) {
        int64_t limit = now_mono_ns() - (int64_t) g->deadline_s * NSEC_PER_SEC;
        for (unsigned i = 0; i < g->n; i++) {
                struct slot *s = &g->slots[i];
                if (!s->used || s->headers_done || s->since_ns > limit)
                        continue;
                /* libmicrohttpd sees the end of the stream and closes the connection itself. */
                (void) shutdown(s->fd, SHUT_RDWR);
                s->headers_done = true; /* once is enough */
                log_debug("http: a client sent no complete request headers within %u s; connection closed", g->deadline_s);
        }
}

static void *sweeper_main(void *userdata) {
        struct conn_guard *g = userdata;
        pthread_mutex_lock(&g->lock);
        while (!g->stop) {
                struct timespec until;
                clock_gettime(CLOCK_MONOTONIC, &until);
                until.tv_sec += 1;
                (void) pthread_cond_timedwait(&g->wake, &g->lock, &until);
                if (!g->stop)
                        sweep(g);
        }
        pthread_mutex_unlock(&g->lock);
        return NULL;
}

int conn_guard_new(unsigned slots, unsigned deadline_s, struct conn_guard **ret) {
        struct conn_guard *g = calloc(1, sizeof *g + slots * sizeof g->slots[0]);
        if (!g)
                return -ENOMEM;
        g->n = slots;
        g->deadline_s = deadline_s;
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&g->wake, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&g->lock, NULL);
        int r = pthread_create(&g->sweeper, NULL, sweeper_main, g);
        if (r != 0) {
                pthread_cond_destroy(&g->wake);
                pthread_mutex_destroy(&g->lock);
                free(g);
                return -r;
        }
        *ret = g;
        return 0;
}

void conn_guard_free(struct conn_guard *g) {
        if (!g)
                return;
        pthread_mutex_lock(&g->lock);
        g->stop = true;
        pthread_cond_signal(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->sweeper, NULL);
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
}

void conn_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe) {
        struct conn_guard *g = cls;
        pthread_mutex_lock(&g->lock);
        if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
                const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
                *socket_context = NULL;
                for (unsigned i = 0; info && i < g->n; i++)
                        if (!g->slots[i].used) {
                                g->slots[i] = (struct slot){ .used = true, .fd = info->connect_fd, .since_ns = now_mono_ns() };
                                *socket_context = &g->slots[i];
                                break;
                        }
        } else if (*socket_context) {
                ((struct slot *) *socket_context)->used = false;
                *socket_context = NULL;
        }
        pthread_mutex_unlock(&g->lock);
}

static struct slot *slot_of(struct MHD_Connection *c) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        return info ? info->socket_context : NULL;
}

void conn_guard_headers_done(struct conn_guard *g, struct MHD_Connection *c) {
        struct slot *s = slot_of(c);
        if (!s)
                return;
        pthread_mutex_lock(&g->lock);
        s->headers_done = true;
        pthread_mutex_unlock(&g->lock);
}

void conn_guard_request_done(struct conn_guard *g, struct MHD_Connection *c) {
        struct slot *s = slot_of(c);
        if (!s)
                return;
        pthread_mutex_lock(&g->lock);
        s->headers_done = false;
        s->since_ns = now_mono_ns();
        pthread_mutex_unlock(&g->lock);
}
