/* test-jvm-live.c: the JVM parsers against a real JVM (OpenJDK at `java`) running
 * slicelab-sut.jar with the flags the daemon adds.
 *
 *  - flags: the PrintFlagsFinal table of the SUT's stdout and the GC log's init lines;
 *  - gc events from the live log, and the CLOCK test the design asks for: HotSpot's timenanos
 *    is CLOCK_MONOTONIC. Every decorated line lies between two CLOCK_MONOTONIC readings taken
 *    around the JVM, and the pause of a POST /gc lies inside the few milliseconds between
 *    sending the request and reading the answer, which no other clock (REALTIME, BOOTTIME after
 *    a suspend, the JVM's uptime) could satisfy;
 *  - hsperf: JIT compile time > 0 while running, and the final counters after the exit both
 *    from the fd kept open and from -XX:PerfDataSaveFile;
 *  - ergonomics under a real v1 CFS quota of 1 CPU, with and without -XX:-UseContainerSupport
 *    (the seed's last two cells): ActiveProcessorCount and ParallelGCThreads as the JVM chose.
 * usage: test-jvm-live SUT_JAR (meson passes it). Exit 77 (skip) without java. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jvm/jvm-flags.h"
#include "jvm/jvm-gclog.h"
#include "jvm/jvm-hsperf.h"
#include "basic/macro.h"
#include "test-tmp.h"

#define READY_TIMEOUT_MS (180 * 1000)
#define CGROUP_V1_CPU "/sys/fs/cgroup/cpu"

static const char *sut_jar;
/* What a failed assertion would otherwise leak: the teardown kills and removes these. */
static pid_t child = -1;
static char cgroup_dir[256];

static int64_t now(clockid_t clk) {
        struct timespec ts;
        assert_int_equal(clock_gettime(clk, &ts), 0);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* fork + exec java with argv; stdout to out_fd, stderr to err_path; join the cgroup first
 * when tasks_path is set (attach-then-exec, as the daemon's v1 driver does). */
static pid_t spawn_java(char *const argv[], int out_fd, const char *err_path, const char *tasks_path) {
        int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(err_fd >= 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (tasks_path) {
                        char buf[32];
                        int n = snprintf(buf, sizeof buf, "%d", (int) getpid());
                        int fd = open(tasks_path, O_WRONLY | O_CLOEXEC);
                        if (fd < 0 || write(fd, buf, (size_t) n) != n)
                                _exit(126);
                        close(fd);
                }
                if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
                        _exit(126);
                execvp(argv[0], argv);
                _exit(127);
        }
        close(err_fd);
        child = pid;
        return pid;
}

static int wait_child(pid_t pid) {
        int status;
        while (waitpid(pid, &status, 0) < 0)
                assert_int_equal(errno, EINTR);
        child = -1;
        return status;
}

/* Copy the SUT's stdout from the pipe to a file until the readiness line; returns the port. */
static int wait_listening(int pipe_fd, FILE *copy) {
        char buf[65536];
        size_t len = 0;
        int64_t deadline = now(CLOCK_MONOTONIC) + (int64_t) READY_TIMEOUT_MS * 1000000;

        for (;;) {
                int64_t left = (deadline - now(CLOCK_MONOTONIC)) / 1000000;
                assert_true(left > 0);
                struct pollfd pfd = { .fd = pipe_fd, .events = POLLIN };
                int r = poll(&pfd, 1, (int) left);
                if (r < 0 && errno == EINTR)
                        continue;
                assert_true(r > 0);
                ssize_t k = read(pipe_fd, buf + len, sizeof buf - 1 - len);
                assert_true(k > 0);   /* EOF: the JVM died before listening */
                assert_int_equal(fwrite(buf + len, 1, (size_t) k, copy), (size_t) k);
                len += (size_t) k;
                buf[len] = '\0';
                const char *l = strstr(buf, "slicelab-sut listening on 127.0.0.1:");
                if (l && strchr(l, '\n'))
                        return atoi(l + strlen("slicelab-sut listening on 127.0.0.1:"));
                /* keep only the unfinished last line: the flags table scrolls by */
                char *nl = strrchr(buf, '\n');
                if (nl) {
                        size_t keep = len - (size_t) (nl + 1 - buf);
                        memmove(buf, nl + 1, keep);
                        len = keep;
                }
                assert_true(len < sizeof buf - 1);
        }
}

static void drain(int pipe_fd, FILE *copy) {
        char buf[4096];
        ssize_t k;
        while ((k = read(pipe_fd, buf, sizeof buf)) != 0) {
                if (k < 0 && errno == EINTR)
                        continue;
                assert_true(k > 0);
                assert_int_equal(fwrite(buf, 1, (size_t) k, copy), (size_t) k);
        }
}

/* One HTTP/1.1 request on its own connection; returns the status code. */
static int http(int port, const char *method, const char *target) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        struct timeval tv = { .tv_sec = 60 };
        assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(connect(fd, (struct sockaddr *) &sa, sizeof sa), 0);
        char req[512], resp[4096];
        int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
                                          "Connection: close\r\n\r\n", method, target);
        assert_int_equal(write(fd, req, (size_t) n), n);
        size_t len = 0;
        ssize_t k;
        while (len < sizeof resp - 1 && (k = read(fd, resp + len, sizeof resp - 1 - len)) > 0)
                len += (size_t) k;
        close(fd);
        resp[len] = '\0';
        int status = 0;
        assert_int_equal(sscanf(resp, "HTTP/1.1 %d", &status), 1);
        return status;
}

