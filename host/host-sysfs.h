/* host-sysfs.h: reading the host's sysfs and procfs files under a root prefix ("" for the
 * real host, a fixture tree in tests) into fixed buffers, and the small parsers those files
 * need (bracketed choices, /proc/meminfo, /proc/cpuinfo). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/cpulist.h"
#include "basic/macro.h"

/* root followed by the formatted absolute path ("/sys/..."); -ENAMETOOLONG if it does not fit. */
int host_path(char *buf, size_t size, const char *root, const char *fmt, ...) _printf_(4, 5);
/* The first line of a small file, newline stripped; -EFBIG when the content does not fit. */
int host_read_line(const char *root, char *buf, size_t size, const char *fmt, ...) _printf_(4, 5);
/* A file holding one unsigned decimal number. */
int host_read_u64(const char *root, uint64_t *ret, const char *fmt, ...) _printf_(3, 4);
int host_read_cpulist(const char *root, struct cpulist *ret, const char *fmt, ...) _printf_(3, 4);
/* Whether the path exists (as anything). */
bool host_exists(const char *root, const char *fmt, ...) _printf_(2, 3);

/* Strict unsigned decimal with optional trailing whitespace; -EINVAL, -ERANGE. */
int host_parse_u64(const char *s, uint64_t *ret);
/* The selected choice of a sysfs multiple-choice file: "always [madvise] never" -> "madvise".
 * -EINVAL when there is no bracketed word, -ENOBUFS when it does not fit. */
int host_parse_bracketed(const char *line, char *buf, size_t size);

struct host_meminfo {
        bool have_total, have_swap;
        uint64_t total_bytes;
        uint64_t swap_total_bytes, swap_free_bytes;
};
/* /proc/meminfo: MemTotal, SwapTotal, SwapFree. */
int host_read_meminfo(const char *root, struct host_meminfo *ret);
/* The first "model name" of /proc/cpuinfo; -ENOENT when there is none (e.g. on arm64). */
int host_read_cpu_model(const char *root, char *buf, size_t size);
