/* bench-series-fill.c: a store holding a series for tests/bench/series.sh: N finished experiments
 * labelled app=bench, each one cell B of 3 succeeded runs whose throughput_rps is a level times 2%
 * CoV normal noise, the level moving by +5% at N/4, -10% at N/2 and +10% at 3N/4. Each run's
 * metrics have the shape and size of a real run's (about 1.5 KB: latencies, cgroup, load, GC, JVM,
 * JIT), so that reading the series costs what it costs on a lab's store.
 * Usage: bench-series-fill DB_PATH [N] */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/error.h"
#include "basic/json-util.h"
#include "storage/db.h"
#include "storage/experiments.h"
#include "storage/runs.h"
#include "tests/lib/synthetic-series.h"

#define ITERATIONS 3

/* A real run's metrics (sut.jar under a 1-CPU limit), throughput_rps first, filled in per run. */
static const char metrics_format[] =
        "{\"throughput_rps\":%.3f,\"ops_per_s\":null,\"requests\":60000,\"errors\":0,\"errors_by_kind\":{},"
        "\"latency_us\":{\"scheduled\":{\"p50\":1554.223,\"p90\":1988.985,\"p99\":2128.436,\"p999\":2152.969,"
        "\"p9999\":2152.969,\"max\":2152.969},\"submit\":{\"p50\":116.105,\"p90\":319.145,\"p99\":3432.426,"
        "\"p999\":4276.782,\"p9999\":4276.782,\"max\":4276.782},\"lag\":{\"p50\":15.226,\"p90\":19.948,"
        "\"p99\":21.261,\"p999\":214.537,\"p9999\":214.537,\"max\":214.537}},\"measure_start_ns\":5826675130216,"
        "\"cgroup\":{\"cpu_usage_s\":0.952049254,\"nr_periods\":300,\"nr_throttled\":12,\"throttled_s\":0.31,"
        "\"memory_peak_bytes\":69099520,\"oom_kills\":0,\"swap_bytes\":0,\"swap_peak_bytes\":null},"
        "\"load\":{\"cpu_usage_s\":2.1,\"nr_throttled\":0,\"saturated\":false,\"late\":{\"threshold_us\":1000,"
        "\"requests\":8,\"server\":6,\"stalled\":1,\"injector\":0,\"stalls\":2,\"stalls_ms\":3.9,"
        "\"stall_max_ms\":2.7}},\"gc\":{\"pauses\":3,\"pause_total_ms\":34.885,\"pause_max_ms\":13.574,"
        "\"pause_p99_ms\":13.574,\"safepoint_total_ms\":68.950141},\"jvm\":{\"CICompilerCount\":2,"
        "\"ParallelGCThreads\":0,\"ConcGCThreads\":0,\"ActiveProcessorCount\":1,\"MaxHeapSize\":134217728,"
        "\"UseContainerSupport\":true,\"gc\":\"SerialGC\",\"java_version\":\"17.0.21.1+2-1-deb12u1-Debian\"},"
        "\"jit\":{\"compile_time_s\":6.69527637,\"compile_time_measure_s\":4.538956673},"
        "\"cpu\":{\"governor\":{\"0\":null,\"1\":null},\"freq_mhz\":{\"0\":null,\"1\":null},"
        "\"other_busy_s\":4.447950746,\"other_busy_share\":0.8248169940162816},\"energy\":null,"
        "\"host_swap_bytes\":0,\"capacity\":null}";

static void die(const char *what, int r) {
        fprintf(stderr, "bench-series-fill: %s: %s\n", what, strerror(-r));
        exit(1);
}

static void add_experiment(struct db_conn *c, const double *values) {
        static const char *const names[] = { "B" }, *const cells[] = { "{\"name\":\"B\"}" };
        static const size_t run_cell[ITERATIONS] = { 0 };
        static const unsigned run_iter[ITERATIONS] = { 0, 1, 2 };
        const struct experiment_new e = {
                .name = "bench", .order = "sequential", .warnings_json = "[]", .n_cells = 1, .cell_names = names,
                .cell_json = cells, .n_runs = ITERATIONS, .run_cell = run_cell, .run_iteration = run_iter,
                .definition_json = "{\"name\":\"bench\",\"labels\":{\"app\":\"bench\"},\"iterations\":3,"
                                   "\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"B\"}]}",
        };
        char id[ID_LEN + 1];
        bool existing;
        struct error err = { 0 };
        int r = experiments_create(c, &e, id, &existing, &err);
        if (r < 0)
                die("experiments_create", r);
        cJSON *runs = NULL;
        int64_t next;
        if ((r = experiments_runs_json(c, id, 0, ITERATIONS, &runs, &next)) < 0)
                die("experiments_runs_json", r);
        for (int i = 0; i < ITERATIONS; i++) {
                char metrics[sizeof metrics_format + 32];
                snprintf(metrics, sizeof metrics, metrics_format, values[i]);
                const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, i), "id"));
                if ((r = runs_finish(c, run, id, "succeeded", NULL, NULL, "{}", metrics, "[]")) < 0)
                        die("runs_finish", r);
        }
        cJSON_Delete(runs);
}

int main(int argc, char **argv) {
        json_setup();
        if (argc < 2) {
                fprintf(stderr, "usage: bench-series-fill DB_PATH [N]\n");
                return 2;
        }
        size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
        struct storage *s = NULL;
        struct error err = { 0 };
        struct db_conn *c;
        int r = storage_open(argv[1], &s, &err);
        if (r < 0)
                die("storage_open", r);
        if ((r = storage_acquire(s, &c)) < 0)
                die("storage_acquire", r);
        const struct synthetic_shift shifts[] = { { n / 4 * ITERATIONS, 1.05 }, { n / 2 * ITERATIONS, 0.90 },
                                                  { 3 * n / 4 * ITERATIONS, 1.10 } };
        double *values = malloc(n * ITERATIONS * sizeof *values);
        if (!values)
                die("malloc", -ENOMEM);
        synthetic_series(values, n * ITERATIONS, 6000, 0.02, shifts, 3, 1);
        for (size_t i = 0; i < n; i++)
                add_experiment(c, values + i * ITERATIONS);
        free(values);
        storage_release(s, c);
        storage_close(s);
        return 0;
}