static int online_cpus(void) {
        cpu_set_t set;
        assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
        return CPU_COUNT(&set);
}

/* Every decorated line's timenanos lies in [lo, hi]; returns the number of lines checked. */
static size_t check_log_clock(const char *path, int64_t lo, int64_t hi) {
        char line[8192];
        size_t n = 0;
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof line, f)) {
                long long t, up;
                if (sscanf(line, "[%lldns][%lldns]", &t, &up) != 2)
                        continue;
                if (t < lo || t > hi)
                        fail_msg("timenanos %lld outside the JVM's CLOCK_MONOTONIC lifetime [%" PRId64 ", %" PRId64 "]: %s",
                                 t, lo, hi, line);
                n++;
        }
        fclose(f);
        return n;
}

static void test_live_sut(void **state) {
        char gc_log[300], out_path[300], err_path[300], saved[300], xlog[400], savefile[400];
        int pipefd[2];

        tmp_path(gc_log, sizeof gc_log, tmp_group_dir, "gc.log");
        tmp_path(out_path, sizeof out_path, tmp_group_dir, "stdout");
        tmp_path(err_path, sizeof err_path, tmp_group_dir, "stderr");
        tmp_path(saved, sizeof saved, tmp_group_dir, "hsperfdata");
        snprintf(xlog, sizeof xlog, "-Xlog:gc*,safepoint:file=%s:uptimenanos,timenanos,level,tags:filecount=0", gc_log);
        snprintf(savefile, sizeof savefile, "-XX:PerfDataSaveFile=%s", saved);
        char *argv[] = { "java", "-XX:+UseParallelGC", "-Xms64m", "-Xmx64m", "-XX:+PrintFlagsFinal", xlog,
                         "-XX:+PerfDataSaveToFile", savefile, "-jar", (char *) sut_jar, "--port", "0",
                         "--threads", "2", NULL };

        FILE *copy = fopen(out_path, "we");
        assert_non_null(copy);
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        int64_t mono_before = now(CLOCK_MONOTONIC);
        pid_t pid = spawn_java(argv, pipefd[1], err_path, NULL);
        close(pipefd[1]);
        int port = wait_listening(pipefd[0], copy);
        assert_true(port > 0 && port < 65536);

        /* the JVM's counters, kept open across its exit */
        int hsperf_fd = -1;
        assert_int_equal(jvm_hsperf_open(pid, &hsperf_fd), 0);

        /* enough requests for the JIT and the young collector to have real work */
        for (int i = 0; i < 300; i++)
                assert_int_equal(http(port, "GET", "/work?cpu_us=300&alloc_kb=512"), 200);
        assert_int_equal(http(port, "GET", "/work?cpu_us=99999999"), 400);
        struct jvm_hsperf_sample live;
        int64_t compile_live, ns;
        assert_int_equal(jvm_hsperf_read(hsperf_fd, &live), 0);
        assert_int_equal(jvm_hsperf_compile_time_ns(&live, &compile_live), 0);
        assert_true(compile_live > 0);

        /* a pause at a known moment on CLOCK_MONOTONIC */
        int64_t gc_sent = now(CLOCK_MONOTONIC);
        assert_int_equal(http(port, "POST", "/gc"), 200);
        int64_t gc_answered = now(CLOCK_MONOTONIC);

        assert_int_equal(kill(pid, SIGTERM), 0);
        drain(pipefd[0], copy);
        close(pipefd[0]);
        assert_int_equal(fclose(copy), 0);
        int status = wait_child(pid);
        int64_t mono_after = now(CLOCK_MONOTONIC);
        assert_true(WIFEXITED(status) || WIFSIGNALED(status));

        /* (a) flags */
        struct jvm_info info;
        jvm_info_init(&info);
        assert_int_equal(jvm_flags_parse_path(out_path, &info), 0);
        assert_true(info.flags_table_found);
        assert_string_equal(info.gc, "ParallelGC");
        assert_true(info.has_max_heap_size && info.max_heap_size == 64 << 20);
        assert_true(info.has_ci_compiler_count && info.ci_compiler_count >= 1);
        assert_true(info.has_parallel_gc_threads && info.parallel_gc_threads >= 1);
        assert_true(info.has_use_container_support && info.use_container_support);

        /* (b) gc events */
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *log = NULL;
        assert_int_equal(jvm_gclog_load(gc_log, 1000000, &log), 0);
        assert_string_equal(log->info.collector, "ParallelGC");
        jvm_info_apply_gclog(&info, &log->info);
        assert_true(info.has_active_processor_count);
        assert_true(info.active_processor_count >= 1 && info.active_processor_count <= online_cpus());
        assert_true(info.java_version[0] != '\0');
        size_t pauses = 0, safepoints = 0;
        const struct jvm_gc_event *sysgc = NULL;
        for (size_t i = 0; i < log->n_events; i++) {
                const struct jvm_gc_event *e = &log->events[i];
                if (e->kind == JVM_GC_SAFEPOINT) {
                        safepoints++;
                        continue;
                }
                pauses++;
                if (strcmp(e->cause, "Pause Full (System.gc())") == 0) {
                        assert_null(sysgc);
                        sysgc = e;
                }
        }
        assert_true(pauses >= 2);   /* young pauses from /work, and the full one from /gc */
        assert_true(safepoints >= 1);
        assert_non_null(sysgc);
        /* every pause happened inside a safepoint (one safepoint may hold two pauses, e.g.
         * Parallel's young pause followed by a full one) */
        for (size_t i = 0; i < log->n_events; i++) {
                const struct jvm_gc_event *e = &log->events[i];
                bool inside = false;
                for (size_t k = 0; e->kind == JVM_GC_PAUSE && k < log->n_events && !inside; k++) {
                        const struct jvm_gc_event *sp = &log->events[k];
                        inside = sp->kind == JVM_GC_SAFEPOINT && sp->start_ns <= e->start_ns + 100000 &&
                                 sp->start_ns + sp->duration_ns + 100000 >= e->start_ns + e->duration_ns;
                }
                assert_true(e->kind != JVM_GC_PAUSE || inside);
        }

        /* (c) the clock: every line between the CLOCK_MONOTONIC readings around the JVM... */
        size_t lines = check_log_clock(gc_log, mono_before, mono_after);
        assert_true(lines >= 20);
        /* ...and the POST /gc pause inside its request, on the same clock */
        if (sysgc->start_ns < gc_sent || sysgc->start_ns + sysgc->duration_ns > gc_answered)
                fail_msg("System.gc() pause [%" PRId64 ", +%" PRId64 "] not inside its request [%" PRId64 ", %" PRId64 "]",
                         sysgc->start_ns, sysgc->duration_ns, gc_sent, gc_answered);
        int64_t realtime = now(CLOCK_REALTIME), boottime = now(CLOCK_BOOTTIME), mono = now(CLOCK_MONOTONIC);
        int64_t window = gc_answered - gc_sent;
        /* REALTIME is far from MONOTONIC on any host: the window check excludes it */
        assert_true(llabs((long long) (realtime - mono)) > window);
        fprintf(stderr, "# POST /gc at +0, pause started at +%.3f ms, lasted %.3f ms, answer read at +%.3f ms\n",
                (double) (sysgc->start_ns - gc_sent) / 1e6, (double) sysgc->duration_ns / 1e6, (double) window / 1e6);
        fprintf(stderr, "# %zu decorated lines within the JVM's CLOCK_MONOTONIC lifetime (%.1f s)\n", lines,
                (double) (mono_after - mono_before) / 1e9);
        if (boottime - mono > window)
                fprintf(stderr, "# CLOCK_BOOTTIME is %.3f s ahead of CLOCK_MONOTONIC here: excluded too\n",
                        (double) (boottime - mono) / 1e9);
        else
                fprintf(stderr, "# CLOCK_BOOTTIME equals CLOCK_MONOTONIC here (host never suspended, offset %" PRId64
                                " ns): this host cannot tell them apart; REALTIME and the JVM's uptime are excluded\n",
                        boottime - mono);

        /* (d) JIT compile time: live > 0, and the final counters after the exit */
        struct jvm_hsperf_sample final, from_file;
        int64_t compile_final, compile_saved, gc_time;
        assert_int_equal(jvm_hsperf_read(hsperf_fd, &final), 0);
        close(hsperf_fd);
        assert_int_equal(jvm_hsperf_compile_time_ns(&final, &compile_final), 0);
        assert_true(compile_final >= compile_live);
        assert_int_equal(jvm_hsperf_gc_time_ns(&final, &gc_time), 0);
        assert_true(gc_time >= sysgc->duration_ns / 2);   /* the full GC's time is in the counters */
        int saved_fd = -1;
        assert_int_equal(jvm_hsperf_open_path(saved, &saved_fd), 0);
        assert_int_equal(jvm_hsperf_read(saved_fd, &from_file), 0);
        close(saved_fd);
        assert_int_equal(jvm_hsperf_compile_time_ns(&from_file, &compile_saved), 0);
        assert_true(compile_saved >= compile_live);
        assert_int_equal(jvm_hsperf_ticks_to_ns(&from_file, from_file.frequency, &ns), 0);
        assert_int_equal(ns, 1000000000);
        fprintf(stderr, "# JIT compile time: %.3f s while serving, %.3f s at exit; GC time %.3f s\n",
                (double) compile_live / 1e9, (double) compile_final / 1e9, (double) gc_time / 1e9);
}

