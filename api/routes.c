/* routes.c: the route table: which handler serves which method and path, and which query
 * parameters each accepts (any other is a 400), and what the router does before the handler
 * runs (api/server.h: the id check, the cached answer, the lease). */
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
static const char *const series_query[] = { "label", "cell", "metric", "alpha", "min_segment", "limit", NULL };
static const char *const profile_query[] = { "format", "max_depth", "max_nodes", NULL };
static const char *const profile_diff_query[] = { "cell", "baseline", "limit", NULL };
static const char *const profile_tree_query[] = { "cell", "max_depth", "max_nodes", NULL };
static const char *const limit_query[] = { "limit", NULL };

/* .id: the first {} is that resource's id, checked by the router (404 before the handler);
 * .cached: a finished answer is served from the cache (200 or 304) before the handler;
 * .lease: the handler gets a pool connection in req->lease (503 when none came free). */
#define EXPERIMENT .resource = "experiment", .id = true
#define RUN .resource = "run", .id = true
#define LOAD .resource = "load", .id = true
#define BISECTION .resource = "bisection", .id = true
#define ROUTE(m, p, h, ...) { .method = (m), .pattern = (p), .handler = (h), __VA_ARGS__ }

const struct api_route api_routes[] = {
        ROUTE("GET", "/", api_get_ui, .open = true),
        ROUTE("GET", "/ui/{}", api_get_ui, .open = true),
        ROUTE("GET", "/v1/health", api_get_health, .resource = "queue", .lease = true),
        ROUTE("GET", "/v1/host", api_get_host, .resource = "host"),
        ROUTE("GET", "/v1/clock", api_get_clock, .resource = "clock", .open = true),
        ROUTE("GET", "/v1/peers", api_get_peers, .query = limit_query, .resource = "peers"),
        ROUTE("POST", "/v1/loads", api_post_load, .resource = "load"),
        ROUTE("GET", "/v1/loads/{}", api_get_load, LOAD, .lease = true),
        ROUTE("DELETE", "/v1/loads/{}", api_delete_load, LOAD, .lease = true),
        ROUTE("POST", "/v1/loads/{}/lease", api_renew_load, LOAD, .lease = true),
        ROUTE("GET", "/v1/loads/{}/timeline", api_get_load_timeline, LOAD, .lease = true),
        ROUTE("GET", "/metrics", api_get_metrics, .resource = "metrics", .lease = true),
        ROUTE("POST", "/v1/experiments", api_post_experiment, .resource = "experiment"),
        ROUTE("GET", "/v1/experiments", api_list_experiments, .query = list_query, .resource = "experiments", .lease = true),
        ROUTE("GET", "/v1/experiments/{}", api_get_experiment, EXPERIMENT, .cached = true, .lease = true),
        ROUTE("DELETE", "/v1/experiments/{}", api_delete_experiment, EXPERIMENT, .lease = true),
        ROUTE("GET", "/v1/experiments/{}/runs", api_get_experiment_runs, .query = page_query, EXPERIMENT, .lease = true),
        ROUTE("GET", "/v1/experiments/{}/report", api_get_report, .query = report_query, EXPERIMENT, .cached = true, .lease = true),
        ROUTE("GET", "/v1/experiments/{}/findings", api_get_findings, .query = report_query, EXPERIMENT, .cached = true, .lease = true),
        ROUTE("GET", "/v1/experiments/{}/bundle", api_get_bundle, EXPERIMENT, .lease = true),
        ROUTE("POST", "/v1/imports", api_post_import, .resource = "import", .upload = true),
        ROUTE("GET", "/v1/experiments/{}/profile", api_get_experiment_profile, .query = profile_diff_query, EXPERIMENT, .lease = true),
        ROUTE("GET", "/v1/experiments/{}/profile/tree", api_get_experiment_profile_tree, .query = profile_tree_query, EXPERIMENT,
              .lease = true),
        ROUTE("POST", "/v1/bisections", api_post_bisection, .resource = "bisection"),
        ROUTE("GET", "/v1/bisections", api_list_bisections, .query = limit_query, .resource = "bisections", .lease = true),
        ROUTE("GET", "/v1/bisections/{}", api_get_bisection, BISECTION, .lease = true),
        ROUTE("DELETE", "/v1/bisections/{}", api_delete_bisection, BISECTION, .lease = true),
        ROUTE("GET", "/v1/compare", api_get_compare, .query = compare_query, .resource = "experiment", .lease = true),
        ROUTE("GET", "/v1/series", api_get_series, .query = series_query, .resource = "series", .lease = true),
        ROUTE("GET", "/v1/runs/{}", api_get_run, RUN, .cached = true, .lease = true),
        ROUTE("GET", "/v1/runs/{}/timeline", api_get_timeline, .query = timeline_query, RUN, .lease = true),
        ROUTE("GET", "/v1/runs/{}/timeline/buckets", api_get_buckets, .query = buckets_query, RUN, .lease = true),
        ROUTE("GET", "/v1/runs/{}/steps", api_get_steps, RUN, .lease = true),
        ROUTE("GET", "/v1/runs/{}/histogram", api_get_histogram, .query = histogram_query, RUN, .lease = true),
        ROUTE("GET", "/v1/runs/{}/gc", api_get_gc, .query = page_query, RUN, .lease = true),
        ROUTE("GET", "/v1/runs/{}/samples", api_get_samples, RUN, .lease = true),
        ROUTE("GET", "/v1/runs/{}/logs/{}", api_get_logs, .query = logs_query, RUN),
        ROUTE("GET", "/v1/runs/{}/profile", api_get_run_profile, .query = profile_query, RUN, .lease = true),
};

const size_t api_routes_count = ELEMENTSOF(api_routes);
