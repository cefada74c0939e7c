/* synth-timeline.c: writes a synthetic per-request timeline (timeline-format.h) as an external
 * injector would: N requests at RATE/s starting now, the first WARMUP of them flagged warmup,
 * latencies from a fixed pseudo-random sequence with a heavy tail, a few transport errors.
 * For tests of ingest, metrics, paging and streaming without running a real load; with
 * "ordered" the records are in scheduled order, as slicelab-inject writes them (the merge of
 * load hosts' timelines takes them so).
 *   synth-timeline OUT N RATE WARMUP [ordered] */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/timeline-format.h"

static uint64_t next(uint64_t *s) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        return *s >> 33;
}

int main(int argc, char **argv) {
        if (argc != 5 && !(argc == 6 && strcmp(argv[5], "ordered") == 0)) {
                fprintf(stderr, "usage: synth-timeline OUT N RATE WARMUP [ordered]\n");
                return 2;
        }
        bool ordered = argc == 6;
        size_t n = strtoull(argv[2], NULL, 10), warmup = strtoull(argv[4], NULL, 10);
        double rate = strtod(argv[3], NULL);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t t0 = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
        FILE *f = fopen(argv[1], "we");
        if (!f)
                return 1;
        struct timeline_header h = timeline_header_make(t0, t0 + (int64_t) ((double) warmup * 1e9 / rate));
        fwrite(&h, sizeof h, 1, f);
        uint64_t seed = 42;
        /* Completion order differs from schedule order: write in blocks, each reversed. */
        struct timeline_record block[1000];
        for (size_t base = 0; base < n; base += 1000) {
                size_t m = n - base < 1000 ? n - base : 1000;
                for (size_t i = 0; i < m; i++) {
                        size_t k = base + i;
                        int64_t sched = t0 + (int64_t) ((double) k * 1e9 / rate);
                        int64_t lag = (int64_t) (next(&seed) % 20000);
                        uint64_t u = next(&seed) % 1000;
                        int64_t lat = 100000 + (int64_t) (next(&seed) % 400000) + (u >= 990 ? (int64_t) (u - 989) * 5000000 : 0);
                        bool err = next(&seed) % 5000 == 0;
                        block[ordered ? i : m - 1 - i] = (struct timeline_record){
                                .scheduled_ns = sched, .submit_ns = sched + lag, .done_ns = sched + lag + lat,
                                .status = err ? 0 : 200, .error = err ? TIMELINE_ERR_TIMEOUT : 0, .bytes = 120,
                                .conn = (uint32_t) (k % 32), .flags = k < warmup ? TIMELINE_WARMUP : 0,
                        };
                }
                fwrite(block, sizeof block[0], m, f);
        }
        return fclose(f) == 0 ? 0 : 1;
}
