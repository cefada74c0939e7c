/* fileio.h: small, checked file helpers (read a short file, write a string, mkdir -p). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Read into buf until it holds size bytes or the file ends, retrying EINTR: from the file
 * position, or with pread() at offset (the position untouched) when offset >= 0. Returns the
 * bytes read (fewer than size only at the end of the file) or a negative errno. */
ssize_t read_full(int fd, void *buf, size_t size, off_t offset);
/* Write all of data, through short writes and EINTR. 0 or a negative errno. */
int write_full(int fd, const void *data, size_t size);

/* Read at most max bytes of path into a NUL-terminated malloc'd buffer; trailing newline kept. */
int read_file_bounded(const char *path, size_t max, char **ret, size_t *ret_size);
/* The same from an open fd (read to its end; the fd stays the caller's). */
int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_size);
/* Read a whole small file into buf (NUL-terminated), no allocation: sysfs, procfs and cgroupfs
 * files on hot-ish paths. -EFBIG if it has more than size - 1 bytes. */
int read_file_into(const char *path, char *buf, size_t size);
/* Read a one-line file, strip the trailing newline. */
int read_one_line(const char *path, char **ret);
/* Write the whole string to an existing file (sysfs/cgroupfs style: one write). */
int write_string_file(const char *path, const char *s);
/* Create path and its parents with mode; an existing directory is fine. */
int mkdir_parents(const char *path, mode_t mode);
/* Create path with exactly this content and mode, all or nothing; -EEXIST if it exists. */
int write_file_atomic(const char *path, const void *data, size_t size, mode_t mode);
