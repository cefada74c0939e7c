/* probe.c: readiness probes on the event loop. */
#include "daemon/probe.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"

#define PROBE_INTERVAL_US 100000

struct probe {
        sd_event *event;
        struct sockaddr_storage addr;
        socklen_t addr_len;
        char *request;          /* NULL for TCP */
        int fd;
        bool sent;
        char response[128];
        size_t response_len;
        sd_event_source *io, *timer;
        probe_ready_fn ready;
        void *userdata;
        char last_error[128];
};

static int attempt(struct probe *p);

static void close_attempt(struct probe *p) {
        p->io = sd_event_source_disable_unref(p->io);
        if (p->fd >= 0)
                close(p->fd);
        p->fd = -1;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        return attempt(userdata);
}

static void retry_later(struct probe *p, const char *why) {
        snprintf(p->last_error, sizeof p->last_error, "%s", why);
        close_attempt(p);
        uint64_t now;
        sd_event_now(p->event, CLOCK_MONOTONIC, &now);
        if (!p->timer)
                sd_event_add_time(p->event, &p->timer, CLOCK_MONOTONIC, now + PROBE_INTERVAL_US, 10000, on_retry, p);
        else {
                sd_event_source_set_time(p->timer, now + PROBE_INTERVAL_US);
                sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT);
        }
}

static void succeed(struct probe *p) {
        close_attempt(p);
        p->timer = sd_event_source_disable_unref(p->timer);
        p->ready(p->userdata); /* may free p */
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct probe *p = userdata;
        if (!p->sent) {
                int err = 0;
                socklen_t len = sizeof err;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
                        retry_later(p, err ? strerror(err) : "connect failed");
                        return 0;
                }
                if (!p->request) {
                        succeed(p);
                        return 0;
                }
                size_t n = strlen(p->request);
                if (send(fd, p->request, n, MSG_NOSIGNAL) != (ssize_t) n) {
                        retry_later(p, "cannot send the request");
                        return 0;
                }
                p->sent = true;
                sd_event_source_set_io_events(s, EPOLLIN);
                return 0;
        }
        ssize_t n = recv(fd, p->response + p->response_len, sizeof p->response - 1 - p->response_len, 0);
        if (n <= 0) {
                retry_later(p, n == 0 ? "connection closed before a status line" : strerror(errno));
                return 0;
        }
        p->response_len += (size_t) n;
        p->response[p->response_len] = '\0';
        if (!strchr(p->response, '\n') && p->response_len < sizeof p->response - 1)
                return 0;
        int status = 0;
        if (sscanf(p->response, "HTTP/1.%*d %d", &status) == 1 && status >= 200 && status < 300) {
                succeed(p);
                return 0;
        }
        char why[64];
        snprintf(why, sizeof why, status ? "HTTP %d" : "not an HTTP answer", status);
        retry_later(p, why);
        return 0;
}

static int attempt(struct probe *p) {
        p->sent = false;
        p->response_len = 0;
        p->fd = socket(p->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (p->fd < 0) {
                retry_later(p, strerror(errno));
                return 0;
        }
        if (connect(p->fd, (struct sockaddr *) &p->addr, p->addr_len) < 0 && errno != EINPROGRESS) {
                retry_later(p, strerror(errno));
                return 0;
        }
        int r = sd_event_add_io(p->event, &p->io, p->fd, EPOLLOUT, on_io, p);
        if (r < 0)
                retry_later(p, strerror(-r));
        return 0;
}

int probe_start(sd_event *e, const char *host, uint16_t port, const char *path, probe_ready_fn ready,
                void *userdata, struct probe **ret) {
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *ai = NULL;
        char service[8];
        snprintf(service, sizeof service, "%u", port);
        int r = getaddrinfo(host, service, &hints, &ai);
        if (r != 0)
                return log_error_errno(-EHOSTUNREACH, "readiness probe: cannot resolve %s: %s", host, gai_strerror(r));
        _cleanup_free_ struct probe *p = calloc(1, sizeof *p);
        if (!p) {
                freeaddrinfo(ai);
                return -ENOMEM;
        }
        memcpy(&p->addr, ai->ai_addr, ai->ai_addrlen);
        p->addr_len = ai->ai_addrlen;
        freeaddrinfo(ai);
        if (path && asprintf(&p->request, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host) < 0)
                return -ENOMEM;
        p->event = e;
        p->fd = -1;
        p->ready = ready;
        p->userdata = userdata;
        snprintf(p->last_error, sizeof p->last_error, "no attempt yet");
        attempt(p);
        *ret = TAKE_PTR(p);
        return 0;
}

struct probe *probe_free(struct probe *p) {
        if (!p)
                return NULL;
        close_attempt(p);
        sd_event_source_disable_unref(p->timer);
        free(p->request);
        free(p);
        return NULL;
}

const char *probe_last_error(const struct probe *p) {
        return p->last_error;
}
