/* test-jvm-parsers.c: the JVM parsers on real captured output (tests/jvm/fixtures) and on
 * hostile input: GC log events and their clock arithmetic, the window summary, the
 * PrintFlagsFinal table, and the hsperfdata format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "jvm/jvm-flags.h"
#include "jvm/jvm-gclog.h"
#include "jvm/jvm-hsperf.h"
#include "jvm/jvm-lines.h"
#include "basic/macro.h"
#include "test-tmp.h"

static void fixture_path(char *buf, size_t size, const char *name) {
        const char *src = getenv("SLICELAB_SRC");
        assert_non_null(src);
        snprintf(buf, size, "%s/tests/jvm/fixtures/%s", src, name);
}

static struct jvm_gclog *load_fixture(const char *name) {
        char path[4096];
        struct jvm_gclog *log = NULL;
        fixture_path(path, sizeof path, name);
        assert_int_equal(jvm_gclog_load(path, 100000, &log), 0);
        assert_non_null(log);
        return log;
}

static int parse_one(struct jvm_gclog_parser *p, const char *line, struct jvm_gc_event *ev) {
        return jvm_gclog_parse_line(p, line, strlen(line), ev);
}

static char *json_string(cJSON *o) {
        assert_non_null(o);
        char *s = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        assert_non_null(s);
        return s;
}

/* ---- GC log: fixtures from real runs of each collector ---- */

struct gc_start {
        int64_t ts, gc_id;
        char what[128];
};

/* The gc,start lines of a fixture: when HotSpot says a collection began, to check that
 * "logged time - duration" is the start. */
static size_t read_gc_starts(const char *name, struct gc_start *out, size_t max) {
        char path[4096], line[4096];
        size_t n = 0;
        fixture_path(path, sizeof path, name);
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        while (n < max && fgets(line, sizeof line, f)) {
                long long ts, up, id;
                int off = 0;
                if (sscanf(line, "[%lldns][%lldns][info][gc,start%*[ ]] GC(%lld) %n", &ts, &up, &id, &off) == 3 && off > 0 &&
                    strncmp(line + off, "Pause ", 6) == 0) {
                        out[n].ts = ts;
                        out[n].gc_id = id;
                        snprintf(out[n].what, sizeof out[n].what, "%s", line + off);
                        out[n].what[strcspn(out[n].what, "\n")] = '\0';
                        n++;
                }
        }
        fclose(f);
        return n;
}

static void check_fixture(const char *name, const char *collector, const char *first_cause,
                          const char *last_cause, bool heap, size_t min_safepoints) {
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *log = load_fixture(name);
        struct gc_start starts[256];
        size_t nstarts = read_gc_starts(name, starts, ELEMENTSOF(starts));
        size_t pauses = 0, safepoints = 0, matched = 0;
        const struct jvm_gc_event *first = NULL, *last = NULL;

        assert_string_equal(log->info.collector, collector);
        assert_true(strncmp(log->info.version, "17.", 3) == 0);
        assert_true(log->info.has_cpus);
        assert_true(log->info.cpus_available >= 1 && log->info.cpus_total >= 1);
        assert_false(log->truncated);
        assert_int_equal(log->skipped, 0);   /* every line of a real log has the decorations */

        for (size_t i = 0; i < log->n_events; i++) {
                const struct jvm_gc_event *e = &log->events[i];
                assert_true(e->duration_ns >= 0 && e->start_ns > 0);
                assert_string_equal(e->collector, collector);
                if (e->kind == JVM_GC_SAFEPOINT) {
                        safepoints++;
                        assert_int_equal(e->gc_id, -1);
                        continue;
                }
                pauses++;
                if (!first)
                        first = e;
                last = e;
                assert_true(strncmp(e->cause, "Pause ", 6) == 0);
                if (heap) {
                        assert_true(e->heap_before > 0 && e->heap_after > 0 && e->heap_capacity >= e->heap_after);
                        assert_int_equal(e->heap_before % 1024, 0);
                }
                /* HotSpot logs "GC(N) Pause X" at the start too: our start (end - duration)
                 * lies within 0.1 ms of it for every collector that has them (either side: the
                 * pause timer and the line's timestamp are two clock reads, and the duration is
                 * printed in us). Seen: -9..+47 us. */
                for (size_t k = 0; k < nstarts; k++)
                        if (starts[k].gc_id == e->gc_id && strncmp(e->cause, starts[k].what, strlen(starts[k].what)) == 0) {
                                assert_true(llabs((long long) (e->start_ns - starts[k].ts)) < 100000);
                                matched++;
                                break;
                        }
        }
        assert_true(pauses >= 2);
        assert_true(safepoints >= min_safepoints);
        assert_non_null(first);
        assert_string_equal(first->cause, first_cause);
        assert_string_equal(last->cause, last_cause);
        if (nstarts > 0)
                assert_int_equal(matched, pauses);
}

