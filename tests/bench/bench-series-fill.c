/* bench-series-fill.c: a store holding a series for tests/bench/series.sh: N finished experiments
 * labelled app=bench, each one cell B of 3 succeeded runs whose throughput_rps is a level times 2%
 * CoV normal noise, the level moving by +5% at N/4, -10% at N/2 and +10% at 3N/4.
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
#include "tests/unit/synthetic-series.h"

#define ITERATIONS 3

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
                char metrics[128];
                snprintf(metrics, sizeof metrics, "{\"throughput_rps\":%.3f}", values[i]);
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
