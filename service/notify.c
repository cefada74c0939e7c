/* notify.c: sd_notify wrappers and the watchdog timer. */
#include "service/notify.h"

#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "basic/log.h"

static void notify_with(const char *prefix, const char *fmt, va_list ap) {
        char status[512];
        vsnprintf(status, sizeof status, fmt, ap);
        char msg[600];
        snprintf(msg, sizeof msg, "%sSTATUS=%s", prefix, status);
        int r = sd_notify(0, msg);
        if (r < 0)
                log_warning_errno(r, "sd_notify");
}

void notify_ready(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        notify_with("READY=1\n", fmt, ap);
        va_end(ap);
}

void notify_status(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        notify_with("", fmt, ap);
        va_end(ap);
}

void notify_stopping(void) {
        (void) sd_notify(0, "STOPPING=1\nSTATUS=Stopping");
}

static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata) {
        uint64_t *interval = userdata;
        (void) sd_notify(0, "WATCHDOG=1");
        int r = sd_event_source_set_time(s, usec + *interval);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

int notify_watchdog_start(sd_event *e, sd_event_source **ret) {
        static uint64_t interval;
        uint64_t usec;
        int r = sd_watchdog_enabled(0, &usec);
        if (r < 0)
                return log_error_errno(r, "WATCHDOG_USEC is set but not valid");
        if (r == 0) {
                *ret = NULL;
                return 0;
        }
        interval = usec / 2;
        uint64_t now;
        r = sd_event_now(e, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return r;
        sd_event_source *s;
        /* Accuracy 1% of the interval: the default 250 ms slack would blur a 1 s ping. */
        r = sd_event_add_time(e, &s, CLOCK_MONOTONIC, now + interval, interval / 100, on_watchdog, &interval);
        if (r < 0)
                return log_error_errno(r, "cannot arm the watchdog timer");
        (void) sd_notify(0, "WATCHDOG=1");
        log_info("pinging the systemd watchdog every %.1f s", (double) interval / 1e6);
        *ret = s;
        return 0;
}
