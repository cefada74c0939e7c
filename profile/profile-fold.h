/* profile-fold.h: `perf script` text collapsed into Brendan Gregg's folded stacks
 * ("group;root;...;leaf count" per line), each stack rooted at the thread group its thread's
 * name (perf's comm) puts it in, JIT-compiled frames named from the JVM's perf map. Pure: text
 * in, text out, no process or file of its own (daemon/profile.c runs perf and feeds it).
 *
 * Groups: gc (HotSpot's GC workers: "GC Thread#N", "G1 ...", "ZWorker", "Shenandoah..."), jit
 * ("C1/C2 CompilerThre", "Sweeper thread"), vm ("VM Thread", "VM Periodic Tas", "Service Thread",
 * the JDK's own daemon threads), kernel (every frame in the kernel), app (any other thread of the
 * SUT) and other (a thread perf could not name). A SUT that is not a JVM has app, kernel and
 * other only.
 *
 * Bounds: a line is cut at PROFILE_FOLD_LINE_MAX bytes, a stack keeps its PROFILE_FOLD_DEPTH_MAX
 * frames nearest the root (the rest counted in truncated), at most PROFILE_FOLD_STACKS_MAX
 * distinct stacks (samples of later new stacks are folded into "group;[too many stacks]"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/macro.h"

#define PROFILE_FOLD_LINE_MAX 4096
#define PROFILE_FOLD_DEPTH_MAX 256
#define PROFILE_FOLD_STACKS_MAX 200000
#define PROFILE_MAP_BYTES_MAX (64u << 20)       /* a perf map read from /tmp */

enum profile_group {
        PROFILE_GROUP_APP,
        PROFILE_GROUP_GC,
        PROFILE_GROUP_JIT,
        PROFILE_GROUP_VM,
        PROFILE_GROUP_KERNEL,
        PROFILE_GROUP_OTHER,
        _PROFILE_GROUP_MAX,
};

const char *profile_group_name(enum profile_group g);
/* The group of a thread by its name alone (not kernel: that needs the stack). */
enum profile_group profile_group_of_comm(const char *comm, bool jvm);

/* A JVM perf map ("0xSTART 0xSIZE name" lines), sorted by start for lookups. */
struct profile_map;
/* Lines that do not parse are skipped; -ENOMEM. */
int profile_map_parse(const char *text, size_t len, struct profile_map **ret);
/* The name of the code at ip, or NULL. */
const char *profile_map_lookup(const struct profile_map *m, uint64_t ip);
struct profile_map *profile_map_free(struct profile_map *m);
DEFINE_POINTER_CLEANUP(struct profile_map, profile_map_free)

struct profile_fold_stats {
        uint64_t samples;
        uint64_t by_group[_PROFILE_GROUP_MAX];
        uint64_t truncated;             /* stacks cut at PROFILE_FOLD_DEPTH_MAX */
        uint64_t overflow;              /* samples of stacks beyond PROFILE_FOLD_STACKS_MAX */
};

struct profile_folder;
/* map may be NULL (no JIT names) and must outlive the folder. */
int profile_folder_new(bool jvm, const struct profile_map *map, struct profile_folder **ret);
struct profile_folder *profile_folder_free(struct profile_folder *f);
DEFINE_POINTER_CLEANUP(struct profile_folder, profile_folder_free)
/* One line of `perf script -F comm,tid,ip,sym` output, without its newline. */
int profile_folder_line(struct profile_folder *f, const char *line, size_t len);
/* Every line of a stream (the end closes the last sample). */
int profile_folder_read(struct profile_folder *f, FILE *in);
/* The folded text, stacks sorted, at most max_bytes (-EFBIG beyond, nothing half-promised:
 * the caller discards out). */
int profile_folder_write(struct profile_folder *f, FILE *out, size_t max_bytes);
void profile_folder_stats(const struct profile_folder *f, struct profile_fold_stats *ret);
