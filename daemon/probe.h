/* probe.h: is the system under test ready? A TCP connect, or an HTTP GET answering 2xx, tried
 * on the event loop every 100 ms until it succeeds (there is no event for "a port opened").
 * The caller owns the overall deadline. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

struct probe;
typedef void (*probe_ready_fn)(void *userdata);

/* path NULL = TCP only; else GET path and wait for a 2xx status line. host is a literal or a
 * name (resolved once, here). */
int probe_start(sd_event *e, const char *host, uint16_t port, const char *path, probe_ready_fn ready,
                void *userdata, struct probe **ret);
struct probe *probe_free(struct probe *p);
/* What the last attempt saw, for the not_ready message ("connection refused", "HTTP 503"). */
const char *probe_last_error(const struct probe *p);
