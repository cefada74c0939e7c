/* experiments.c: POST/GET/DELETE /v1/experiments and GET /v1/experiments/{id}/runs. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <sys/random.h>

#include "storage/db.h"
#include "definition/definition.h"
#include "definition/definition-policy.h"
#include "host/host-java.h"
#include "host/host-perf.h"
#include "storage/experiments.h"
#include "api/handlers.h"
#include "basic/capacity-search.h"
#include "api/report-sequential.h"
#include "api/verdict.h"
#include "basic/id.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/utf8.h"
#include "storage/runs.h"

#define IDEMPOTENCY_KEY_MAX 200

/* Printable ASCII without spaces, bounded; NULL when absent. */
static int idempotency_key(struct api_request *req, const char **ret, struct error *err) {
        const char *k = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, "Idempotency-Key");
        if (!k) {
                *ret = NULL;
                return 0;
        }
        size_t n = strlen(k);
        bool printable = n > 0 && n <= IDEMPOTENCY_KEY_MAX;
        for (size_t i = 0; printable && i < n; i++)
                printable = k[i] > 0x20 && k[i] < 0x7f;
        if (!printable)
                return error_set(err, 400, "invalid_header", "Idempotency-Key",
                                 "Idempotency-Key must be 1 to %d printable ASCII characters without spaces",
                                 IDEMPOTENCY_KEY_MAX);
        *ret = k;
        return 0;
}

static int cells_json(const struct definition *d, char ***ret) {
        _cleanup_json_ cJSON *root = cJSON_Parse(d->canonical);
        cJSON *cells = cJSON_GetObjectItemCaseSensitive(root, "cells");
        if (!cJSON_IsArray(cells) || (size_t) cJSON_GetArraySize(cells) != d->n_cells)
                return -EINVAL;
        char **out = calloc(d->n_cells + 1, sizeof *out);
        if (!out)
                return -ENOMEM;
        size_t i = 0;
        const cJSON *cell;
        cJSON_ArrayForEach(cell, cells) {
                out[i] = cJSON_PrintUnformatted(cell);
                if (!out[i++]) {
                        definition_strv_free(out);
                        return -ENOMEM;
                }
        }
        *ret = out;
        return 0;
}

static char *warnings_json(const struct definition *d) {
        _cleanup_json_ cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < d->n_warnings; i++)
                cJSON_AddItemToArray(a, cJSON_CreateString(d->warnings[i]));
        return cJSON_PrintUnformatted(a);
}

/* The seed of a random order: the client's, or a fresh one that is stored with the experiment.
 * Bounded to 53 bits so that it survives a round trip through any JSON parser. */
static int choose_seed(const struct definition *d, bool *has_seed, uint64_t *seed) {
        *has_seed = d->order == DEFINITION_ORDER_RANDOM;
        *seed = 0;
        if (!*has_seed)
                return 0;
        if (d->has_seed) {
                *seed = d->seed;
                return 0;
        }
        if (getrandom(seed, sizeof *seed, 0) != (ssize_t) sizeof *seed)
                return negative_errno();
        *seed &= DEFINITION_SEED_MAX;
        return 0;
}

/* {"id", "status", "runs", "warnings"} and the Location, read on the connection that stored it. */
/* The phases' seconds of one run: the load's warmup and measure (a capacity search's every
 * step, at most CAPACITY_STEPS_MAX, and its own warmup); 0 when the SUT decides (a benchmark without load). */
static double run_phases_s(const struct definition_load *l) {
        if (l->kind == DEFINITION_LOAD_NONE)
                return 0;
        double per = (double) l->warmup_s + (double) l->measure_s;
        return l->kind == DEFINITION_LOAD_INJECTOR && l->mode == DEFINITION_MODE_CAPACITY
                       ? per * CAPACITY_STEPS_MAX + (double) l->search_warmup_s
                       : per;
}

/* What the experiment costs, said before it runs: the runs a stop rule may end after and those
 * it may need, and the phases' time of each (not the JVM's start, readiness or collection). */
static cJSON *cost_json(const struct definition *d) {
        double most = (double) d->n_cells * d->iterations;
        double least = d->stop.enabled ? (double) d->n_cells * d->stop.min_rounds : most;
        double phases = run_phases_s(&d->load);
        cJSON *c = cJSON_CreateObject();
        cJSON_AddNumberToObject(c, "runs_least", least);
        cJSON_AddNumberToObject(c, "runs_most", most);
        if (phases > 0) {
                cJSON_AddNumberToObject(c, "run_phases_s", phases);
                cJSON_AddNumberToObject(c, "least_s", least * phases);
                cJSON_AddNumberToObject(c, "most_s", most * phases);
        } else {
                cJSON_AddNullToObject(c, "run_phases_s");
                cJSON_AddNullToObject(c, "least_s");
                cJSON_AddNullToObject(c, "most_s");
        }
        return c;
}

