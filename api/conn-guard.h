/* conn-guard.h: a deadline for request headers. libmicrohttpd's connection timeout is one of
 * inactivity, so a client that sends a header byte every few seconds (slowloris) would hold its
 * connection for ever; the guard gives every request HEADER_DEADLINE_S from the start of the
 * connection (or the end of the previous request on it) to the end of its headers, and shuts
 * down the socket of any that is later. Fixed slots (the server's connection limit), no
 * allocation per connection; one sweeper thread, woken each second. */
#pragma once

#include <microhttpd.h>

struct conn_guard;

/* slots: at least the server's connection limit; deadline_s: seconds for the headers. */
int conn_guard_new(unsigned slots, unsigned deadline_s, struct conn_guard **ret);
/* Stops the sweeper and frees the guard; call after MHD_stop_daemon(). */
void conn_guard_free(struct conn_guard *g);

/* For MHD_OPTION_NOTIFY_CONNECTION (cls = the guard). */
void conn_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe);
/* The headers of the connection's current request are complete / its request is over (the
 * next one's headers are under the deadline again). */
void conn_guard_headers_done(struct conn_guard *g, struct MHD_Connection *c);
void conn_guard_request_done(struct conn_guard *g, struct MHD_Connection *c);
