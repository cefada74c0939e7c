/* connection.c: connecting, writing a request, reading and parsing its answer, recording its
 * fate, closing and reopening; the contract is in connection.h. */
#include "injector/connection.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "injector/engine-config.h"
#include "injector/worker.h"
#include "injector/recv-stamp.h"

#define BACKOFF_MIN_NS NSEC_PER_MSEC
#define BACKOFF_MAX_NS (100 * NSEC_PER_MSEC)

static void set_interest(struct worker *w, struct conn *c, bool out) {
        if (c->want_out == out)
                return;
        struct epoll_event ev = {
                .events = EPOLLIN | EPOLLRDHUP | EPOLLET | (out ? EPOLLOUT : 0),
                .data.u64 = conn_token(c),
        };
        if (epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
                c->want_out = out;
}

static int socket_error(int fd) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                return negative_errno();
        return -err;
}

/* Open a non-blocking socket and start connecting; c->connected says if it already is. */
int connection_open(struct worker *w, struct conn *c) {
        const struct engine_config *cfg = w->e->cfg;
        _cleanup_close_ int fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        int one = 1;
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        recv_stamp_enable(fd);
        bool connected = connect(fd, (const struct sockaddr *) &cfg->addr, cfg->addr_len) == 0;
        if (!connected && errno != EINPROGRESS)
                return negative_errno();
        c->gen++;
        struct epoll_event ev = {
                .events = EPOLLIN | EPOLLRDHUP | EPOLLET | (connected ? 0 : EPOLLOUT),
                .data.u64 = conn_token(c),
        };
        if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
                return negative_errno();
        w->connects++;
        c->fd = TAKE_FD(fd);
        c->connected = connected;
        c->want_out = !connected;
        c->served = 0;
        return 0;
}

void connection_down(struct worker *w, struct conn *c, int64_t retry_ns) {
        conn_list_remove(c);
        if (c->fd >= 0)
                close(c->fd);   /* also leaves the epoll set */
        c->fd = -1;
        c->connected = c->want_out = false;
        c->state = CONN_DOWN;
        c->retry_ns = retry_ns;
        conn_list_append(&w->down, c);
}

void connection_connect_failed(struct worker *w, struct conn *c, int64_t now) {
        w->connect_failures++;
        c->backoff_ns = c->backoff_ns ? MIN(2 * c->backoff_ns, BACKOFF_MAX_NS) : BACKOFF_MIN_NS;
        connection_down(w, c, now + c->backoff_ns);
}

static void conn_idle(struct worker *w, struct conn *c) {
        conn_list_remove(c);
        c->backoff_ns = 0;
        set_interest(w, c, false);
        c->state = CONN_IDLE;
        conn_list_append(&w->idle, c);
}

/* Open a connection ahead of need, so the next request does not pay for the handshake. */
void connection_prepare(struct worker *w, struct conn *c, int64_t now) {
        conn_list_remove(c);
        if (connection_open(w, c) < 0) {
                connection_connect_failed(w, c, now);
                return;
        }
        if (c->connected) {
                conn_idle(w, c);
                return;
        }
        c->state = CONN_CONNECTING;
        c->start_ns = now;
        conn_list_append(&w->timed, c);
}

/* The connection cannot carry another request: close it, and reopen it while sending goes on. */
static void conn_recycle(struct worker *w, struct conn *c, int64_t now) {
        connection_down(w, c, now);
        if (now < worker_engine_cutoff(w->e))
                connection_prepare(w, c, now);
}

void connection_record_finish(struct worker *w, struct conn *c, int64_t now, uint16_t status,
                              enum timeline_error error) {
        struct timeline_record *r = timeline_ring_slot(&w->ring, c->k);
        r->submit_ns = c->start_ns;
        r->done_ns = now;
        r->status = status;
        r->error = (uint16_t) error;
        r->bytes = (uint32_t) MIN(c->parser.bytes, (uint64_t) UINT32_MAX);
        r->conn = c->index;
        timeline_ring_commit(&w->ring, c->k);
        w->busy--;
}

void connection_request_fail(struct worker *w, struct conn *c, int64_t now, enum timeline_error error) {
        connection_record_finish(w, c, now, 0, error);
        if (error == TIMELINE_ERR_CONNECT || (error == TIMELINE_ERR_TIMEOUT && !c->connected))
                connection_connect_failed(w, c, now);
        else
                conn_recycle(w, c, now);
}