static enum MHD_Result reply_created(struct api_request *req, struct db_conn *c, unsigned status, const char *id,
                                     const struct definition *d) {
        cJSON *body = NULL;
        int r = experiments_created_json(c, id, &body);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        cJSON_AddItemToObject(body, "cost", cost_json(d));
        char location[64];
        snprintf(location, sizeof location, "/v1/experiments/%s", id);
        const char *const headers[] = { "Location", location, NULL };
        return api_reply_json_headers(req, status, body, headers);
}

/* Looked up at each submission (installing linux-perf or granting CAP_PERFMON needs no
 * restart of the checks); preflight looks again, and at the run user, which the API does not
 * know. */
static int check_profile(const struct api_config *config, const struct definition *d, struct error *err) {
        char perf[PATH_MAX], why[512];
        if (!d->profile.cpu)
                return 0;
        if (host_perf_find(config->perf, perf, sizeof perf) < 0) {
                error_set(err, 400, "not_on_host", "profile.cpu", "needs perf on this daemon (%s, not found): %s",
                          config->perf ? config->perf : "perf on its PATH", HOST_PERF_HINT);
                return -EINVAL;
        }
        if (host_perf_access(false, why, sizeof why) < 0) {
                error_set(err, 400, "not_on_host", "profile.cpu", "%s", why);
                return -EINVAL;
        }
        return 0;
}