static void test_gclog_fixtures(void **state) {
        check_fixture("gc-serial.log", "SerialGC", "Pause Young (Allocation Failure)", "Pause Full (System.gc())", true, 2);
        check_fixture("gc-parallel.log", "ParallelGC", "Pause Young (Allocation Failure)", "Pause Full (System.gc())", true, 2);
        check_fixture("gc-g1.log", "G1GC", "Pause Young (Normal) (G1 Evacuation Pause)", "Pause Full (System.gc())", true, 2);
        check_fixture("gc-z.log", "ZGC", "Pause Mark Start", "Pause Relocate Start", false, 6);
        check_fixture("gc-shenandoah.log", "ShenandoahGC", "Pause Init Mark (unload classes)", "Pause Final Update Refs", false, 8);
        check_fixture("gc-shenandoah-passive.log", "ShenandoahGC", "Pause Degenerated GC (Outside of Cycle)", "Pause Full", true, 2);
}

/* Exact figures of one real line per collector family. */
static void test_gclog_fixture_values(void **state) {
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *log = load_fixture("gc-serial.log");
        const struct jvm_gc_event *e = &log->events[0], *sp;
        /* [942824299652ns]...[safepoint   ] Safepoint "Cleanup", ..., Total: 119537 ns */
        assert_int_equal(e->kind, JVM_GC_SAFEPOINT);
        assert_string_equal(e->cause, "Cleanup");
        assert_int_equal(e->start_ns, INT64_C(942824299652) - 119537);
        /* [943636196580ns]...[gc          ] GC(0) Pause Young (Allocation Failure) 8M->5M(30M) 151.810ms */
        e = &log->events[1];
        assert_int_equal(e->kind, JVM_GC_PAUSE);
        assert_int_equal(e->gc_id, 0);
        assert_int_equal(e->duration_ns, 151810000);
        assert_int_equal(e->start_ns, INT64_C(943636196580) - 151810000);
        assert_int_equal(e->heap_before, 8 << 20);
        assert_int_equal(e->heap_after, 5 << 20);
        assert_int_equal(e->heap_capacity, 30 << 20);
        /* its safepoint ("GenCollectForAllocation", Total: 152095811 ns) contains it */
        sp = &log->events[2];
        assert_int_equal(sp->kind, JVM_GC_SAFEPOINT);
        assert_string_equal(sp->cause, "GenCollectForAllocation");
        assert_true(sp->start_ns <= e->start_ns && sp->start_ns + sp->duration_ns >= e->start_ns + e->duration_ns);
        assert_string_equal(log->info.version, "17.0.15+6-Debian-1deb12u1");
        assert_int_equal(log->info.cpus_total, 2);
}

/* ---- GC log: single lines, including hostile ones ---- */

static void test_gclog_lines(void **state) {
        struct jvm_gclog_parser p;
        struct jvm_gc_event ev;
        jvm_gclog_parser_init(&p);

        assert_int_equal(parse_one(&p, "[100ns][5ns][info][gc] Using G1", &ev), 0);
        assert_string_equal(p.info.collector, "G1GC");
        assert_int_equal(parse_one(&p, "[100ns][5ns][info][gc,init] Version: 17.0.9+1 (release)", &ev), 0);
        assert_string_equal(p.info.version, "17.0.9+1");
        assert_int_equal(parse_one(&p, "[100ns][5ns][info][gc,init] CPUs: 16 total, 3 available", &ev), 0);
        assert_true(p.info.has_cpus);
        assert_int_equal(p.info.cpus_total, 16);
        assert_int_equal(p.info.cpus_available, 3);

        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc          ] GC(12) Pause Young (Concurrent Start) "
                                       "(G1 Humongous Allocation) 1G->512M(2G) 1.5ms", &ev), 1);
        assert_int_equal(ev.kind, JVM_GC_PAUSE);
        assert_int_equal(ev.gc_id, 12);
        assert_int_equal(ev.duration_ns, 1500000);
        assert_int_equal(ev.start_ns, 5000000000 - 1500000);
        assert_int_equal(ev.heap_before, INT64_C(1) << 30);
        assert_int_equal(ev.heap_after, INT64_C(512) << 20);
        assert_int_equal(ev.heap_capacity, INT64_C(2) << 30);
        assert_string_equal(ev.cause, "Pause Young (Concurrent Start) (G1 Humongous Allocation)");
        assert_string_equal(ev.collector, "G1GC");

        /* G1 has no pauses under gc,phases: its phase lines are parts of a pause */
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc,phases] GC(12) Pause Mark Start 0.010ms", &ev), 0);
        /* concurrent work is not a pause, even with heap figures */
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc] GC(3) Concurrent cleanup 8M->8M(32M) 0.008ms", &ev), 0);
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc] GC(3) Concurrent Mark Cycle 12.000ms", &ev), 0);
        /* the start line of a pause has no duration */
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc,start] GC(3) Pause Young (Normal) (G1 Evacuation Pause)", &ev), 0);
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause)", &ev), 0);
        /* another level is not the event line */
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][debug][gc] GC(3) Pause Young (Normal) 1M->1M(2M) 1.000ms", &ev), 0);

        assert_int_equal(parse_one(&p, "[9000000000ns][77ns][info][safepoint   ] Safepoint \"G1CollectForAllocation\", Time since last: "
                                       "639149890 ns, Reaching safepoint: 8305 ns, Cleanup: 88388 ns, At safepoint: 37648396 ns, "
                                       "Total: 37745089 ns", &ev), 1);
        assert_int_equal(ev.kind, JVM_GC_SAFEPOINT);
        assert_int_equal(ev.duration_ns, 37745089);
        assert_int_equal(ev.start_ns, 9000000000 - 37745089);
        assert_int_equal(ev.gc_id, -1);
        assert_int_equal(ev.heap_before, -1);
        assert_string_equal(ev.cause, "G1CollectForAllocation");

        /* ZGC's pauses are gc,phases lines, only once the log said it is ZGC */
        assert_int_equal(parse_one(&p, "[100ns][5ns][info][gc     ] Using The Z Garbage Collector", &ev), 0);
        assert_string_equal(p.info.collector, "ZGC");
        assert_int_equal(parse_one(&p, "[7000000ns][77ns][info][gc,phases   ] GC(4) Pause Mark End 0.015ms", &ev), 1);
        assert_int_equal(ev.duration_ns, 15000);
        assert_int_equal(ev.start_ns, 7000000 - 15000);
        assert_int_equal(ev.heap_before, -1);
        assert_string_equal(ev.cause, "Pause Mark End");
        assert_string_equal(ev.collector, "ZGC");
        assert_int_equal(p.skipped, 0);
}

