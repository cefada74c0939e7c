/* fileio.c: small, checked file helpers. */
#include "basic/fileio.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/macro.h"

ssize_t read_full(int fd, void *buf, size_t size, off_t offset) {
        size_t got = 0;
        while (got < size) {
                ssize_t k = offset >= 0 ? pread(fd, (char *) buf + got, size - got, offset + (off_t) got) :
                                          read(fd, (char *) buf + got, size - got);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                got += (size_t) k;
        }
        return (ssize_t) got;
}

int write_full(int fd, const void *data, size_t size) {
        const char *p = data;
        while (size > 0) {
                ssize_t k = write(fd, p, size);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                p += k;
                size -= (size_t) k;
        }
        return 0;
}

int read_file_bounded(const char *path, size_t max, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        return read_fd_bounded(fd, max, ret, ret_size);
}

int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_size) {
        /* Room for one byte past max: reading it proves the file is too large. */
        size_t cap = MIN((size_t) 4096, max + 1), len = 0;
        _cleanup_free_ char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (len == cap) {
                        if (cap > max)
                                return -EFBIG;
                        size_t ncap = MIN(cap * 2, max + 1);
                        char *n = realloc(buf, ncap + 1);
                        if (!n)
                                return -ENOMEM;
                        buf = n;
                        cap = ncap;
                }
                ssize_t k = read_full(fd, buf + len, cap - len, -1);
                if (k < 0)
                        return (int) k;
                len += (size_t) k;
                if (len < cap)
                        break;   /* the end of the file */
        }
        if (len > max)
                return -EFBIG;
        buf[len] = '\0';
        if (ret_size)
                *ret_size = len;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_one_line(const char *path, char **ret) {
        char *buf;
        size_t len;
        int r = read_file_bounded(path, 1 << 20, &buf, &len);
        if (r < 0)
                return r;
        buf[strcspn(buf, "\n")] = '\0';
        *ret = buf;
        return 0;
}

int write_string_file(const char *path, const char *s) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        size_t len = strlen(s);
        ssize_t k = write(fd, s, len);
        if (k < 0)
                return negative_errno();
        return (size_t) k == len ? 0 : -EIO;
}

int mkdir_parents(const char *path, mode_t mode) {
        char buf[PATH_MAX];
        if (snprintf(buf, sizeof buf, "%s", path) >= (int) sizeof buf)
                return -ENAMETOOLONG;
        for (char *p = buf + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, mode) < 0 && errno != EEXIST)
                        return negative_errno();
                *p = '/';
        }
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

int write_file_atomic(const char *path, const void *data, size_t size, mode_t mode) {
        char tmp[PATH_MAX];
        if (snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path) >= (int) sizeof tmp)
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        int r = 0;
        if (fchmod(fd, mode) < 0 || write(fd, data, size) != (ssize_t) size || fsync(fd) < 0)
                r = negative_errno();
        else if (link(tmp, path) < 0) /* link(), unlike rename(), never replaces an existing file */
                r = negative_errno();
        unlink(tmp);
        return r;
}

/* Read a whole small file into buf (NUL-terminated); -EFBIG if it has more than size - 1 bytes. */
int read_file_into(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        /* Room for size bytes, one more than may stay: reading it proves the file is too large. */
        ssize_t len = read_full(fd, buf, size, -1);
        if (len < 0)
                return (int) len;
        if ((size_t) len == size)
                return -EFBIG;
        buf[len] = '\0';
        return 0;
}