/* java -version in the quota slice: returns the parsed ergonomics. */
static void java_in_slice(const char *tasks, bool container_support, struct jvm_info *ret) {
        char gc_log[300], out_path[300], err_path[300], xlog[400];
        tmp_path(gc_log, sizeof gc_log, tmp_group_dir, container_support ? "gc-cs.log" : "gc-nocs.log");
        tmp_path(out_path, sizeof out_path, tmp_group_dir, container_support ? "flags-cs" : "flags-nocs");
        tmp_path(err_path, sizeof err_path, tmp_group_dir, "stderr-version");
        snprintf(xlog, sizeof xlog, "-Xlog:gc*,safepoint:file=%s:uptimenanos,timenanos,level,tags:filecount=0", gc_log);
        char *argv[] = { "java", container_support ? "-XX:+UseContainerSupport" : "-XX:-UseContainerSupport",
                         "-XX:+UseParallelGC", "-XX:+PrintFlagsFinal", xlog, "-version", NULL };

        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(out >= 0);
        pid_t pid = spawn_java(argv, out, err_path, tasks);
        close(out);
        int status = wait_child(pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

        jvm_info_init(ret);
        assert_int_equal(jvm_flags_parse_path(out_path, ret), 0);
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *log = NULL;
        assert_int_equal(jvm_gclog_load(gc_log, 1000, &log), 0);
        jvm_info_apply_gclog(ret, &log->info);
}

static void write_file(const char *dir, const char *name, const char *value) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, value, strlen(value)), (ssize_t) strlen(value));
        close(fd);
}