static void test_gclog_hostile_lines(void **state) {
        static const char *const bad[] = {
                "",
                "Pause Young 1M->1M(2M) 1.000ms",
                "[0.123s][info][gc] GC(1) Pause Young (Normal) 1M->1M(2M) 1.000ms",   /* other decorators */
                "[5000000000ns][info][gc] GC(1) Pause Young 1M->1M(2M) 1.000ms",
                "[5000000000ns][77ns][info][gc GC(1) Pause Young 1M->1M(2M) 1.000ms",
                "[5000000000ns][77ns][info][gc]GC(1) Pause Young 1M->1M(2M) 1.000ms",
                "[-5ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) 1.000ms",
                "[99999999999999999999ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) 1.000ms",
        };
        static const char *const no_event[] = {
                "[5000000000ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) 1.ms",
                "[5000000000ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) ms",
                "[5000000000ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) -1.000ms",
                "[5000000000ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) 1.000 ms",
                "[5000000000ns][77ns][info][gc] GC(1) Pause Young 1M->1M(2M) 99999999999999999999.000ms",
                "[5000000000ns][77ns][info][gc] GC(1) Pause 1.000ms",
                "[5000000000ns][77ns][info][gc] GC(x) Pause Young 1.000ms",
                "[5000000000ns][77ns][info][gc] GC(1)Pause Young 1.000ms",
                "[5000000000ns][77ns][info][gc] Pause Young 1.000ms",
                "[1000ns][77ns][info][gc] GC(1) Pause Young 1.000ms",   /* would start before the clock's 0 */
                "[5000000000ns][77ns][info][safepoint] Safepoint \"X\", Total: 5 ns trailing",
                "[5000000000ns][77ns][info][safepoint] Safepoint \"X, Total: 5 ns",
                "[5000000000ns][77ns][info][safepoint] Safepoint \"X\", Total: ns",
                "[5000000000ns][77ns][info][safepoint] Safepoint \"X\", Total: 99999999999999999999 ns",
                "[5000000000ns][77ns][info][safepoint] Safepoint \"X\"",
                "[5000000000ns][77ns][info][gc,init] CPUs: -1 total, 2 available",
        };
        struct jvm_gclog_parser p;
        struct jvm_gc_event ev;

        jvm_gclog_parser_init(&p);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(parse_one(&p, bad[i], &ev), 0);
        assert_int_equal(p.skipped, ELEMENTSOF(bad));
        for (size_t i = 0; i < ELEMENTSOF(no_event); i++)
                assert_int_equal(parse_one(&p, no_event[i], &ev), 0);
        assert_false(p.info.has_cpus);

        /* Heap figures that do not parse are part of the description, not an error. */
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc] GC(1) Pause Young 1X->1M(2M) 1.000ms", &ev), 1);
        assert_int_equal(ev.heap_before, -1);
        assert_string_equal(ev.cause, "Pause Young 1X->1M(2M)");
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][gc] GC(1) Pause Young 99999999999G->1M(2M) 1.000ms", &ev), 1);
        assert_int_equal(ev.heap_before, -1);

        /* An operation name cannot fake the total: the last ", Total: " counts. */
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][safepoint] Safepoint \"A, Total: 1 ns\", Cleanup: 3 ns, "
                                       "Total: 42 ns", &ev), 1);
        assert_int_equal(ev.duration_ns, 42);
        assert_string_equal(ev.cause, "A, Total: 1 ns");

        /* A long description is cut and NUL-terminated; bytes that are not printable ASCII
         * (control characters, UTF-8) become '?' so the cause is safe in JSON and logs. */
        char line[512], what[300];
        memset(what, 'a', sizeof what - 1);
        what[sizeof what - 1] = '\0';
        memcpy(what + 10, "\x01\xc3\xa9\x7f\t", 5);
        snprintf(line, sizeof line, "[5000000000ns][77ns][info][gc] GC(1) Pause %s 2.000ms", what);
        assert_int_equal(parse_one(&p, line, &ev), 1);
        assert_int_equal(strlen(ev.cause), JVM_GC_CAUSE_MAX - 1);
        assert_true(strncmp(ev.cause, "Pause aaaaaaaaaa?????aaa", 24) == 0);
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][safepoint] Safepoint \"\x1b[31mX\", Total: 4 ns", &ev), 1);
        assert_string_equal(ev.cause, "?[31mX");
}

