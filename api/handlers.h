/* handlers.h: the API's request handlers, one file per resource. */
#pragma once

#include "api/server.h"
#include "storage/run-state.h"

#include <stdbool.h>

#include "basic/id.h"

struct db_conn;

/* 403 results_only: a --results-only daemon runs no experiment and no peer load. */
enum MHD_Result api_reply_results_only(struct api_request *req);
/* Finished experiments (succeeded, partial, failed, cancelled) no longer change. */
bool experiment_status_finished(const char *status);

enum MHD_Result api_get_ui(struct api_request *req);
enum MHD_Result api_get_health(struct api_request *req);
enum MHD_Result api_get_clock(struct api_request *req);
enum MHD_Result api_get_peers(struct api_request *req);
enum MHD_Result api_post_load(struct api_request *req);
enum MHD_Result api_get_load(struct api_request *req);
enum MHD_Result api_delete_load(struct api_request *req);
enum MHD_Result api_renew_load(struct api_request *req);
enum MHD_Result api_get_load_timeline(struct api_request *req);
enum MHD_Result api_post_experiment(struct api_request *req);
struct definition;
/* A definition as POST /v1/experiments takes it: parsed against this host, the policy's and
 * profiling's checks; a 400 in err otherwise. */
int api_check_definition(const struct api_config *config, const char *body, size_t len, struct definition **ret,
                         struct error *err);
/* Queue d (checked) as an experiment: its seed, plan and rows; key: an idempotency key or NULL.
 * -EEXIST/-EBUSY with err as experiments_create() says. */
int api_queue_experiment(struct db_conn *c, const struct api_config *config, const struct definition *d, const char *key,
                         char ret_id[ID_LEN + 1], bool *ret_existing, struct error *err);
enum MHD_Result api_post_bisection(struct api_request *req);
enum MHD_Result api_list_bisections(struct api_request *req);
enum MHD_Result api_get_bisection(struct api_request *req);
enum MHD_Result api_delete_bisection(struct api_request *req);

enum MHD_Result api_list_experiments(struct api_request *req);
/* ?label=key=value, repeatable (all must hold): the pairs as JSON for the store, NULL when none;
 * -EINVAL with err (400 naming "label") for a malformed one. For the list and the series. */
int api_label_filter(struct api_request *req, char **ret, struct error *err);
enum MHD_Result api_get_experiment(struct api_request *req);
enum MHD_Result api_delete_experiment(struct api_request *req);
enum MHD_Result api_get_experiment_runs(struct api_request *req);
enum MHD_Result api_get_run(struct api_request *req);
enum MHD_Result api_get_host(struct api_request *req);
enum MHD_Result api_get_report(struct api_request *req);
enum MHD_Result api_get_findings(struct api_request *req);

struct cJSON;
#define API_CELL_NAME_MAX 256
/* The experiment's findings against baseline (NULL = its first cell), the baseline's name and
 * the experiment's status; -ENOENT no experiment, -EINVAL no such cell. For findings and report.
 * state_dir: where the runs' profiles are (the rule `profile`). */
int api_findings_json(struct db_conn *c, const char *state_dir, const char *id, const char *baseline, struct cJSON **ret_list,
                      char ret_baseline[API_CELL_NAME_MAX], char ret_status[EXPERIMENT_STATUS_SIZE]);
/* GET /v1/experiments/{id}'s body (with the verdict of its checks) and whether it finished;
 * -ENOENT when there is none. For GET, imports and bundles. */
int api_experiment_json(struct db_conn *c, const char *id, struct cJSON **ret, bool *ret_finished);
/* GET /v1/experiments/{id}/report's body against baseline (NULL = none) and whether the
 * experiment finished; -ENOENT no experiment, -EINVAL no such cell. For the report and bundles. */
int api_report_json(struct db_conn *c, const char *state_dir, const char *id, const char *baseline, struct cJSON **ret, bool *ret_finished);
/* 400: ?baseline= names no cell of the experiment (findings and report). */
enum MHD_Result api_reply_unknown_baseline(struct api_request *req, const char *baseline);
enum MHD_Result api_get_timeline(struct api_request *req);
enum MHD_Result api_get_buckets(struct api_request *req);
enum MHD_Result api_get_histogram(struct api_request *req);
enum MHD_Result api_get_gc(struct api_request *req);
enum MHD_Result api_get_samples(struct api_request *req);
enum MHD_Result api_get_logs(struct api_request *req);
enum MHD_Result api_get_run_profile(struct api_request *req);
enum MHD_Result api_get_experiment_profile(struct api_request *req);
enum MHD_Result api_get_experiment_profile_tree(struct api_request *req);
enum MHD_Result api_get_metrics(struct api_request *req);
enum MHD_Result api_get_compare(struct api_request *req);
enum MHD_Result api_get_series(struct api_request *req);
enum MHD_Result api_get_steps(struct api_request *req);
enum MHD_Result api_get_bundle(struct api_request *req);
/* This host's name, as bundles name their origin. */
void api_host_name(char *buf, size_t size);
/* The files of a run's directory a bundle carries: at most API_RUN_FILES_MAX per run, named by
 * api_run_file_name_valid() (no dot first, no slash, [A-Za-z0-9._-], at most 64 bytes). The
 * export sends no other, the import takes no other. */
#define API_RUN_FILES_MAX 256
#define API_RUN_FILE_NAME_MAX 64
bool api_run_file_name_valid(const char *name, size_t len);
enum MHD_Result api_post_import(struct api_request *req);