int api_check_definition(const struct api_config *config, const char *body, size_t len, struct definition **ret,
                         struct error *err) {
        _cleanup_(definition_freep) struct definition *d = NULL;
        int r = definition_parse(body, len, &config->host, &d, err);
        if (r >= 0)
                r = definition_policy_check(d, config->policy, err);
        if (r >= 0)
                r = check_profile(config, d, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

int api_queue_experiment(struct db_conn *c, const struct api_config *config, const struct definition *d, const char *key,
                         char ret_id[ID_LEN + 1], bool *ret_existing, struct error *err) {
        bool has_seed;
        uint64_t seed;
        _cleanup_free_ struct planned_run *plan = NULL;
        size_t n_runs = 0;
        _cleanup_(definition_strv_freep) char **cells = NULL;
        _cleanup_free_ char *warnings = warnings_json(d);
        int r = choose_seed(d, &has_seed, &seed);
        if (r >= 0)
                r = definition_plan_runs(d, seed, &plan, &n_runs);
        if (r >= 0)
                r = cells_json(d, &cells);
        if (r >= 0 && !warnings)
                r = -ENOMEM;
        if (r < 0)
                return r;

        _cleanup_free_ const char **cell_names = calloc(d->n_cells, sizeof *cell_names);
        _cleanup_free_ size_t *run_cell = calloc(n_runs, sizeof *run_cell);
        _cleanup_free_ unsigned *run_iteration = calloc(n_runs, sizeof *run_iteration);
        if (!cell_names || !run_cell || !run_iteration)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_cells; i++)
                cell_names[i] = d->cells[i].name;
        for (size_t i = 0; i < n_runs; i++) {
                run_cell[i] = plan[i].cell;
                run_iteration[i] = plan[i].iteration;
        }
        struct experiment_new e = {
                .name = d->name,
                .definition_json = d->canonical,
                .order = definition_names_order(d->order),
                .has_seed = has_seed,
                .seed = seed,
                .warnings_json = warnings,
                .n_cells = d->n_cells,
                .cell_names = cell_names,
                .cell_json = (const char *const *) cells,
                .n_runs = n_runs,
                .run_cell = run_cell,
                .run_iteration = run_iteration,
                .idempotency_key = key,
                .queue_max = config->queue_max,
        };
        bool existing = false;
        r = experiments_create(c, &e, ret_id, &existing, err);
        if (r < 0)
                return r;
        if (!existing)
                log_full(LOG_INFO, 0, ret_id, NULL, "experiment %s '%s' queued: %zu cells, %zu runs", ret_id, d->name,
                         d->n_cells, n_runs);
        *ret_existing = existing;
        return 0;
}

enum MHD_Result api_post_experiment(struct api_request *req) {
        struct error err = { 0 };
        const char *key = NULL;
        if (req->config->results_only)
                return api_reply_results_only(req);
        if (idempotency_key(req, &key, &err) < 0)
                return api_reply_error(req, &err);
        _cleanup_(definition_freep) struct definition *d = NULL;
        if (api_check_definition(req->config, req->body, req->body_len, &d, &err) < 0)
                return api_reply_error(req, &err);

        char id[ID_LEN + 1];
        bool existing = false;
        struct db_lease lease _cleanup_lease_ = { 0 };
        int r = db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = api_queue_experiment(lease.conn, req->config, d, key, id, &existing, &err);
        if ((r == -EEXIST || r == -EBUSY) && err.status)
                return api_reply_error(req, &err);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        if (!existing)
                api_wake_loop(req);
        return reply_created(req, lease.conn, existing ? 200 : 201, id, d);
}

int api_experiment_json(struct db_conn *db, const char *id, cJSON **ret, bool *ret_finished) {
        cJSON *exp = NULL;
        cJSON *rows_raw = NULL, *cells_raw = NULL;
        char status[EXPERIMENT_STATUS_SIZE];
        /* One snapshot for the body and the status that says whether it is final: read apart,
         * an experiment finishing in between left a body saying "running" kept as final, and
         * every later GET served it. */
        struct db_txn snapshot _cleanup_txn_ = { 0 };
        int r = db_read_begin(db, &snapshot);
        if (r >= 0)
                r = experiments_get_json(db, id, &exp);
        if (r >= 0)
                r = experiments_report_rows(db, id, &rows_raw, &cells_raw, status);
        _cleanup_json_ cJSON *rows = rows_raw, *cells = cells_raw;
        if (r < 0) {
                cJSON_Delete(exp);
                return r;
        }
        bool finished = experiment_status_finished(status);
        cJSON *sequential = NULL;
        if ((r = report_sequential_json(db, id, cJSON_GetObjectItemCaseSensitive(exp, "definition"), finished, &sequential)) < 0) {
                cJSON_Delete(exp);
                return r;
        }
        cJSON *verdict = verdict_json(cJSON_GetObjectItemCaseSensitive(exp, "definition"), rows, sequential, finished);
        if (verdict)
                cJSON_AddItemToObject(exp, "verdict", verdict);
        else
                cJSON_AddNullToObject(exp, "verdict");
        cJSON_AddItemToObject(exp, "sequential", sequential ? sequential : cJSON_CreateNull());
        *ret = exp;
        *ret_finished = finished;
        return 0;
}

enum MHD_Result api_get_experiment(struct api_request *req) {
        cJSON *exp = NULL;
        bool finished = false;
        int r = api_experiment_json(req->lease.conn, req->path_params[0], &exp, &finished);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        return api_reply_json_cached(req, exp, finished);
}

enum MHD_Result api_reply_results_only(struct api_request *req) {
        return api_reply_errorf(req, 403, "results_only", NULL,
                                "this slicelabd runs with --results-only: it stores and serves results (POST /v1/imports) "
                                "and runs nothing, neither experiments nor peer loads; send them to a daemon that runs them");
}

bool experiment_status_finished(const char *s) {
        return s && strcmp(s, "queued") != 0 && strcmp(s, "running") != 0;
}

/* next_cursor: the hex of the next page's start, or null at the end (next < 0). */
static void add_cursor(cJSON *body, int64_t next) {
        if (next < 0) {
                cJSON_AddNullToObject(body, "next_cursor");
                return;
        }
        char buf[20];
        snprintf(buf, sizeof buf, "%" PRIx64, (uint64_t) next);
        cJSON_AddStringToObject(body, "next_cursor", buf);
}

static bool valid_experiment_status(const char *s) {
        static const char *const statuses[] = { "queued", "running", "succeeded", "partial", "failed", "cancelled" };
        for (size_t i = 0; i < ELEMENTSOF(statuses); i++)
                if (strcmp(s, statuses[i]) == 0)
                        return true;
        return false;
}

struct label_filter {
        cJSON *pairs;           /* [[key, value], ...] */
        struct error *err;
};

static enum MHD_Result label_filter_one(void *userdata, enum MHD_ValueKind kind, const char *key,
                                        const char *value) {
        struct label_filter *f = userdata;
        if (strcmp(key, "label") != 0)
                return MHD_YES;
        const char *eq = value ? strchr(value, '=') : NULL;
        char k[DEFINITION_LABEL_KEY_MAX + 2];
        size_t n = eq ? (size_t) (eq - value) : 0;
        if (eq && n < sizeof k) {
                memcpy(k, value, n);
                k[n] = '\0';
        }
        if (!eq || n >= sizeof k || !definition_kv_label_key_valid(k)) {
                error_set(f->err, 400, "invalid_parameter", "label",
                          "label must be key=value with a key of 1 to %d of [a-z0-9_.-], got '%.*s'",
                          DEFINITION_LABEL_KEY_MAX, UTF8_PREFIX(value ? value : "", 64));
                return MHD_NO;
        }
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, cJSON_CreateString(k));
        cJSON_AddItemToArray(pair, cJSON_CreateString(eq + 1));
        cJSON_AddItemToArray(f->pairs, pair);
        return MHD_YES;
}