static int count_event(const struct jvm_gc_event *ev, void *userdata) {
        (*(size_t *) userdata)++;
        return 0;
}

static int stop_at_first(const struct jvm_gc_event *ev, void *userdata) {
        return -ECANCELED;
}

static void test_gclog_stream(void **state) {
        static const char pause[] = "[5000000000ns][77ns][info][gc] GC(1) Pause Young (Allocation Failure) 8M->5M(30M) 43.329ms\n";
        size_t cap = 3 * JVM_LINE_MAX + 1024, len = 0, n = 0;
        _cleanup_free_ char *buf = malloc(cap);
        assert_non_null(buf);

        len += (size_t) snprintf(buf + len, cap - len, "%s", pause);
        /* a line longer than the reader's buffer, which ends like a pause line: skipped whole */
        memset(buf + len, 'x', 2 * JVM_LINE_MAX);
        len += 2 * JVM_LINE_MAX;
        len += (size_t) snprintf(buf + len, cap - len, " GC(2) Pause Young 1M->1M(2M) 9.000ms\n");
        /* a line with a NUL inside */
        static const char with_nul[] = "[5000000000ns][77ns][info][gc] GC(3) Pause\0Young 1M->1M(2M) 9.000ms\n";
        memcpy(buf + len, with_nul, sizeof with_nul - 1);
        len += sizeof with_nul - 1;
        len += (size_t) snprintf(buf + len, cap - len, "%s", pause);
        /* the JVM was killed mid-line: "43.3" must not become a 43.3 ms pause */
        len += (size_t) snprintf(buf + len, cap - len, "[5000000000ns][77ns][info][gc] GC(4) Pause Young 8M->5M(30M) 43.3");

        FILE *f = fmemopen(buf, len, "r");
        assert_non_null(f);
        struct jvm_gclog_parser p;
        jvm_gclog_parser_init(&p);
        assert_int_equal(jvm_gclog_parse_file(f, &p, count_event, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(p.lines, 4);
        assert_int_equal(p.skipped, 2);

        rewind(f);
        jvm_gclog_parser_init(&p);
        assert_int_equal(jvm_gclog_parse_file(f, &p, stop_at_first, NULL), -ECANCELED);
        fclose(f);
}

/* A log rotated in two pieces reads as the whole: the same events in the same order, the header
 * (collector, heap) from the first piece. */
static void test_gclog_load_rotated(void **state) {
        char path[4096], first[4200], second[4200];
        fixture_path(path, sizeof path, "gc-g1.log");
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *whole = NULL, *pieces = NULL;
        assert_int_equal(jvm_gclog_load(path, 100000, &whole), 0);
        assert_true(whole->n_events >= 2);
        _cleanup_tmp_dir_ char *dir = tmp_dir_new("gclog");
        tmp_path(first, sizeof first, dir, "gc.log.0");
        tmp_path(second, sizeof second, dir, "gc.log");
        FILE *in = fopen(path, "re"), *a = fopen(first, "we"), *b = fopen(second, "we");
        assert_true(in && a && b);
        char line[8192];
        size_t lines = 0;
        while (fgets(line, sizeof line, in))
                lines++;
        rewind(in);
        for (size_t i = 0; fgets(line, sizeof line, in); i++)
                fputs(line, i < lines / 2 ? a : b);
        fclose(in);
        fclose(a);
        fclose(b);
        const char *paths[] = { first, second };
        assert_int_equal(jvm_gclog_load_files(paths, 2, 100000, &pieces), 0);
        assert_int_equal(pieces->n_events, whole->n_events);
        for (size_t i = 0; i < whole->n_events; i++) {
                assert_int_equal(pieces->events[i].start_ns, whole->events[i].start_ns);
                assert_int_equal(pieces->events[i].duration_ns, whole->events[i].duration_ns);
        }
        assert_string_equal(pieces->info.collector ? pieces->info.collector : "", whole->info.collector ? whole->info.collector : "");
        const char *missing[] = { first, "/nonexistent/gc.log" };
        struct jvm_gclog *untouched = (struct jvm_gclog *) 0x1;
        assert_int_equal(jvm_gclog_load_files(missing, 2, 100000, &untouched), -ENOENT);
        assert_ptr_equal(untouched, (struct jvm_gclog *) 0x1);
}

static void test_gclog_load_limits(void **state) {
        char path[4096];
        struct jvm_gclog *log = (struct jvm_gclog *) 0x1;
        fixture_path(path, sizeof path, "gc-g1.log");
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *small = NULL;
        assert_int_equal(jvm_gclog_load(path, 1, &small), 0);
        assert_int_equal(small->n_events, 1);
        assert_true(small->truncated);
        assert_int_equal(jvm_gclog_load("/nonexistent/gc.log", 10, &log), -ENOENT);
        assert_ptr_equal(log, (struct jvm_gclog *) 0x1);   /* untouched on failure */
}

/* ---- summary over the measure window ---- */

static struct jvm_gc_event mk(enum jvm_gc_event_kind kind, int64_t start, int64_t dur) {
        return (struct jvm_gc_event) { .kind = kind, .start_ns = start, .duration_ns = dur, .gc_id = -1 };
}

static void test_summary(void **state) {
        struct jvm_gc_event ev[220];
        struct jvm_gc_summary s;
        size_t n = 0;

        /* 200 pauses of 1..200 ms starting at 1000 s + i, shuffled order, plus safepoints */
        for (int i = 0; i < 200; i++) {
                int v = (i * 7919) % 200 + 1;   /* a permutation of 1..200 */
                ev[n++] = mk(JVM_GC_PAUSE, 1000000000000 + (int64_t) v * 1000000000, (int64_t) v * 1000000);
        }
        for (int i = 0; i < 10; i++)
                ev[n++] = mk(JVM_GC_SAFEPOINT, 1000000000000 + (int64_t) i * 1000000000, 500000);

        assert_int_equal(jvm_gc_summarize(ev, n, 0, INT64_MAX, &s), 0);
        assert_int_equal(s.pauses, 200);
        assert_int_equal(s.pause_total_ns, (int64_t) 200 * 201 / 2 * 1000000);
        assert_int_equal(s.pause_max_ns, 200000000);
        assert_int_equal(s.pause_p99_ns, 198000000);   /* rank ceil(0.99 * 200) = 198 */
        assert_int_equal(s.safepoints, 10);
        assert_int_equal(s.safepoint_total_ns, 5000000);

        /* [from, to): pause v starts at 1000 + v s; the window [1001 s, 1101 s) holds v = 1..100 */
        assert_int_equal(jvm_gc_summarize(ev, n, 1001000000000, 1101000000000, &s), 0);
        assert_int_equal(s.pauses, 100);
        assert_int_equal(s.pause_max_ns, 100000000);
        assert_int_equal(s.pause_p99_ns, 99000000);    /* rank 99 of 100 */
        assert_int_equal(s.safepoints, 9);             /* safepoints at 1001..1009 s */

        /* 101 pauses: rank ceil(99.99) = 100 */
        assert_int_equal(jvm_gc_summarize(ev, n, 1001000000000, 1102000000000, &s), 0);
        assert_int_equal(s.pauses, 101);
        assert_int_equal(s.pause_p99_ns, 100000000);

        /* one pause: p99 is that pause */
        assert_int_equal(jvm_gc_summarize(ev, n, 1007000000000, 1007000000001, &s), 0);
        assert_int_equal(s.pauses, 1);
        assert_int_equal(s.pause_p99_ns, 7000000);

        _cleanup_free_ char *js = json_string(jvm_gc_summary_to_json(&s));
        assert_string_equal(js, "{\"pauses\":1,\"pause_total_ms\":7,\"pause_max_ms\":7,\"pause_p99_ms\":7,\"safepoint_total_ms\":0.5}");

        /* nothing in the window: counts and totals are 0, max and p99 are null, not 0 */
        assert_int_equal(jvm_gc_summarize(ev, n, 0, 1000, &s), 0);
        assert_int_equal(s.pauses, 0);
        _cleanup_free_ char *empty = json_string(jvm_gc_summary_to_json(&s));
        assert_string_equal(empty, "{\"pauses\":0,\"pause_total_ms\":0,\"pause_max_ms\":null,\"pause_p99_ms\":null,\"safepoint_total_ms\":0}");
        assert_int_equal(jvm_gc_summarize(NULL, 0, 0, 10, &s), 0);
        assert_int_equal(jvm_gc_summarize(ev, n, 10, 0, &s), -EINVAL);
}

/* What the timeline's GC rows are made of (collect.c stores them as they are). */
static void assert_gc_event(const struct jvm_gc_event *ev, int64_t start_ns, int64_t duration_ns,
                            enum jvm_gc_event_kind kind, const char *cause, int64_t gc_id) {
        assert_int_equal(ev->start_ns, start_ns);
        assert_int_equal(ev->duration_ns, duration_ns);
        assert_int_equal(ev->kind, kind);
        assert_string_equal(ev->cause, cause);
        assert_int_equal(ev->gc_id, gc_id);
        assert_string_equal(ev->collector, "ParallelGC");
}

static void test_gc_event_fields(void **state) {
        struct jvm_gclog_parser p;
        struct jvm_gc_event ev;
        jvm_gclog_parser_init(&p);
        assert_int_equal(parse_one(&p, "[100ns][5ns][info][gc] Using Parallel", &ev), 0);
        assert_int_equal(parse_one(&p, "[422053173586ns][873289947ns][info][gc          ] GC(0) Pause Young "
                                       "(Allocation Failure) 8M->5M(30M) 43.329ms", &ev), 1);
        assert_gc_event(&ev, 422009844586, 43329000, JVM_GC_PAUSE, "Pause Young (Allocation Failure)", 0);
        assert_int_equal(ev.heap_before, 8388608);
        assert_int_equal(ev.heap_after, 5242880);
        assert_int_equal(ev.heap_capacity, 31457280);
        assert_int_equal(parse_one(&p, "[5000000000ns][77ns][info][safepoint] Safepoint \"Cleanup\", Total: 42 ns", &ev), 1);
        assert_gc_event(&ev, 4999999958, 42, JVM_GC_SAFEPOINT, "Cleanup", -1);
        assert_int_equal(ev.heap_before, -1);
        assert_int_equal(ev.heap_after, -1);
        assert_int_equal(ev.heap_capacity, -1);
}

/* ---- PrintFlagsFinal ---- */

static void parse_flags_fixture(const char *name, struct jvm_info *info) {
        char path[4096];
        fixture_path(path, sizeof path, name);
        jvm_info_init(info);
        assert_int_equal(jvm_flags_parse_path(path, info), 0);
        assert_true(info->flags_table_found);
}

static void test_flags_fixtures(void **state) {
        struct jvm_info q, nocs;

        /* captured under a v1 cpu cgroup with quota = 1 CPU on a 2-CPU host */
        parse_flags_fixture("flags-quota1.txt", &q);
        assert_true(q.has_ci_compiler_count && q.ci_compiler_count == 2);
        assert_true(q.has_parallel_gc_threads && q.parallel_gc_threads == 0);
        assert_true(q.has_conc_gc_threads && q.conc_gc_threads == 0);
        assert_true(q.has_max_heap_size && q.max_heap_size == INT64_C(6320816128));
        assert_true(q.has_use_container_support && q.use_container_support);
        assert_string_equal(q.gc, "SerialGC");
        assert_false(q.has_active_processor_count);   /* the flag (-1) is not the computed count */

        /* same slice, -XX:-UseContainerSupport: the JVM sees both CPUs */
        parse_flags_fixture("flags-nocs.txt", &nocs);
        assert_int_equal(nocs.parallel_gc_threads, 2);
        assert_int_equal(nocs.conc_gc_threads, 1);
        assert_true(nocs.has_use_container_support && !nocs.use_container_support);
        assert_string_equal(nocs.gc, "G1GC");

        struct jvm_gclog_info gc = { .collector = "G1GC", .version = "17.0.15+6-Debian-1deb12u1",
                                     .has_cpus = true, .cpus_total = 2, .cpus_available = 1 };
        jvm_info_apply_gclog(&q, &gc);
        assert_true(q.has_active_processor_count && q.active_processor_count == 1);
        assert_string_equal(q.gc, "SerialGC");   /* PrintFlagsFinal wins */
        _cleanup_free_ char *js = json_string(jvm_info_to_json(&q));
        assert_string_equal(js, "{\"CICompilerCount\":2,\"ParallelGCThreads\":0,\"ConcGCThreads\":0,\"ActiveProcessorCount\":1,"
                                "\"MaxHeapSize\":6320816128,\"UseContainerSupport\":true,\"gc\":\"SerialGC\","
                                "\"java_version\":\"17.0.15+6-Debian-1deb12u1\"}");
}

static void parse_flags_text(const char *text, struct jvm_info *info) {
        FILE *f = fmemopen((void *) text, strlen(text), "r");
        assert_non_null(f);
        jvm_info_init(info);
        assert_int_equal(jvm_flags_parse_file(f, info), 0);
        fclose(f);
}

static void test_flags_hostile(void **state) {
        struct jvm_info info;

        /* no table at all (a JVM without -XX:+PrintFlagsFinal, or not a JVM): all null, no error */
        parse_flags_text("hello\n     intx CICompilerCount = 9 {product} {ergonomic}\n", &info);
        assert_false(info.flags_table_found);
        assert_false(info.has_ci_compiler_count);
        _cleanup_free_ char *js = json_string(jvm_info_to_json(&info));
        assert_string_equal(js, "{\"CICompilerCount\":null,\"ParallelGCThreads\":null,\"ConcGCThreads\":null,"
                                "\"ActiveProcessorCount\":null,\"MaxHeapSize\":null,\"UseContainerSupport\":null,"
                                "\"gc\":null,\"java_version\":null}");

        /* the application's output after the table cannot override it */
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        assert_non_null(m);
        fputs("[Global flags]\n", m);
        fputs("     intx CICompilerCount                          = 3                                         {product} {ergonomic}\n", m);
        fprintf(m, "    ccstr ErrorFile                                = /tmp/%0*d {product} {command line}\n", 2 * JVM_LINE_MAX, 7);
        fputs("   size_t MaxHeapSize                              = 99999999999999999999999                   {product} {ergonomic}\n", m);
        fputs("     uint ParallelGCThreads                        = four                                      {product} {default}\n", m);
        fputs("     bool UseContainerSupport                      = maybe                                     {product} {default}\n", m);
        fputs("     uint ConcGCThreads                            = 1\n", m);   /* no {}: not a flag line, ends the table */
        fputs("     bool UseZGC                                   = true                                      {product} {default}\n", m);
        fputs("     intx CICompilerCount                          = 99                                        {product} {ergonomic}\n", m);
        fclose(m);
        parse_flags_text(text, &info);
        assert_true(info.flags_table_found);
        assert_true(info.has_ci_compiler_count && info.ci_compiler_count == 3);
        assert_false(info.has_max_heap_size);
        assert_false(info.has_parallel_gc_threads);
        assert_false(info.has_use_container_support);
        assert_false(info.has_conc_gc_threads);
        assert_null(info.gc);

        /* JDK 8's shape: ":=" and a single {} group */
        parse_flags_text("[Global flags]\n"
                         "    uintx ParallelGCThreads                        := 8                                   {product}\n"
                         "     bool UseParallelGC                            := true                                {product}\n", &info);
        assert_int_equal(info.parallel_gc_threads, 8);
        assert_string_equal(info.gc, "ParallelGC");

        /* read errors leave *info untouched */
        FILE *wo = fopen("/dev/null", "we");
        assert_non_null(wo);
        jvm_info_init(&info);
        info.ci_compiler_count = 42;
        assert_int_equal(jvm_flags_parse_file(wo, &info), -EIO);   /* write-only: reading fails */
        assert_int_equal(info.ci_compiler_count, 42);
        fclose(wo);
        assert_int_equal(jvm_flags_parse_path("/nonexistent/stdout", &info), -ENOENT);
}

/* ---- hsperfdata ---- */

struct image_writer {
        uint8_t buf[4096];
        size_t len;
        bool little;
        size_t n_entries;
};

static void put_int(struct image_writer *w, size_t off, uint64_t v, size_t width) {
        for (size_t i = 0; i < width; i++) {
                size_t shift = w->little ? 8 * i : 8 * (width - 1 - i);
                w->buf[off + i] = (uint8_t) (v >> shift);
        }
}

static void image_begin(struct image_writer *w, bool little) {
        memset(w, 0, sizeof *w);
        w->little = little;
        memcpy(w->buf, "\xca\xfe\xc0\xc0", 4);
        w->buf[4] = little ? 1 : 0;
        w->buf[5] = 2;
        w->buf[6] = 0;
        w->buf[7] = 1;
        put_int(w, 24, 32, 4);
        w->len = 32;
}

static void image_add(struct image_writer *w, const char *name, char type, const void *data, size_t data_len, size_t vector) {
        size_t off = w->len, name_off = 20, name_len = strlen(name) + 1;
        size_t data_off = (name_off + name_len + 7) & ~(size_t) 7;
        size_t entry_len = (data_off + data_len + 7) & ~(size_t) 7;
        assert_true(off + entry_len <= sizeof w->buf);
        put_int(w, off, entry_len, 4);
        put_int(w, off + 4, name_off, 4);
        put_int(w, off + 8, vector, 4);
        w->buf[off + 12] = (uint8_t) type;
        put_int(w, off + 16, data_off, 4);
        memcpy(w->buf + off + name_off, name, name_len);
        memcpy(w->buf + off + data_off, data, data_len);
        w->len += entry_len;
        w->n_entries++;
}

static void image_add_long(struct image_writer *w, const char *name, int64_t v) {
        uint8_t b[8];
        struct image_writer tmp = { .little = w->little };
        put_int(&tmp, 0, (uint64_t) v, 8);
        memcpy(b, tmp.buf, 8);
        image_add(w, name, 'J', b, 8, 0);
}

static void image_end(struct image_writer *w) {
        put_int(w, 8, w->len, 4);
        put_int(w, 28, w->n_entries, 4);
}

static void build_image(struct image_writer *w, bool little) {
        image_begin(w, little);
        image_add_long(w, "sun.rt._sync_Inflations", 4);
        image_add_long(w, "sun.os.hrt.frequency", 1000000000);
        image_add_long(w, "java.ci.totalTime", 2500000000);
        image_add_long(w, "sun.gc.collector.0.time", 30000000);
        image_add_long(w, "sun.gc.collector.0.invocations", 12);
        image_add(w, "sun.gc.collector.0.name", 'B', "PSScavenge\0\0\0\0\0\0", 16, 16);
        image_add_long(w, "sun.gc.collector.1.time", 70000000);
        image_add_long(w, "sun.gc.collector.9.time", 5);   /* beyond the collectors we keep */
        image_add_long(w, "sun.rt.safepointTime", 123);
        image_end(w);
}

static void test_hsperf_parse(void **state) {
        for (int little = 0; little <= 1; little++) {
                struct image_writer w;
                struct jvm_hsperf_sample s;
                int64_t ns;
                build_image(&w, little);
                assert_int_equal(jvm_hsperf_parse(w.buf, w.len, &s), 0);
                assert_true(s.has_frequency && s.frequency == 1000000000);
                assert_true(s.has_compile_ticks && s.compile_ticks == 2500000000);
                assert_true(s.has_safepoint_ticks && s.safepoint_ticks == 123);
                assert_int_equal(s.n_collectors, 2);
                assert_string_equal(s.collectors[0].name, "PSScavenge");
                assert_int_equal(s.collectors[0].invocations, 12);
                assert_int_equal(jvm_hsperf_compile_time_ns(&s, &ns), 0);
                assert_int_equal(ns, 2500000000);
                assert_int_equal(jvm_hsperf_gc_time_ns(&s, &ns), 0);
                assert_int_equal(ns, 100000000);
        }

        /* another tick frequency */
        struct jvm_hsperf_sample s = { .has_frequency = true, .frequency = 3000000 };
        int64_t ns;
        assert_int_equal(jvm_hsperf_ticks_to_ns(&s, 4500000, &ns), 0);
        assert_int_equal(ns, 1500000000);
        assert_int_equal(jvm_hsperf_ticks_to_ns(&s, INT64_C(3000000) * 9000000000, &ns), 0);   /* 285 years: no overflow */
        assert_int_equal(ns, INT64_C(9000000000) * 1000000000);
        assert_int_equal(jvm_hsperf_ticks_to_ns(&s, INT64_MAX / 2, &ns), -ERANGE);
        assert_int_equal(jvm_hsperf_ticks_to_ns(&s, -1, &ns), -ERANGE);
        s.has_frequency = false;
        assert_int_equal(jvm_hsperf_ticks_to_ns(&s, 1, &ns), -ENODATA);
        assert_int_equal(jvm_hsperf_gc_time_ns(&s, &ns), -ENODATA);
}

static void test_hsperf_hostile(void **state) {
        struct image_writer w;
        struct jvm_hsperf_sample s = { .frequency = 77 };
        uint8_t copy[sizeof w.buf];

        build_image(&w, true);
        memcpy(copy, w.buf, w.len);
        copy[0] = 0;
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EBADMSG);
        memcpy(copy, w.buf, w.len);
        copy[7] = 0;
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EAGAIN);
        memcpy(copy, w.buf, w.len);
        copy[5] = 1;
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EPROTONOSUPPORT);
        memcpy(copy, w.buf, w.len);
        copy[4] = 7;
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EBADMSG);
        memcpy(copy, w.buf, w.len);
        copy[28] = 0xff;   /* num_entries beyond the data */
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EBADMSG);
        memcpy(copy, w.buf, w.len);
        copy[32] = 0xff, copy[33] = 0xff, copy[34] = 0xff, copy[35] = 0x7f;   /* entry_length huge */
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EBADMSG);
        memcpy(copy, w.buf, w.len);
        copy[32] = 4, copy[33] = 0, copy[34] = 0, copy[35] = 0;   /* entry_length below the header */
        assert_int_equal(jvm_hsperf_parse(copy, w.len, &s), -EBADMSG);
        assert_int_equal(jvm_hsperf_parse(NULL, 0, &s), -EBADMSG);
        assert_int_equal(s.frequency, 77);   /* untouched by every failure */

        /* Every truncation and every single-byte change either parses or fails cleanly (ASan
         * and UBSan watch the reads). */
        for (size_t len = 0; len <= w.len; len++) {
                int r = jvm_hsperf_parse(w.buf, len, &s);
                assert_true(r == 0 || r == -EBADMSG);
        }
        for (size_t i = 0; i < w.len; i++)
                for (int v = 0; v < 256; v += 51) {
                        memcpy(copy, w.buf, w.len);
                        copy[i] = (uint8_t) (copy[i] ^ (v | 1));
                        int r = jvm_hsperf_parse(copy, w.len, &s);
                        assert_true(r == 0 || r == -EBADMSG || r == -EAGAIN || r == -EPROTONOSUPPORT);
                }
}

