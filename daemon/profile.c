/* profile.c: perf record and jcmd for a run on the loop, perf script folded on the worker (see
 * profile.h). Every argv is built here and exec'd without a shell. */
#include "daemon/profile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "cgroup/cgroup.h"
#include "daemon/child.h"
#include "profile/profile-fold.h"
#include "host/host-java.h"

extern char **environ;

/* A new file of the run directory: never through a link, never one that was there. */
static int create_run_file(const char *dir, const char *name) {
        _cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dirfd < 0)
                return negative_errno();
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
        return fd >= 0 ? fd : negative_errno();
}

/* One this process wrote (create_run_file): the run user may rename files in its directory, but
 * what perf script parses as root must not be theirs. */
static int open_run_file(const char *dir, const char *name) {
        _cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dirfd < 0)
                return negative_errno();
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        struct stat st;
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
                return -EPERM;
        if (fcntl(fd, F_SETFL, 0) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

static int spawn_in_load_slice(struct cgroup_run *cg, char **argv, int out_fd, int err_fd, bool set_user, uid_t uid,
                               gid_t gid, struct child *ret) {
        static char *const env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", NULL };
        struct spawn_params p = {
                .argv = argv,
                .envp = env,
                .cwd = "/",
                .stdin_fd = -1,
                .stdout_fd = out_fd,
                .stderr_fd = err_fd,
                .set_user = set_user,
                .uid = uid,
                .gid = gid,
        };
        return child_spawn(ret, cg, SLICE_LOAD, &p);
}

int profile_record_start(struct cgroup_run *cg, const char *perf, const char *dir, pid_t sut, unsigned hz,
                         struct child *ret) {
        char hz_s[16], pid_s[16];
        snprintf(hz_s, sizeof hz_s, "%u", hz);
        snprintf(pid_s, sizeof pid_s, "%d", (int) sut);
        char *argv[] = { (char *) perf, "record", "-e", "cpu-clock", "-F", hz_s, "-g", "-p", pid_s, "-o", "-", NULL };
        _cleanup_close_ int out = create_run_file(dir, "perf.data");
        if (out < 0)
                return out;
        _cleanup_close_ int err = create_run_file(dir, "perf.log");
        if (err < 0)
                return err;
        return spawn_in_load_slice(cg, argv, out, err, false, 0, 0, ret);
}

int profile_child_result(const struct child *c) {
        if (c->killed)
                return -ETIMEDOUT;
        if (c->exited && c->code == 0)
                return 0;
        /* perf record re-raises the SIGINT that stopped it, once its data is out */
        if (c->exited && c->signal == SIGINT)
                return 0;
        return -ECHILD;
}

int profile_perfmap_start(struct cgroup_run *cg, pid_t sut, bool set_user, uid_t uid, gid_t gid,
                          struct child *ret) {
        char jcmd[PATH_MAX], pid_s[16];
        int r = host_program_find("jcmd", getenv("PATH"), jcmd, sizeof jcmd);
        if (r < 0)
                return r;
        snprintf(pid_s, sizeof pid_s, "%d", (int) sut);
        char *argv[] = { jcmd, pid_s, "Compiler.perfmap", NULL };
        return spawn_in_load_slice(cg, argv, -1, -1, set_user, uid, gid, ret);
}

static void perf_map_path(pid_t pid, char *buf, size_t size) {
        snprintf(buf, size, "/tmp/perf-%d.map", (int) pid);
}

void profile_perfmap_discard(pid_t sut, uid_t owner) {
        char path[64];
        struct stat st;
        perf_map_path(sut, path, sizeof path);
        /* only the run user's file: /tmp is sticky, nobody else's may be swapped in under it */
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == owner)
                (void) unlink(path);
}

/* ---- on the worker ----------------------------------------------------------------------- */

/* /tmp/perf-PID.map as the JVM wrote it: no link, a regular file of the run user, capped; then
 * removed (the run leaves nothing in /tmp) and its copy kept in the run directory. */