static void request_done(struct worker *w, struct conn *c, int64_t now, bool keep) {
        connection_record_finish(w, c, now, c->parser.status, TIMELINE_ERR_NONE);
        c->served++;
        if (keep)
                conn_idle(w, c);
        else
                conn_recycle(w, c, now);
}

static enum timeline_error error_kind(int err) {
        return err == ECONNRESET || err == EPIPE || err == ECONNABORTED ? TIMELINE_ERR_RESET :
                                                                          TIMELINE_ERR_IO;
}

void connection_write(struct worker *w, struct conn *c, int64_t now) {
        const struct http_request *rq = w->e->cfg->request;
        while (c->sent < rq->size) {
                ssize_t n = send(c->fd, rq->data + c->sent, rq->size - c->sent, MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN) {
                                set_interest(w, c, true);
                                return;
                        }
                        connection_request_fail(w, c, now, error_kind(errno));
                        return;
                }
                c->sent += (size_t) n;
        }
        set_interest(w, c, false);
}

/* An answer is done when its last bytes arrived; never before it was asked for (the stamp and
 * the submit time come from two clocks, REALTIME moved onto MONOTONIC). */
static int64_t answer_time(const struct conn *c, int64_t now) {
        return MIN(MAX(c->received_ns, c->start_ns), now);
}

static void conn_read(struct worker *w, struct conn *c, int64_t now) {
        for (;;) {
                ssize_t n = recv_stamp_recv(c->fd, w->rbuf, sizeof w->rbuf, w->stamp_offset, now,
                                            &c->received_ns);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno != EAGAIN)
                                connection_request_fail(w, c, now, error_kind(errno));
                        return;
                }
                if (n == 0) {
                        /* The answer ends with the connection, or was cut short by it (which
                         * includes a keep-alive connection the server closed as we sent). */
                        if (http_parser_eof(&c->parser) == HTTP_PARSE_DONE)
                                request_done(w, c, answer_time(c, now), false);
                        else
                                connection_request_fail(w, c, now, TIMELINE_ERR_RESET);
                        return;
                }
                size_t used;
                int r = http_parser_feed(&c->parser, w->rbuf, (size_t) n, &used);
                if (r < 0) {
                        connection_request_fail(w, c, now, TIMELINE_ERR_PARSE);
                        return;
                }
                if (r == HTTP_PARSE_DONE) {
                        /* Bytes nobody asked for, or an answer before the whole request was
                         * written, leave the connection in a state no next request can trust. */
                        bool keep = http_parser_keep_alive(&c->parser) && used == (size_t) n &&
                                    c->sent == w->e->cfg->request->size;
                        request_done(w, c, answer_time(c, now), keep);
                        return;
                }
                if ((size_t) n < sizeof w->rbuf)
                        return;   /* drained: what comes next arrives as a new edge */
        }
}

void connection_event(struct worker *w, struct conn *c, uint32_t events, int64_t now) {
        switch (c->state) {
        case CONN_CONNECTING:
                if (socket_error(c->fd) < 0 || !(events & EPOLLOUT)) {
                        connection_connect_failed(w, c, now);
                        return;
                }
                c->connected = true;
                conn_idle(w, c);
                return;
        case CONN_IDLE:
                /* Nothing was asked, so the server closed the connection (keep-alive timeout,
                 * request limit) or sent something unasked: either way it is finished. One it
                 * closes before serving anything is refused in all but name: back off. */
                w->server_closes++;
                if (c->served == 0)
                        connection_connect_failed(w, c, now);
                else
                        conn_recycle(w, c, now);
                return;
        case CONN_BUSY:
                if (!c->connected) {
                        if (socket_error(c->fd) < 0 || !(events & EPOLLOUT)) {
                                connection_request_fail(w, c, now, TIMELINE_ERR_CONNECT);
                                return;
                        }
                        c->connected = true;
                        c->backoff_ns = 0;
                        connection_write(w, c, now);
                        return;
                }
                uint32_t gen = c->gen;
                if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                        conn_read(w, c, now);
                if ((events & EPOLLOUT) && c->state == CONN_BUSY && c->gen == gen)
                        connection_write(w, c, now);
                return;
        default:
                return;
        }
}
