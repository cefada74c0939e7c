/* test-other-cpu.c: CPU time on a run's CPUs that its slices did not use: the /proc/stat
 * parser on fixture text (idle and iowait, never the tick-sampled busy fields), and the figures
 * from two readings with per-CPU slice usage (v1) and with totals attributed by cpuset (v2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/other-cpu.h"
#include "host/host-stat.h"

#define S "cpu  1000 0 0 0 0 0 0 0 0 0\n"

static void test_parse_stat(void **state) {
        struct host_cpu_idle *b = calloc(1, sizeof *b);
        assert_non_null(b);
        /* user nice system idle iowait irq softirq steal guest guest_nice: idle and iowait only */
        assert_int_equal(host_parse_stat_idle(S "cpu0 100 2 30 5000 70 4 5 6 0 0\ncpu1 1 0 0 9 9 0 0 0 0 0\n"
                                              "cpu3 10 0 0 0 0 0 0 0\nintr 5 0 0\nctxt 12\n", 100, b), 0);
        assert_true(cpulist_test(&b->cpus, 0) && cpulist_test(&b->cpus, 1) && cpulist_test(&b->cpus, 3));
        assert_false(cpulist_test(&b->cpus, 2));
        assert_int_equal(b->idle_ns[0], (5000 + 70) * UINT64_C(10000000));
        assert_int_equal(b->idle_ns[1], 18 * UINT64_C(10000000));
        assert_int_equal(b->idle_ns[3], 0);
        /* failures leave *ret alone */
        b->idle_ns[0] = 42;
        assert_int_equal(host_parse_stat_idle(S "cpu0 1 2 3\n", 100, b), -EBADMSG);
        assert_int_equal(host_parse_stat_idle(S "cpu9999 1 2 3 4 5 6 7 8\n", 100, b), -EBADMSG);
        assert_int_equal(host_parse_stat_idle(S "intr 1\n", 100, b), -EBADMSG);
        assert_int_equal(host_parse_stat_idle("", 100, b), -EBADMSG);
        assert_int_equal(host_parse_stat_idle(S "cpu0 1 2 3 4 5 6 7 8\n", 0, b), -EINVAL);
        assert_int_equal(b->idle_ns[0], 42);
        free(b);
}

struct pair {
        struct other_cpu_reading start, end;
};

#define TEN_S (10 * INT64_C(1000000000))

/* A 2-CPU host, 10 s apart: CPU 1 idle 1 s (busy 9 s), CPU 0 idle 6 s (busy 4 s), the idle
 * partly iowait. The SUT on CPU 1 used 6 s of it, the load on CPU 0 used 3 s (and on v1 nothing
 * elsewhere). The busy fields say otherwise, as tick samples can: they do not count. */
static struct pair *two_cpus(bool per_cpu, const char *sut_cpus) {
        struct pair *p = calloc(1, sizeof *p);
        assert_non_null(p);
        assert_int_equal(host_parse_stat_idle(S "cpu0 0 0 0 100 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0\n", 100, &p->start.idle), 0);
        assert_int_equal(host_parse_stat_idle(S "cpu0 1000 0 0 600 100 0 0 0\ncpu1 5 0 0 150 50 0 0 0\n", 100, &p->end.idle), 0);
        p->start.idle_t_ns = 5 * INT64_C(1000000000);
        p->end.idle_t_ns = p->start.idle_t_ns + TEN_S;
        struct other_cpu_reading *r[] = { &p->start, &p->end };
        for (int i = 0; i < 2; i++) {
                r[i]->has_idle = r[i]->has_sut = r[i]->has_load = true;
                assert_int_equal(cpulist_parse(sut_cpus, &r[i]->sut.cpus), 0);
                assert_int_equal(cpulist_parse("0", &r[i]->load.cpus), 0);
                r[i]->sut.per_cpu = r[i]->load.per_cpu = per_cpu;
        }
        p->end.sut.total_ns = 6 * UINT64_C(1000000000);
        p->end.sut.percpu_ns[1] = p->end.sut.total_ns;
        p->end.load.total_ns = 3 * UINT64_C(1000000000);
        p->end.load.percpu_ns[0] = p->end.load.total_ns;
        return p;
}

