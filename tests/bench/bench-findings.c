/* bench-findings.c: how long findings take for an experiment of 30 runs (2 cells x 15) with
 * 1 M stored requests each: a store is filled once (timelines, GC events, samples, metrics),
 * then findings_load() (which streams every timeline block by block against its pauses) and
 * findings_compute() are timed, best of 3. Prints figures; asserts nothing.
 * Usage: bench-findings DIR [RECORDS_PER_RUN] */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/error.h"
#include "basic/json-util.h"
#include "basic/time-util.h"
#include "findings/findings-load.h"
#include "storage/db.h"
#include "storage/experiments.h"
#include "storage/run-state.h"
#include "storage/runs.h"
#include "storage/samples-store.h"
#include "storage/timeline-store.h"

#define RUNS 30
#define PAUSES 400

static void die(const char *what, int r) {
        fprintf(stderr, "bench-findings: %s: %s\n", what, strerror(-r));
        exit(1);
}

static void fill_run(struct db_conn *c, const char *exp, const char *run, size_t n, struct timeline_record *rec,
                     unsigned seed) {
        const int64_t start = INT64_C(1000000000000), step = NSEC_PER_SEC / 6000; /* 6000 req/s */
        for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                int64_t s = start + (int64_t) i * step, lat = 200000 + (int64_t) (seed % 800000);
                if (seed % 97 == 0)
                        lat *= 20;
                rec[i] = (struct timeline_record){ .scheduled_ns = s, .submit_ns = s, .done_ns = s + lat, .status = 200 };
        }
        int r = requests_store(c, run, rec, n);
        if (r < 0)
                die("requests_store", r);
        struct gc_event_row gc[PAUSES];
        int64_t span = (int64_t) n * step;
        for (int i = 0; i < PAUSES; i++)
                gc[i] = (struct gc_event_row){ .start_ns = start + span / PAUSES * i, .duration_ns = 3000000, .kind = "pause",
                                               .cause = "Allocation Failure", .heap_before = -1, .heap_after = -1,
                                               .heap_capacity = -1, .gc_id = i };
        if ((r = gc_events_store(c, run, gc, PAUSES)) < 0)
                die("gc_events_store", r);
        int64_t secs = span / NSEC_PER_SEC, *t_ms = calloc((size_t) secs + 1, sizeof *t_ms);
        char **rows = calloc((size_t) secs + 1, sizeof *rows);
        for (int64_t i = 0; i < secs; i++) {
                t_ms[i] = i * 1000;
                if (asprintf(&rows[i], "{\"t_ms\":%" PRId64 ",\"nr_periods\":10,\"nr_throttled\":%d}", i * 1000, (int) (i % 3 == 0)) < 0)
                        die("asprintf", -ENOMEM);
        }
        if ((r = samples_save(c, run, t_ms, rows, (size_t) secs)) < 0)
                die("samples_save", r);
        for (int64_t i = 0; i < secs; i++)
                free(rows[i]);
        free(rows);
        free(t_ms);
        char metrics[1024];
        snprintf(metrics, sizeof metrics,
                 "{\"throughput_rps\":%u,\"latency_us\":{\"scheduled\":{\"p50\":600,\"p99\":%u,\"p999\":9000}},"
                 "\"gc\":{\"pauses\":%d,\"pause_total_ms\":%d,\"pause_max_ms\":3,\"pause_p99_ms\":3},"
                 "\"cgroup\":{\"nr_periods\":100,\"nr_throttled\":33,\"throttled_s\":1.5},\"measure_start_ns\":%" PRId64 "}",
                 6000 - seed % 50, 4000 + seed % 500, PAUSES, PAUSES * 3, start);
        if ((r = runs_set_measure_start(c, run, start)) < 0 ||
            (r = runs_finish(c, run, exp, "succeeded", NULL, NULL, "{}", metrics, "[]")) < 0)
                die("runs_finish", r);
}

int main(int argc, char **argv) {
        json_setup();
        if (argc < 2) {
                fprintf(stderr, "usage: bench-findings DIR [RECORDS_PER_RUN]\n");
                return 2;
        }
        size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
        char path[4096];
        snprintf(path, sizeof path, "%s/bench.db", argv[1]);
        struct storage *s = NULL;
        struct error err = { 0 };
        int r = storage_open(path, &s, &err);
        if (r < 0)
                die("storage_open", r);
        struct db_conn *c;
        if ((r = storage_acquire(s, &c)) < 0)
                die("storage_acquire", r);

        const char *names[] = { "a", "b" }, *cells[] = { "{\"name\":\"a\",\"cpus\":\"1\"}", "{\"name\":\"b\",\"cpus\":\"1\"}" };
        size_t run_cell[RUNS];
        unsigned run_iter[RUNS];
        for (int i = 0; i < RUNS; i++) {
                run_cell[i] = (size_t) (i % 2);
                run_iter[i] = (unsigned) (i / 2);
        }
        struct experiment_new e = {
                .name = "bench", .definition_json = "{\"name\":\"bench\",\"cells\":[{\"name\":\"a\",\"cpus\":\"1\"},{\"name\":\"b\",\"cpus\":\"1\"}],\"load\":{\"measure_s\":166}}",
                .order = "interleaved", .warnings_json = "[]", .n_cells = 2, .cell_names = names, .cell_json = cells,
                .n_runs = RUNS, .run_cell = run_cell, .run_iteration = run_iter,
        };
        char id[ID_LEN + 1];
        bool existing;
        if ((r = experiments_create(c, &e, id, &existing, &err)) < 0)
                die("experiments_create", r);
        cJSON *runs = NULL;
        int64_t next;
        if ((r = experiments_runs_json(c, id, 0, RUNS, &runs, &next)) < 0)
                die("experiments_runs_json", r);
        struct timeline_record *rec = malloc(n * sizeof *rec);
        int64_t t0 = now_mono_ns();
        for (int i = 0; i < RUNS; i++)
                fill_run(c, id, cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, i), "id")), n, rec, (unsigned) i + 1);
        printf("store filled: %d runs x %zu records in %.1f s\n", RUNS, n, seconds_from_ns(now_mono_ns() - t0));
        free(rec);
        cJSON_Delete(runs);

        double best = 1e9;
        size_t count = 0;
        uint64_t tail = 0, in_pause = 0;
        for (int k = 0; k < 3; k++) {
                int64_t t = now_mono_ns();
                struct findings_loaded *l = NULL;
                if ((r = findings_load(c, NULL, id, NULL, &l)) < 0)
                        die("findings_load", r);
                const struct findings_input *in = findings_loaded_input(l);
                cJSON *f = findings_compute(in);
                double secs = seconds_from_ns(now_mono_ns() - t);
                tail = in_pause = 0;
                for (size_t ci = 0; ci < in->n_cells; ci++)
                        for (size_t ri = 0; ri < in->cells[ci].n_runs; ri++) {
                                tail += in->cells[ci].runs[ri].tail.tail;
                                in_pause += in->cells[ci].runs[ri].tail.in_pause;
                        }
                count = (size_t) cJSON_GetArraySize(f);
                cJSON_Delete(f);
                findings_loaded_free(l);
                best = secs < best ? secs : best;
        }
        printf("findings: %d runs x %zu records (%zu findings; %" PRIu64 " tail requests scanned, %" PRIu64 " in a pause) in %.3f s (best of 3; goal <= 2 s), %.1f M records/s\n",
               RUNS, n, count, tail, in_pause, best, (double) RUNS * (double) n / best / 1e6);
        storage_release(s, c);
        storage_close(s);
        return 0;
}
