/* fill-store: puts N finished experiments into a state dir's database through the storage
 * library, as the daemon stores them (the definition parsed and canonical, its cells and runs,
 * each run finished succeeded with metrics, an Idempotency-Key as the client sends), for benches
 * of a store that has held years.
 * Experiment i has labels app=app-(i % 10) and seq=i; its two cells run once each.
 * Usage: fill-store DB N */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "definition/definition.h"
#include "storage/db.h"
#include "storage/experiments.h"
#include "storage/runs.h"

#define CELLS 2

static const char metrics[] =
        "{\"throughput_rps\":1000,\"requests\":10000,\"errors\":0,"
        "\"latency_us\":{\"scheduled\":{\"p50\":800,\"p99\":2000,\"p999\":4000,\"max\":5000}}}";

/* The canonical JSON of each cell, as the daemon stores them beside the definition. */
static int cell_texts(const struct definition *d, char *ret[static CELLS]) {
        _cleanup_json_ cJSON *root = cJSON_Parse(d->canonical);
        const cJSON *cells = cJSON_GetObjectItemCaseSensitive(root, "cells");
        for (int i = 0; i < CELLS; i++)
                if (!(ret[i] = cJSON_PrintUnformatted(cJSON_GetArrayItem(cells, i))))
                        return -ENOMEM;
        return 0;
}

static int fill_one(struct db_conn *c, long i) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"name\":\"fill-%ld\",\"labels\":{\"app\":\"app-%ld\",\"seq\":\"%ld\"},"
                 "\"sut\":{\"command\":[\"/bin/true\"]},\"cells\":[{\"name\":\"a\",\"cpus\":\"0\"},"
                 "{\"name\":\"b\",\"cpus\":\"0\"}]}", i, i % 10, i);
        struct error err = { 0 };
        _cleanup_(definition_freep) struct definition *d = NULL;
        int r = definition_parse(text, strlen(text), NULL, &d, &err);
        if (r < 0) {
                fprintf(stderr, "fill-store: definition: %s\n", err.message);
                return r;
        }
        char *cells[CELLS] = { 0 };
        const char *names[CELLS] = { "a", "b" };
        const size_t run_cell[CELLS] = { 0, 1 };
        const unsigned run_iteration[CELLS] = { 0, 0 };
        struct experiment_new e = {
                .name = d->name, .definition_json = d->canonical, .order = "interleaved",
                .warnings_json = "[]", .n_cells = CELLS, .cell_names = names,
                .cell_json = (const char *const *) cells, .n_runs = CELLS,
                .run_cell = run_cell, .run_iteration = run_iteration,
        };
        char id[ID_LEN + 1], key[32];
        bool existing;
        snprintf(key, sizeof key, "fill-%ld", i);
        e.idempotency_key = key;        /* as slicelab submit sends one */
        struct queued_run *q = NULL;
        size_t n = 0;
        r = cell_texts(d, cells);
        if (r >= 0)
                r = experiments_create(c, &e, id, &existing, &err);
        /* The queue holds only this experiment's runs: every earlier one is finished. */
        if (r >= 0)
                r = runs_next_queued(c, 0, CELLS, &q, &n);
        for (size_t k = 0; r >= 0 && k < n; k++)
                r = runs_finish(c, q[k].id, id, "succeeded", NULL, NULL, "{\"sut\":0,\"load\":0}", metrics, "[]");
        queued_runs_free(q, n);
        for (int k = 0; k < CELLS; k++)
                cJSON_free(cells[k]);
        return r;
}

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "Usage: fill-store DB N\n");
                return 2;
        }
        long n = strtol(argv[2], NULL, 10);
        struct storage *s = NULL;
        struct error err = { 0 };
        int r = storage_open(argv[1], &s, &err);
        if (r < 0) {
                fprintf(stderr, "fill-store: %s\n", err.message);
                return 1;
        }
        struct db_conn *c = NULL;
        r = storage_acquire(s, &c);
        /* A bench's scratch store: no fsync per checkpoint (a crash only loses the fill). */
        if (r >= 0)
                r = db_exec(db_handle(c), "PRAGMA synchronous=OFF");
        for (long i = 0; r >= 0 && i < n; i++)
                r = fill_one(c, i);
        if (c)
                storage_release(s, c);
        storage_close(s);
        if (r < 0) {
                fprintf(stderr, "fill-store: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}