static void test_ergonomics_under_quota(void **state) {
        int cpus = online_cpus();
        if (access(CGROUP_V1_CPU "/cpu.cfs_quota_us", W_OK) != 0 || cpus < 2) {
                fprintf(stderr, "# needs root, a v1 cpu controller at " CGROUP_V1_CPU " and 2 CPUs\n");
                skip();
        }
        snprintf(cgroup_dir, sizeof cgroup_dir, CGROUP_V1_CPU "/slicelab-test-jvm-%d", (int) getpid());
        assert_int_equal(mkdir(cgroup_dir, 0755), 0);
        write_file(cgroup_dir, "cpu.cfs_period_us", "100000");
        write_file(cgroup_dir, "cpu.cfs_quota_us", "100000");   /* 1.0 CPU */
        char tasks[300];
        snprintf(tasks, sizeof tasks, "%s/tasks", cgroup_dir);

        struct jvm_info cs, nocs;
        java_in_slice(tasks, true, &cs);
        java_in_slice(tasks, false, &nocs);
        assert_int_equal(rmdir(cgroup_dir), 0);
        cgroup_dir[0] = '\0';

        fprintf(stderr, "# quota 1.0 of %d CPUs: ActiveProcessorCount %" PRId64 ", ParallelGCThreads %" PRId64
                        "; with -XX:-UseContainerSupport: %" PRId64 ", %" PRId64 "\n", cpus,
                cs.active_processor_count, cs.parallel_gc_threads, nocs.active_processor_count, nocs.parallel_gc_threads);
        assert_true(cs.has_active_processor_count && cs.active_processor_count == 1);
        assert_true(cs.has_parallel_gc_threads && cs.parallel_gc_threads == 1);
        assert_true(cs.use_container_support);
        assert_true(nocs.has_active_processor_count && nocs.active_processor_count == cpus);
        assert_true(nocs.has_use_container_support && !nocs.use_container_support);
        /* HotSpot: all CPUs up to 8, then 8 + 5/8 of the rest */
        assert_int_equal(nocs.parallel_gc_threads, cpus <= 8 ? cpus : 8 + (cpus - 8) * 5 / 8);
        assert_true(cs.parallel_gc_threads != nocs.parallel_gc_threads);
}

static int teardown(void **state) {
        if (child > 0) {
                kill(child, SIGKILL);
                waitpid(child, NULL, 0);
                child = -1;
        }
        if (cgroup_dir[0]) {
                rmdir(cgroup_dir);
                cgroup_dir[0] = '\0';
        }
        return 0;
}

static bool java_in_path(void) {
        const char *path = getenv("PATH");
        if (!path)
                return false;
        _cleanup_free_ char *copy = strdup(path);
        assert_non_null(copy);
        char *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
                char p[4096];
                snprintf(p, sizeof p, "%s/java", d);
                if (access(p, X_OK) == 0)
                        return true;
        }
        return false;
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: %s SUT_JAR\n", argv[0]);
                return 2;
        }
        sut_jar = argv[1];
        if (!java_in_path()) {
                fprintf(stderr, "# no java in PATH: skipped\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_live_sut, teardown),
                cmocka_unit_test_teardown(test_ergonomics_under_quota, teardown),
        };
        return cmocka_run_group_tests(tests, tmp_group_setup, tmp_group_teardown);
}
