/* collect-worker.c: collect_run() on its own thread (daemon/loop-thread.h). */
#include "daemon/collect-worker.h"

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "daemon/loop-thread.h"
#include "storage/db.h"

struct collect_worker {
        struct collect_input in;
        struct storage *storage;
        struct db_conn *db;
        bool owns_db;                   /* taken from the pool by the thread: released at the end */
        atomic_bool cancel;
        struct loop_thread *thread;
        int result;
        cJSON *metrics, *warnings;
        char why[512];
        collect_worker_done_fn done;
        void *userdata;
};

/* Any statement of the worker's connection, the ingest's BEGIN and inserts included, stops with
 * SQLITE_INTERRUPT once the run is cancelled: its transaction rolls back. */
static int on_progress(void *userdata) {
        struct collect_worker *w = userdata;
        return atomic_load(&w->cancel);
}

static void worker_main(struct loop_thread *t, void *userdata) {
        struct collect_worker *w = userdata;
        /* Taken here, not on the loop: a pool that API streams hold waits this thread only. */
        if (!w->db) {
                w->result = storage_acquire(w->storage, &w->db);
                w->owns_db = w->result >= 0;
        }
        if (w->db) {
                w->in.db = w->db;
                sqlite3_progress_handler(db_handle(w->db), 1000, on_progress, w);
                w->result = collect_run(&w->in, &w->metrics, w->warnings, w->why, sizeof w->why);
                sqlite3_progress_handler(db_handle(w->db), 0, NULL, NULL);
        } else
                snprintf(w->why, sizeof w->why, "no database connection for collecting: %s", strerror(-w->result));
}

static void on_report(struct loop_thread *t, unsigned events, bool finished, void *userdata) {
        struct collect_worker *w = userdata;
        if (finished)
                w->done(w, w->userdata);
}

int collect_worker_start(sd_event *e, struct storage *storage, struct db_conn *db, const struct collect_input *in,
                         collect_worker_done_fn done, void *userdata, struct collect_worker **ret) {
        struct collect_worker *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        *w = (struct collect_worker){ .in = *in, .storage = storage, .db = db, .done = done, .userdata = userdata };
        atomic_init(&w->cancel, false);
        w->in.cancel = &w->cancel;
        w->warnings = cJSON_CreateArray();
        int r = w->warnings ? 0 : -ENOMEM;
        if (r >= 0)
                r = loop_thread_new(e, on_report, w, &w->thread);
        if (r >= 0)
                r = loop_thread_start(w->thread, worker_main);
        if (r < 0) {
                collect_worker_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

void collect_worker_cancel(struct collect_worker *w) {
        atomic_store(&w->cancel, true);
}

void collect_worker_wait(struct collect_worker *w) {
        loop_thread_join(w->thread);
}

int collect_worker_result(struct collect_worker *w, cJSON **ret_metrics, cJSON *warnings, char *why, size_t why_size) {
        cJSON *item;
        while ((item = cJSON_DetachItemFromArray(w->warnings, 0)))
                cJSON_AddItemToArray(warnings, item);
        snprintf(why, why_size, "%s", w->why);
        if (w->result >= 0)
                *ret_metrics = TAKE_PTR(w->metrics);
        return w->result;
}

struct collect_worker *collect_worker_free(struct collect_worker *w) {
        if (!w)
                return NULL;
        if (w->thread) {
                collect_worker_cancel(w);
                w->thread = loop_thread_free(w->thread);
        }
        if (w->owns_db)
                storage_release(w->storage, w->db);
        cJSON_Delete(w->metrics);
        cJSON_Delete(w->warnings);
        free(w);
        return NULL;
}