static int take_perf_map(const struct profile_input *in, char **ret, size_t *ret_len, char *why, size_t why_size) {
        char path[64];
        perf_map_path(in->sut_pid, path, sizeof path);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                snprintf(why, why_size, "%s: %s", path, strerror(errno));
                return negative_errno();
        }
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != in->map_owner) {
                snprintf(why, why_size, "%s is not a regular file of the run user (refused)", path);
                return -EPERM;
        }
        int r = read_fd_bounded(fd, PROFILE_MAP_BYTES_MAX, ret, ret_len);
        if (r < 0) {
                snprintf(why, why_size, "%s: %s (at most %u bytes)", path, strerror(-r), PROFILE_MAP_BYTES_MAX);
                return r;
        }
        struct stat now;
        if (lstat(path, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
                (void) unlink(path);
        _cleanup_close_ int copy = create_run_file(in->dir, "perf.map");
        if (copy >= 0)
                (void) write_full(copy, *ret, *ret_len);
        return 0;
}

/* perf script over perf.data, folded as it streams out of the pipe. */
static int run_perf_script(const struct profile_input *in, struct profile_folder *f, char *why, size_t why_size) {
        _cleanup_close_ int data = open_run_file(in->dir, "perf.data");
        _cleanup_close_ int log = create_run_file(in->dir, "perf-script.log");
        int pipefd[2];
        if (data < 0 || log < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
                snprintf(why, why_size, "cannot open perf.data or perf-script.log in the run directory");
                return data < 0 ? data : log < 0 ? log : negative_errno();
        }
        char *argv[] = { (char *) in->perf, "script", "-i", "-", "-F", "comm,tid,ip,sym", NULL };
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, data, 0);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
        posix_spawn_file_actions_adddup2(&fa, log, 2);
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        pid_t pid;
        int r = -posix_spawn(&pid, in->perf, &fa, &attr, argv, (char *[]){ "LC_ALL=C", NULL });
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        close(pipefd[1]);
        if (r < 0) {
                close(pipefd[0]);
                snprintf(why, why_size, "cannot run %s script: %s", in->perf, strerror(-r));
                return r;
        }
        FILE *out = fdopen(pipefd[0], "re");
        r = out ? profile_folder_read(f, out) : -ENOMEM;
        if (out)
                fclose(out); /* perf sees EPIPE if we stopped early */
        else
                close(pipefd[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (r >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                snprintf(why, why_size, "%s script failed (see perf-script.log)", in->perf);
                r = -ECHILD;
        } else if (r < 0)
                snprintf(why, why_size, "cannot fold perf script's output: %s", strerror(-r));
        return r;
}

/* perf script's own count: "Processed N events and lost M chunks!" (M: samples lost). */
static uint64_t lost_samples(const char *dir) {
        _cleanup_close_ int fd = open_run_file(dir, "perf-script.log");
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (fd < 0 || read_fd_bounded(fd, 1 << 20, &text, &len) < 0)
                return 0;
        const char *p = strstr(text, " and lost ");
        return p ? strtoull(p + strlen(" and lost "), NULL, 10) : 0;
}

static int write_folded(const struct profile_input *in, struct profile_folder *f) {
        int fd = create_run_file(in->dir, "profile.folded");
        if (fd < 0)
                return fd;
        FILE *out = fdopen(fd, "we");
        if (!out) {
                close(fd);
                return -ENOMEM;
        }
        int r = profile_folder_write(f, out, PROFILE_FOLDED_MAX);
        if (fclose(out) != 0 && r >= 0)
                r = -EIO;
        if (r < 0) {
                /* nothing half-written: a reader finds no profile rather than part of one */
                _cleanup_close_ int dirfd = open(in->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (dirfd >= 0)
                        (void) unlinkat(dirfd, "profile.folded", 0);
        }
        return r;
}

int profile_collect(const struct profile_input *in, cJSON **ret, cJSON *warnings) {
        char why[512] = "";
        _cleanup_free_ char *map_text = NULL;
        size_t map_len = 0;
        _cleanup_(profile_map_freep) struct profile_map *map = NULL;
        bool has_map = false;
        if (in->jvm) {
                if (take_perf_map(in, &map_text, &map_len, why, sizeof why) >= 0 &&
                    profile_map_parse(map_text, map_len, &map) >= 0)
                        has_map = true;
                else
                        json_append_printf(warnings, "profile: no JIT perf map (%s): compiled Java frames are [unknown]", why);
        }
        if (!in->recorded)
                json_append_printf(warnings, "profile: perf record did not end cleanly (%s): its samples may be incomplete",
                          "see perf.log in the run directory");
        _cleanup_(profile_folder_freep) struct profile_folder *f = NULL;
        int r = profile_folder_new(in->jvm, map, &f);
        if (r < 0)
                return r;
        r = run_perf_script(in, f, why, sizeof why);
        if (r >= 0)
                r = write_folded(in, f);
        if (r < 0) {
                json_append_printf(warnings, "profile: no profile.folded: %s", why[0] ? why : strerror(-r));
                return r;
        }
        struct profile_fold_stats st;
        profile_folder_stats(f, &st);
        cJSON *m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "samples", (double) st.samples);
        cJSON_AddNumberToObject(m, "lost", (double) lost_samples(in->dir));
        cJSON *g = cJSON_AddObjectToObject(m, "groups");
        for (int i = 0; i < _PROFILE_GROUP_MAX; i++)
                cJSON_AddNumberToObject(g, profile_group_name((enum profile_group) i), (double) st.by_group[i]);
        cJSON_AddNumberToObject(m, "truncated", (double) st.truncated);
        cJSON_AddBoolToObject(m, "perf_map", has_map);
        *ret = m;
        return 0;
}
