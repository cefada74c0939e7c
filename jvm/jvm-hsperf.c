/* jvm-hsperf.c: the JVM's own counters from its hsperfdata file (format in jvm-hsperf.h). */
#include "jvm/jvm-hsperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/fileio.h"
#include "jvm/jvm-lines.h"
#include "basic/macro.h"
#include "basic/time-util.h"

#define PROLOGUE_SIZE 32
#define ENTRY_HEADER_SIZE 20
#define HSPERF_DIR_PREFIX "hsperfdata_"

static const uint8_t hsperf_magic[4] = { 0xCA, 0xFE, 0xC0, 0xC0 };

struct image {
        const uint8_t *p;
        size_t size;
        bool little;
};

static int64_t load_int(const struct image *im, size_t off, size_t width) {
        uint64_t v = 0;
        for (size_t i = 0; i < width; i++) {
                unsigned shift = im->little ? 8 * i : 8 * (width - 1 - i);
                v |= (uint64_t) im->p[off + i] << shift;
        }
        if (width == 4)
                return (int32_t) (uint32_t) v;
        return (int64_t) v;
}

/* "sun.gc.collector.<N>.<field>": N < JVM_HSPERF_MAX_COLLECTORS, *field points into name. */
static bool collector_counter(const char *name, unsigned *ret_index, const char **ret_field) {
        static const char prefix[] = "sun.gc.collector.";
        if (strncmp(name, prefix, sizeof prefix - 1) != 0)
                return false;
        const char *p = name + sizeof prefix - 1;
        if (*p < '0' || *p > '9' || p[1] != '.')
                return false;
        unsigned idx = (unsigned) (*p - '0');
        if (idx >= JVM_HSPERF_MAX_COLLECTORS)
                return false;
        *ret_index = idx;
        *ret_field = p + 2;
        return true;
}

static void store_long(struct jvm_hsperf_sample *s, const char *name, int64_t v) {
        unsigned idx;
        const char *field;

        if (strcmp(name, "java.ci.totalTime") == 0 || (strcmp(name, "sun.ci.totalTime") == 0 && !s->has_compile_ticks)) {
                s->has_compile_ticks = true;
                s->compile_ticks = v;
        } else if (strcmp(name, "sun.os.hrt.frequency") == 0) {
                s->has_frequency = v > 0;
                s->frequency = v;
        } else if (strcmp(name, "sun.rt.safepointTime") == 0) {
                s->has_safepoint_ticks = true;
                s->safepoint_ticks = v;
        } else if (collector_counter(name, &idx, &field)) {
                struct jvm_hsperf_collector *c = &s->collectors[idx];
                if (strcmp(field, "time") == 0) {
                        c->has_time = true;
                        c->time_ticks = v;
                } else if (strcmp(field, "invocations") == 0) {
                        c->has_invocations = true;
                        c->invocations = v;
                } else
                        return;
                s->n_collectors = MAX(s->n_collectors, idx + 1);
        }
}

static void store_string(struct jvm_hsperf_sample *s, const char *name, const uint8_t *data, size_t len) {
        unsigned idx;
        const char *field;

        if (!collector_counter(name, &idx, &field) || strcmp(field, "name") != 0)
                return;
        struct jvm_hsperf_collector *c = &s->collectors[idx];
        jvm_copy_printable(c->name, sizeof c->name, (const char *) data, strnlen((const char *) data, len));
        s->n_collectors = MAX(s->n_collectors, idx + 1);
}