static void test_hsperf_files(void **state) {
        char path[4096], link[4096], fifo[4096];
        struct image_writer w;
        struct jvm_hsperf_sample s;
        int fd;

        _cleanup_tmp_dir_ char *dir = tmp_dir_new("hsperf");
        tmp_path(path, sizeof path, dir, "saved");
        tmp_path(link, sizeof link, dir, "link");
        tmp_path(fifo, sizeof fifo, dir, "fifo");
        build_image(&w, true);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fwrite(w.buf, 1, w.len, f), w.len);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(symlink(path, link), 0);
        assert_int_equal(mkfifo(fifo, 0600), 0);

        assert_int_equal(jvm_hsperf_open_path(path, &fd), 0);
        assert_int_equal(jvm_hsperf_read(fd, &s), 0);
        assert_int_equal(s.compile_ticks, 2500000000);
        assert_true(s.sampled_ns > 0);
        close(fd);
        assert_int_equal(jvm_hsperf_open_path(link, &fd), -ELOOP);
        assert_int_equal(jvm_hsperf_open_path(fifo, &fd), -EPERM);   /* never blocks on a FIFO */
        assert_int_equal(jvm_hsperf_open_path("/nonexistent", &fd), -ENOENT);
        /* a process that is not a JVM has no counters */
        assert_int_equal(jvm_hsperf_open(getpid(), &fd), -ENOENT);
        assert_int_equal(jvm_hsperf_open(0, &fd), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_gclog_fixtures),
                cmocka_unit_test(test_gclog_fixture_values),
                cmocka_unit_test(test_gclog_lines),
                cmocka_unit_test(test_gclog_hostile_lines),
                cmocka_unit_test(test_gclog_stream),
                cmocka_unit_test(test_gclog_load_limits),
                cmocka_unit_test(test_summary),
                cmocka_unit_test(test_gc_event_fields),
                cmocka_unit_test(test_flags_fixtures),
                cmocka_unit_test(test_flags_hostile),
                cmocka_unit_test(test_gclog_load_rotated),
                cmocka_unit_test(test_hsperf_parse),
                cmocka_unit_test(test_hsperf_hostile),
                cmocka_unit_test(test_hsperf_files),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
