/* handlers.h: the API's request handlers, one file per resource. */
#pragma once

#include "api/server.h"

#include <stdbool.h>

/* Finished experiments (succeeded, partial, failed, cancelled) no longer change. */
bool experiment_status_finished(const char *status);

enum MHD_Result api_get_ui(struct api_request *req);
enum MHD_Result api_get_health(struct api_request *req);
enum MHD_Result api_post_experiment(struct api_request *req);
enum MHD_Result api_list_experiments(struct api_request *req);
enum MHD_Result api_get_experiment(struct api_request *req);
enum MHD_Result api_delete_experiment(struct api_request *req);
enum MHD_Result api_get_experiment_runs(struct api_request *req);
enum MHD_Result api_get_run(struct api_request *req);
enum MHD_Result api_get_host(struct api_request *req);
enum MHD_Result api_get_report(struct api_request *req);
enum MHD_Result api_get_timeline(struct api_request *req);
enum MHD_Result api_get_buckets(struct api_request *req);
enum MHD_Result api_get_gc(struct api_request *req);
enum MHD_Result api_get_samples(struct api_request *req);
enum MHD_Result api_get_logs(struct api_request *req);
enum MHD_Result api_get_metrics(struct api_request *req);
