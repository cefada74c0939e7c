/* connection.h: one keep-alive connection of a worker (worker.h) and the request it
 * carries: opening it, writing the request, reading and parsing the answer, recording the
 * request's fate into the timeline, and closing or reopening it.
 *
 * Contract: a connection is DOWN (no socket; may be opened from retry_ns on), CONNECTING (opened
 * ahead of need after the server closed the previous one), IDLE, or BUSY with one request. It is
 * always on exactly one of its worker's lists: down (DOWN), timed (CONNECTING and BUSY, in order
 * of start_ns, which is deadline order, as every request and connect has the same timeout) or
 * idle (IDLE). Sockets are edge-triggered (every arrival is an edge, so a complete answer needs
 * no read until EAGAIN, and epoll does not re-poll idle sockets) and wait for EPOLLOUT only
 * while connecting or after a short write. Every function here that ends a BUSY connection's
 * request records it (connection_record_finish()) exactly once and releases the worker's busy
 * count; a connection that cannot carry another request is closed, and reopened ahead of need
 * while sending goes on. Epoll events carry conn_token(): the index, and a generation
 * bumped per socket so a stale event cannot hit a new one. Nothing here allocates memory. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/timeline-format.h"
#include "injector/conn.h"

struct worker;

/* Open a non-blocking socket and start connecting; c->connected says if it already is. */
int connection_open(struct worker *w, struct conn *c);
/* Close the socket (if any) and put c on the down list, to be opened from retry_ns on. */
void connection_down(struct worker *w, struct conn *c, int64_t retry_ns);
/* Down with a doubling backoff. */
void connection_connect_failed(struct worker *w, struct conn *c, int64_t now);
/* Open a connection ahead of need, so the next request does not pay for the handshake. */
void connection_prepare(struct worker *w, struct conn *c, int64_t now);
/* Write the rest of c's request; on a short write, wait for EPOLLOUT. */
void connection_write(struct worker *w, struct conn *c, int64_t now);
/* Handle epoll events on c's socket. */
void connection_event(struct worker *w, struct conn *c, uint32_t events, int64_t now);
/* Record the fate of c's request (status 0 with an error for a transport error). */
void connection_record_finish(struct worker *w, struct conn *c, int64_t now, uint16_t status,
                              enum timeline_error error);
/* Record a transport error for c's request and close c (backing off after a failed connect). */
void connection_request_fail(struct worker *w, struct conn *c, int64_t now, enum timeline_error error);