int jvm_hsperf_parse(const void *buf, size_t size, struct jvm_hsperf_sample *ret) {
        struct jvm_hsperf_sample s = { 0 };
        struct image im = { .p = buf, .size = size };

        if (!buf || size < PROLOGUE_SIZE || memcmp(im.p, hsperf_magic, sizeof hsperf_magic) != 0)
                return -EBADMSG;
        if (im.p[4] > 1)
                return -EBADMSG;
        im.little = im.p[4] == 1;
        if (im.p[5] != 2)
                return -EPROTONOSUPPORT;
        if (im.p[7] != 1)
                return -EAGAIN;

        int64_t used = load_int(&im, 8, 4);
        int64_t entry_offset = load_int(&im, 24, 4);
        int64_t num_entries = load_int(&im, 28, 4);
        if (used < PROLOGUE_SIZE || entry_offset < PROLOGUE_SIZE || num_entries < 0)
                return -EBADMSG;
        size_t limit = MIN((size_t) used, size);

        size_t off = (size_t) entry_offset;
        for (int64_t i = 0; i < num_entries; i++) {
                if (off > limit || limit - off < ENTRY_HEADER_SIZE)
                        return -EBADMSG;
                int64_t entry_length = load_int(&im, off, 4);
                int64_t name_offset = load_int(&im, off + 4, 4);
                int64_t vector_length = load_int(&im, off + 8, 4);
                uint8_t data_type = im.p[off + 12];
                int64_t data_offset = load_int(&im, off + 16, 4);

                if (entry_length < ENTRY_HEADER_SIZE || (size_t) entry_length > limit - off ||
                    name_offset < ENTRY_HEADER_SIZE || name_offset >= entry_length ||
                    data_offset < ENTRY_HEADER_SIZE || data_offset > entry_length || vector_length < 0)
                        return -EBADMSG;
                const char *name = (const char *) im.p + off + name_offset;
                size_t name_room = (size_t) (entry_length - name_offset);
                if (strnlen(name, name_room) == name_room)
                        return -EBADMSG;   /* name not terminated inside its entry */

                const uint8_t *data = im.p + off + data_offset;
                size_t data_room = (size_t) (entry_length - data_offset);
                if (vector_length == 0 && data_type == 'J' && data_room >= 8)
                        store_long(&s, name, load_int(&im, off + (size_t) data_offset, 8));
                else if (vector_length > 0 && data_type == 'B' && (size_t) vector_length <= data_room)
                        store_string(&s, name, data, (size_t) vector_length);
                off += (size_t) entry_length;
        }
        *ret = s;
        return 0;
}

int jvm_hsperf_read(int fd, struct jvm_hsperf_sample *ret) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        if (st.st_size < PROLOGUE_SIZE || (uint64_t) st.st_size > JVM_HSPERF_MAX_SIZE)
                return -EBADMSG;
        size_t size = (size_t) st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size);
        if (!buf)
                return -ENOMEM;

        int64_t sampled = now_mono_ns();
        ssize_t got = read_full(fd, buf, size, 0);
        if (got < 0)
                return (int) got;
        struct jvm_hsperf_sample s;
        int r = jvm_hsperf_parse(buf, (size_t) got, &s);
        if (r < 0)
                return r;
        s.sampled_ns = sampled;
        *ret = s;
        return 0;
}

/* A regular, non-symlink file owned by uid (uid (uid_t) -1: any owner). */
static int open_counters_at(int dirfd, const char *name, uid_t uid, int *ret_fd) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || (uid != (uid_t) -1 && st.st_uid != uid))
                return -EPERM;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int jvm_hsperf_open_path(const char *path, int *ret_fd) {
        return open_counters_at(AT_FDCWD, path, (uid_t) -1, ret_fd);
}

/* The effective uid and the innermost pid (NSpid's last field; the Pid line on kernels
 * without NSpid) of a process, from /proc/<pid>/status. */
static int process_ids(pid_t pid, uid_t *ret_uid, long *ret_nspid) {
        char path[64];
        _cleanup_free_ char *status = NULL;
        long uid = -1, nspid = -1, plain = -1;

        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        int r = read_file_bounded(path, 64 * 1024, &status, NULL);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        for (char *line = status; line && *line; ) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                long real;
                if (strncmp(line, "Uid:", 4) == 0) {
                        if (sscanf(line + 4, "%ld %ld", &real, &uid) != 2)
                                return -EBADMSG;
                } else if (strncmp(line, "Pid:", 4) == 0) {
                        if (sscanf(line + 4, "%ld", &plain) != 1)
                                return -EBADMSG;
                } else if (strncmp(line, "NSpid:", 6) == 0) {
                        const char *p = line + 6;
                        char *end;
                        for (;;) {
                                long v = strtol(p, &end, 10);
                                if (end == p)
                                        break;
                                nspid = v;
                                p = end;
                        }
                }
                line = nl ? nl + 1 : NULL;
        }
        if (uid < 0 || (nspid < 0 && plain < 0))
                return -EBADMSG;
        *ret_uid = (uid_t) uid;
        *ret_nspid = nspid >= 0 ? nspid : plain;
        return 0;
}

