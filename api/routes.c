/* routes.c: the route table: which handler serves which method and path, and which query
 * parameters each accepts (any other is a 400). */
#include "api/handlers.h"
#include "basic/macro.h"

static const char *const list_query[] = { "status", "limit", "cursor", "label", NULL };
static const char *const report_query[] = { "baseline", NULL };
static const char *const page_query[] = { "limit", "cursor", NULL };
static const char *const timeline_query[] = { "limit", "cursor", "from_ms", "to_ms", "phase", "step", NULL };
static const char *const buckets_query[] = { "width_ms", "from_ms", "to_ms", "phase", NULL };
static const char *const histogram_query[] = { "interval_ms", NULL };
static const char *const logs_query[] = { "tail", NULL };
static const char *const compare_query[] = { "a", "b", NULL };

const struct api_route api_routes[] = {
        { "GET", "/", api_get_ui, NULL, true },
        { "GET", "/ui/{}", api_get_ui, NULL, true },
        { "GET", "/v1/health", api_get_health, NULL, false },
        { "GET", "/v1/host", api_get_host, NULL, false },
        { "GET", "/v1/clock", api_get_clock, NULL, true },
        { "POST", "/v1/loads", api_post_load, NULL, false },
        { "GET", "/v1/loads/{}", api_get_load, NULL, false },
        { "DELETE", "/v1/loads/{}", api_delete_load, NULL, false },
        { "POST", "/v1/loads/{}/lease", api_renew_load, NULL, false },
        { "GET", "/v1/loads/{}/timeline", api_get_load_timeline, NULL, false },
        { "GET", "/metrics", api_get_metrics, NULL, false },
        { "POST", "/v1/experiments", api_post_experiment, NULL, false },
        { "GET", "/v1/experiments", api_list_experiments, list_query, false },
        { "GET", "/v1/experiments/{}", api_get_experiment, NULL, false },
        { "DELETE", "/v1/experiments/{}", api_delete_experiment, NULL, false },
        { "GET", "/v1/experiments/{}/runs", api_get_experiment_runs, page_query, false },
        { "GET", "/v1/experiments/{}/report", api_get_report, report_query, false },
        { "GET", "/v1/experiments/{}/findings", api_get_findings, report_query, false },
        { "GET", "/v1/compare", api_get_compare, compare_query, false },
        { "GET", "/v1/runs/{}", api_get_run, NULL, false },
        { "GET", "/v1/runs/{}/timeline", api_get_timeline, timeline_query, false },
        { "GET", "/v1/runs/{}/timeline/buckets", api_get_buckets, buckets_query, false },
        { "GET", "/v1/runs/{}/steps", api_get_steps, NULL, false },
        { "GET", "/v1/runs/{}/histogram", api_get_histogram, histogram_query, false },
        { "GET", "/v1/runs/{}/gc", api_get_gc, page_query, false },
        { "GET", "/v1/runs/{}/samples", api_get_samples, NULL, false },
        { "GET", "/v1/runs/{}/logs/{}", api_get_logs, logs_query, false },
};

const size_t api_routes_count = ELEMENTSOF(api_routes);
