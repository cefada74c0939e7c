/* output.h: writing the injector's result files so that a reader never sees half of one. */
#pragma once

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Write data to a temporary file next to path and rename it over path: path then holds either
 * its old content or all of data. (daemon/fileio.h's write_file_atomic refuses to replace.)
 * An existing path that is not a regular file (/dev/null, a pipe) is written to instead. */
int output_replace_file(const char *path, const void *data, size_t size, mode_t mode);
