/* log.c: the one place that decides where a message goes. */
#include "basic/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

static int max_level = LOG_INFO;
static bool to_journal;

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit", [LOG_ERR] = "err",
        [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

/* systemd sets JOURNAL_STREAM=<dev>:<ino> of the stream it connected to stderr; only when our
 * stderr still is that stream do we speak the journal's native protocol. */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        if (!e)
                return false;
        unsigned long long dev, ino;
        if (sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        struct stat st;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == dev && st.st_ino == ino;
}

static struct iovec iovec_printf(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
static struct iovec iovec_printf(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return (struct iovec){ .iov_base = buf, .iov_len = n < 0 ? 0 : MIN((size_t) n, size - 1) };
}

void log_setup(void) {
        to_journal = stderr_is_journal();
}

int log_parse_level(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (strcasecmp(s, level_names[i]) == 0)
                        return (int) i;
        if (strcasecmp(s, "error") == 0)
                return LOG_ERR;
        if (strcasecmp(s, "warn") == 0)
                return LOG_WARNING;
        return -EINVAL;
}

void log_set_level(int level) {
        max_level = level;
}

int log_get_level(void) {
        return max_level;
}

static void journal_send(int level, const char *msg, const char *experiment_id,
                         const char *run_id) {
        char message[2100], priority[16], ident[80], experiment[96], run[96];
        struct iovec iov[6];
        size_t n = 0;
        iov[n++] = iovec_printf(message, sizeof message, "MESSAGE=%s", msg);
        iov[n++] = iovec_printf(priority, sizeof priority, "PRIORITY=%d", level);
        /* The program's own name: the injector links this logger too. */
        iov[n++] = iovec_printf(ident, sizeof ident, "SYSLOG_IDENTIFIER=%s", program_invocation_short_name);
        if (experiment_id)
                iov[n++] = iovec_printf(experiment, sizeof experiment, "SLICELAB_EXPERIMENT=%s", experiment_id);
        if (run_id)
                iov[n++] = iovec_printf(run, sizeof run, "SLICELAB_RUN=%s", run_id);
        sd_journal_sendv(iov, (int) n);
}

int log_full(int level, int error, const char *experiment_id, const char *run_id,
             const char *fmt, ...) {
        int ret = error == 0 ? -EIO : -abs(error);
        if (level > max_level)
                return ret;

        char msg[2048];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (error != 0 && n >= 0 && (size_t) n < sizeof msg)
                snprintf(msg + n, sizeof msg - n, ": %s", strerror(abs(error)));

        if (to_journal) {
                journal_send(level, msg, experiment_id, run_id);
                return ret;
        }
        /* One write per line so concurrent threads do not interleave within a line. */
        char line[2200];
        int len = snprintf(line, sizeof line, "<%d>%s: %s%s%s%s\n", level, level_names[level],
                           run_id ? "[run " : "", run_id ? run_id : "", run_id ? "] " : "", msg);
        if (len > 0)
                (void) !write(STDERR_FILENO, line, MIN((size_t) len, sizeof line - 1));
        return ret;
}