static void test_compute_v1(void **state) {
        struct pair *p = two_cpus(true, "1");
        struct other_cpu o;
        const char *why = NULL;
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), 0);
        assert_int_equal(o.n_cpus, 1);
        assert_true(fabs(o.busy_s - 9) < 1e-9 && fabs(o.slices_s - 6) < 1e-9 && fabs(o.other_s - 3) < 1e-9);
        assert_true(fabs(o.share - 0.3) < 1e-9);
        assert_true(o.per_cpu);
        /* on both CPUs (a quota cell): 13 s busy, 9 s the slices' */
        free(p);
        p = two_cpus(true, "0-1");
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), 0);
        assert_true(fabs(o.other_s - 4) < 1e-9 && fabs(o.share - 0.2) < 1e-9);
        /* the slices using more than the time less idle (rounding): clamped at 0 */
        p->end.sut.percpu_ns[1] = p->end.sut.total_ns = 20 * UINT64_C(1000000000);
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), 0);
        assert_true(o.other_s == 0 && o.share == 0);
        free(p);
}

/* The case of issue 27: a quiet cell on CPU 1 whose 200 us requests come 6 per 4 ms tick. Tick
 * samples charged CPU 1 as busy for nearly all of the 10 s (or for none of it: the phase decides),
 * while it was idle 7 s. Only the idle time counts: 3 s busy, the SUT's 2.9 s of it, 0.01 share. */
static void test_compute_ignores_tick_samples(void **state) {
        struct pair *p = two_cpus(true, "1");
        p->end.sut.percpu_ns[1] = p->end.sut.total_ns = 2900 * UINT64_C(1000000);
        struct other_cpu o, again;
        const char *why = NULL;
        assert_int_equal(host_parse_stat_idle(S "cpu0 0 0 0 100 0 0 0 0\ncpu1 990 0 10 800 0 0 0 0\n", 100, &p->end.idle), 0);
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), 0);
        assert_true(fabs(o.busy_s - 3) < 1e-9 && fabs(o.other_s - 0.1) < 1e-9 && fabs(o.share - 0.01) < 1e-9);
        assert_int_equal(host_parse_stat_idle(S "cpu0 0 0 0 100 0 0 0 0\ncpu1 0 0 0 800 0 0 0 0\n", 100, &p->end.idle), 0);
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &again, &why), 0);
        assert_true(again.busy_s == o.busy_s && again.other_s == o.other_s);
        /* readings without time between them tell nothing */
        p->end.idle_t_ns = p->start.idle_t_ns;
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), -ENODATA);
        assert_non_null(strstr(why, "no time passed"));
        free(p);
}

static void test_compute_v2(void **state) {
        /* v2: the SUT's total counts whole, the load's in its CPUs' share that is the cell's */
        struct pair *p = two_cpus(false, "1");
        struct other_cpu o;
        const char *why = NULL;
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), 0);
        assert_true(fabs(o.other_s - 3) < 1e-9);
        assert_false(o.per_cpu);
        assert_int_equal(cpulist_parse("0-1", &p->end.load.cpus), 0);
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), 0);
        assert_true(fabs(o.slices_s - 7.5) < 1e-9 && fabs(o.other_s - 1.5) < 1e-9);
        free(p);
}

static void test_compute_missing(void **state) {
        struct pair *p = two_cpus(true, "1");
        struct other_cpu o = { .n_cpus = 77 };
        const char *why = NULL;
        p->end.has_idle = false;
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), -ENODATA);
        assert_non_null(strstr(why, "/proc/stat"));
        p->end.has_idle = true;
        p->start.has_load = false;
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, true, &o, &why), -ENODATA);
        assert_non_null(strstr(why, "slices"));
        /* a run without load does not need the load slice */
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, false, &o, &why), 0);
        assert_true(fabs(o.other_s - 3) < 1e-9);
        o.n_cpus = 77;
        /* a CPU /proc/stat does not list */
        assert_int_equal(cpulist_parse("5", &p->end.sut.cpus), 0);
        assert_int_equal(other_cpu_compute(&p->start, &p->end, TEN_S, false, &o, &why), -ENODATA);
        assert_int_equal(o.n_cpus, 77);
        free(p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_stat),
                cmocka_unit_test(test_compute_v1),
                cmocka_unit_test(test_compute_ignores_tick_samples),
                cmocka_unit_test(test_compute_v2),
                cmocka_unit_test(test_compute_missing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
