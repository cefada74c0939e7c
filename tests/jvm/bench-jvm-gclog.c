/* bench-jvm-gclog.c: how fast a GC log is ingested and summarised, to show the streaming
 * parser is linear and cheap next to the runs it measures. Prints figures, asserts nothing.
 * usage: bench-jvm-gclog [MEGABYTES] (default 64) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jvm/jvm-gclog.h"
#include "basic/macro.h"

static double seconds(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* One G1 young collection as HotSpot logs it with gc*,safepoint: the pause, its detail lines
 * (which the parser reads and ignores) and its safepoint. */
static int append_collection(char *buf, size_t size, int64_t t, int id) {
        return snprintf(buf, size,
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,start    ] GC(%d) Pause Young (Normal) (G1 Evacuation Pause)\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,task     ] GC(%d) Using 2 workers of 2 for evacuation\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,phases   ] GC(%d)   Pre Evacuate Collection Set: 0.1ms\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,phases   ] GC(%d)   Merge Heap Roots: 0.1ms\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,phases   ] GC(%d)   Evacuate Collection Set: 3.2ms\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,heap     ] GC(%d) Eden regions: 6->0(2)\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc          ] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) 6M->5M(32M) 3.421ms\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][gc,cpu      ] GC(%d) User=0.01s Sys=0.00s Real=0.00s\n"
                "[%" PRId64 "ns][%" PRId64 "ns][info][safepoint   ] Safepoint \"G1CollectForAllocation\", Time since last: 639149890 ns, "
                "Reaching safepoint: 8305 ns, Cleanup: 88388 ns, At safepoint: 3648396 ns, Total: 3745089 ns\n",
                t, t, id, t, t, id, t, t, id, t, t, id, t, t, id, t, t, id, t + 3421000, t, id, t + 3421000, t, id,
                t + 3500000, t);
}

static int count(const struct jvm_gc_event *ev, void *userdata) {
        (*(size_t *) userdata)++;
        return 0;
}

int main(int argc, char **argv) {
        size_t mb = argc > 1 ? (size_t) strtoul(argv[1], NULL, 10) : 64;
        size_t size = mb << 20, len = 0;
        char *buf = malloc(size + 4096);
        if (!buf)
                return 1;
        int64_t t = INT64_C(1000000000000);
        for (int id = 0; len + 4096 < size; id++, t += 50000000)
                len += (size_t) append_collection(buf + len, size + 4096 - len, t, id);

        FILE *f = fmemopen(buf, len, "r");
        if (!f)
                return 1;
        struct jvm_gclog_parser p;
        size_t events = 0;
        jvm_gclog_parser_init(&p);
        double t0 = seconds();
        if (jvm_gclog_parse_file(f, &p, count, &events) < 0)
                return 1;
        double parse = seconds() - t0;
        fclose(f);
        printf("gclog parse: %.1f MB, %" PRIu64 " lines, %zu events in %.3f s: %.0f lines/s, %.0f MB/s\n",
               (double) len / 1048576, p.lines, events, parse, (double) p.lines / parse, (double) len / 1048576 / parse);

        /* summarise: events as jvm_gclog_load would hold them */
        struct jvm_gc_event *ev = calloc(events, sizeof *ev);
        if (!ev)
                return 1;
        for (size_t i = 0; i < events; i++)
                ev[i] = (struct jvm_gc_event) { .kind = i % 2 ? JVM_GC_SAFEPOINT : JVM_GC_PAUSE,
                                                .start_ns = t - (int64_t) i * 1000, .duration_ns = (int64_t) ((i * 7919) % 100000) };
        struct jvm_gc_summary s;
        t0 = seconds();
        if (jvm_gc_summarize(ev, events, 0, INT64_MAX, &s) < 0)
                return 1;
        double sum = seconds() - t0;
        printf("gc summary: %zu events (%" PRIu64 " pauses) in %.3f ms\n", events, s.pauses, sum * 1e3);
        free(ev);
        free(buf);
        return 0;
}