int api_label_filter(struct api_request *req, char **ret, struct error *err) {
        _cleanup_json_ cJSON *pairs = cJSON_CreateArray();
        struct label_filter f = { .pairs = pairs, .err = err };
        MHD_get_connection_values(req->connection, MHD_GET_ARGUMENT_KIND, label_filter_one, &f);
        if (err->status)
                return -EINVAL;
        *ret = cJSON_GetArraySize(pairs) > 0 ? cJSON_PrintUnformatted(pairs) : NULL;
        return 0;
}

enum MHD_Result api_list_experiments(struct api_request *req) {
        struct error err = { 0 };
        int64_t limit, cursor;
        const char *status = api_query(req, "status");
        if (status && !valid_experiment_status(status))
                return api_reply_errorf(req, 400, "invalid_parameter", "status",
                                        "status must be one of queued, running, succeeded, partial, failed, cancelled; got '%.*s'",
                                        UTF8_PREFIX(status, 32));
        _cleanup_free_ char *labels = NULL;
        if (api_query_int(req, "limit", 1, 500, 50, &limit, &err) < 0 || api_query_cursor(req, &cursor, &err) < 0 ||
            api_label_filter(req, &labels, &err) < 0)
                return api_reply_error(req, &err);

        cJSON *items = NULL;
        int64_t next = 0;
        int r = experiments_list_json(req->lease.conn, status, labels, limit, cursor, &items, &next);
        if (r < 0)
                return api_reply_errno(req, r, "experiments");
        cJSON *body = cJSON_CreateObject();
        cJSON_AddItemToObject(body, "experiments", items);
        add_cursor(body, next > 0 ? next : -1);
        /* Never finished, but tagged (no-cache) so that a dashboard polling it gets 304 until
         * something changes. */
        return api_reply_json_cached(req, body, false);
}

enum MHD_Result api_delete_experiment(struct api_request *req) {
        const char *id = req->path_params[0];
        int64_t cancelled = 0;
        cJSON *stopping = NULL, *exp = NULL;
        int r = experiments_cancel(req->lease.conn, id, &cancelled, &stopping);
        _cleanup_json_ cJSON *owned_stopping = stopping;
        if (r >= 0)
                r = experiments_get_json(req->lease.conn, id, &exp);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        _cleanup_json_ cJSON *owned = exp;
        bool active = cJSON_GetArraySize(stopping) > 0;
        log_full(LOG_INFO, 0, id, NULL, "experiment %s cancelled: %lld queued runs cancelled%s", id,
                 (long long) cancelled, active ? ", stopping the run in progress" : "");
        /* The loop stops a run in progress; it also re-reads the queue. */
        api_wake_loop(req);
        cJSON *body = cJSON_CreateObject();
        cJSON_AddStringToObject(body, "id", id);
        cJSON_AddItemToObject(body, "status", cJSON_DetachItemFromObject(exp, "status"));
        cJSON_AddNumberToObject(body, "runs_cancelled", (double) cancelled);
        cJSON_AddItemToObject(body, "stopping", TAKE_PTR(owned_stopping));
        return api_reply_json(req, active ? 202 : 200, body);
}

enum MHD_Result api_get_experiment_runs(struct api_request *req) {
        const char *id = req->path_params[0];
        struct error err = { 0 };
        int64_t limit, from;
        if (api_query_int(req, "limit", 1, 1000, 1000, &limit, &err) < 0 || api_query_cursor(req, &from, &err) < 0)
                return api_reply_error(req, &err);
        cJSON *runs = NULL;
        int64_t next = -1;
        int r = experiments_runs_json(req->lease.conn, id, from, limit, &runs, &next);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        cJSON *body = cJSON_CreateObject();
        cJSON_AddItemToObject(body, "runs", runs);
        add_cursor(body, next);
        return api_reply_json_cached(req, body, false);
}
