/* host-sysfs.c: root-prefixed reads of sysfs/procfs files and their parsers. */
#include "host/host-sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/fileio.h"

_printf_(4, 0) static int host_vpath(char *buf, size_t size, const char *root, const char *fmt, va_list ap) {
        int n = snprintf(buf, size, "%s", root);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        int m = vsnprintf(buf + n, size - (size_t) n, fmt, ap);
        if (m < 0 || (size_t) m >= size - (size_t) n)
                return -ENAMETOOLONG;
        return 0;
}

int host_path(char *buf, size_t size, const char *root, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = host_vpath(buf, size, root, fmt, ap);
        va_end(ap);
        return r;
}


_printf_(4, 0) static int host_vread_line(const char *root, char *buf, size_t size, const char *fmt, va_list ap) {
        char path[4096];
        int r = host_vpath(path, sizeof path, root, fmt, ap);
        if (r < 0)
                return r;
        if (size == 0)
                return -ENOBUFS;
        r = read_file_into(path, buf, size);
        if (r < 0)
                return r;
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

int host_read_line(const char *root, char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = host_vread_line(root, buf, size, fmt, ap);
        va_end(ap);
        return r;
}

int host_read_u64(const char *root, uint64_t *ret, const char *fmt, ...) {
        char line[64];
        va_list ap;
        va_start(ap, fmt);
        int r = host_vread_line(root, line, sizeof line, fmt, ap);
        va_end(ap);
        if (r < 0)
                return r;
        return host_parse_u64(line, ret);
}

int host_read_cpulist(const char *root, struct cpulist *ret, const char *fmt, ...) {
        char path[4096];
        va_list ap;
        va_start(ap, fmt);
        int r = host_vpath(path, sizeof path, root, fmt, ap);
        va_end(ap);
        if (r < 0)
                return r;
        return cpulist_read_file(path, ret);
}

bool host_exists(const char *root, const char *fmt, ...) {
        char path[4096];
        struct stat st;
        va_list ap;
        va_start(ap, fmt);
        int r = host_vpath(path, sizeof path, root, fmt, ap);
        va_end(ap);
        return r >= 0 && stat(path, &st) == 0;
}

int host_parse_u64(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        const char *p = s;
        if (!isdigit((unsigned char) *p))
                return -EINVAL;
        for (; isdigit((unsigned char) *p); p++) {
                unsigned d = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        while (isspace((unsigned char) *p))
                p++;
        if (*p != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int host_parse_bracketed(const char *line, char *buf, size_t size) {
        const char *open = strchr(line, '[');
        if (!open)
                return -EINVAL;
        const char *close = strchr(open + 1, ']');
        if (!close || close == open + 1)
                return -EINVAL;
        size_t len = (size_t) (close - open - 1);
        if (len >= size)
                return -ENOBUFS;
        memcpy(buf, open + 1, len);
        buf[len] = '\0';
        return 0;
}

/* "MemTotal:       24683620 kB" -> bytes, when line starts with key. */
static bool meminfo_field(const char *line, const char *key, uint64_t *ret) {
        size_t klen = strlen(key);
        if (strncmp(line, key, klen) != 0 || line[klen] != ':')
                return false;
        const char *p = line + klen + 1;
        while (*p == ' ' || *p == '\t')
                p++;
        uint64_t v = 0;
        if (!isdigit((unsigned char) *p))
                return false;
        for (; isdigit((unsigned char) *p); p++) {
                if (v > UINT64_MAX / 10 - 9)
                        return false;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        if (strncmp(p, " kB", 3) == 0) {
                if (v > UINT64_MAX / 1024)
                        return false;
                v *= 1024;
        }
        *ret = v;
        return true;
}

int host_read_meminfo(const char *root, struct host_meminfo *ret) {
        char path[4096];
        int r = host_path(path, sizeof path, root, "/proc/meminfo");
        if (r < 0)
                return r;
        _cleanup_free_ char *text = NULL;
        r = read_file_bounded(path, 1 << 20, &text, NULL);
        if (r < 0)
                return r;
        struct host_meminfo m = { 0 };
        bool have_swap_total = false, have_swap_free = false;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                m.have_total |= meminfo_field(line, "MemTotal", &m.total_bytes);
                have_swap_total |= meminfo_field(line, "SwapTotal", &m.swap_total_bytes);
                have_swap_free |= meminfo_field(line, "SwapFree", &m.swap_free_bytes);
        }
        m.have_swap = have_swap_total && have_swap_free && m.swap_free_bytes <= m.swap_total_bytes;
        *ret = m;
        return 0;
}

int host_read_cpu_model(const char *root, char *buf, size_t size) {
        char path[4096];
        int r = host_path(path, sizeof path, root, "/proc/cpuinfo");
        if (r < 0)
                return r;
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) >= 0) {
                if (strncmp(line, "model name", 10) != 0)
                        continue;
                const char *colon = strchr(line, ':');
                if (!colon)
                        continue;
                const char *v = colon + 1;
                while (*v == ' ' || *v == '\t')
                        v++;
                size_t len = strcspn(v, "\n");
                while (len > 0 && isspace((unsigned char) v[len - 1]))
                        len--;
                if (len == 0)
                        continue;
                if (size == 0)
                        return -ENOBUFS;
                len = MIN(len, size - 1); /* a model name cut short is still the model */
                memcpy(buf, v, len);
                buf[len] = '\0';
                return 0;
        }
        return ferror(f) ? -EIO : -ENOENT;
}
