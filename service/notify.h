/* notify.h: the systemd notification protocol: READY=1 once the API accepts, STATUS= lines,
 * WATCHDOG=1 from the event loop at half of WATCHDOG_USEC, STOPPING=1 on shutdown. All are
 * no-ops when NOTIFY_SOCKET is unset. */
#pragma once

#include <systemd/sd-event.h>

#include "basic/macro.h"

void notify_ready(const char *fmt, ...) _printf_(1, 2);
void notify_status(const char *fmt, ...) _printf_(1, 2);
void notify_stopping(void);
/* Arm a repeating timer on the loop that pings the watchdog, if systemd asked for one. The
 * ping comes from the loop itself, so a hung loop stops it and systemd restarts the daemon. */
int notify_watchdog_start(sd_event *e, sd_event_source **ret);