int jvm_hsperf_open(pid_t pid, int *ret_fd) {
        uid_t uid;
        long nspid;
        char path[64], name[32];

        if (pid <= 0)
                return -EINVAL;
        int r = process_ids(pid, &uid, &nspid);
        if (r < 0)
                return r;
        /* Through the JVM's own root, so a private /tmp (mount namespace) is found too. The user
         * name is not looked up (NSS may block, and inside a container it is the container's):
         * the right hsperfdata_<user> is the one holding <nspid> owned by the JVM's uid. */
        snprintf(path, sizeof path, "/proc/%d/root/tmp", (int) pid);
        snprintf(name, sizeof name, "%ld", nspid);
        _cleanup_close_ int tmpfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        /* /proc/PID/root of a JVM of another user needs CAP_SYS_PTRACE; without it, our own /tmp
         * is the JVM's too (the daemon shares its mount namespace with the JVMs it starts). */
        if (tmpfd < 0 && errno == EACCES)
                tmpfd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (tmpfd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        int dfd = dup(tmpfd);
        if (dfd < 0)
                return negative_errno();
        DIR *d = fdopendir(dfd);
        if (!d) {
                r = negative_errno();
                close(dfd);
                return r;
        }
        r = -ENOENT;
        for (struct dirent *de; (de = readdir(d)); ) {
                if (strncmp(de->d_name, HSPERF_DIR_PREFIX, sizeof HSPERF_DIR_PREFIX - 1) != 0)
                        continue;
                _cleanup_close_ int sub = openat(tmpfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0)
                        continue;
                if (open_counters_at(sub, name, uid, ret_fd) == 0) {
                        r = 0;
                        break;
                }
        }
        closedir(d);
        return r;
}

int jvm_hsperf_sample_pid(pid_t pid, struct jvm_hsperf_sample *ret) {
        _cleanup_close_ int fd = -1;
        int r = jvm_hsperf_open(pid, &fd);
        if (r < 0)
                return r;
        return jvm_hsperf_read(fd, ret);
}

int jvm_hsperf_ticks_to_ns(const struct jvm_hsperf_sample *s, int64_t ticks, int64_t *ret) {
        if (!s->has_frequency || s->frequency <= 0)
                return -ENODATA;
        /* split so ticks * 1e9 cannot overflow; the remainder is below one second */
        int64_t secs = ticks / s->frequency, rem = ticks % s->frequency;
        if (ticks < 0 || secs >= INT64_MAX / NSEC_PER_SEC)
                return -ERANGE;
        *ret = secs * NSEC_PER_SEC + (int64_t) ((long double) rem * 1e9L / (long double) s->frequency);
        return 0;
}

int jvm_hsperf_compile_time_ns(const struct jvm_hsperf_sample *s, int64_t *ret) {
        if (!s->has_compile_ticks)
                return -ENODATA;
        return jvm_hsperf_ticks_to_ns(s, s->compile_ticks, ret);
}

int jvm_hsperf_gc_time_ns(const struct jvm_hsperf_sample *s, int64_t *ret) {
        int64_t ticks = 0;
        bool any = false;
        for (unsigned i = 0; i < s->n_collectors; i++)
                if (s->collectors[i].has_time) {
                        ticks += s->collectors[i].time_ticks;
                        any = true;
                }
        if (!any)
                return -ENODATA;
        return jvm_hsperf_ticks_to_ns(s, ticks, ret);
}
