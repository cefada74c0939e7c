/* profile-diff.c: GET /v1/experiments/{id}/profile?cell=B&baseline=A: per thread group and per
 * frame, its share of each profiled run's samples (self: the frame is the leaf; total: anywhere
 * in the stack, once per stack), the cell's and the baseline's mean share with a 95% interval
 * across iterations, and the difference of the means with its Welch interval; largest absolute
 * difference of total share first, at most `limit` frames. The numbers are
 * findings/profile-shares.h's, which the findings rule `profile` decides on. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers.h"
#include "api/profile-experiment.h"
#include "basic/json-util.h"
#include "basic/utf8.h"
#include "findings/profile-shares.h"
#include "storage/run-profile.h"

#define FRAMES_LIMIT_DEFAULT 100
#define FRAMES_LIMIT_MAX 1000
#define LEVEL 0.95

static cJSON *side_json(const double *x, const struct profile_share_mean *m) {
        cJSON *o = cJSON_CreateObject();
        cJSON *a = cJSON_AddArrayToObject(o, "shares");
        for (size_t i = 0; i < m->n; i++)
                cJSON_AddItemToArray(a, cJSON_CreateNumber(x[i]));
        cJSON_AddNumberToObject(o, "mean", m->mean);
        json_add_number_or_null(o, "ci_low", m->have_ci, m->ci_low);
        json_add_number_or_null(o, "ci_high", m->have_ci, m->ci_high);
        return o;
}

static cJSON *difference_json(const struct profile_share_difference *d) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "value", d->value);
        json_add_number_or_null(o, "ci_low", d->have_ci, d->ci_low);
        json_add_number_or_null(o, "ci_high", d->have_ci, d->ci_high);
        cJSON_AddBoolToObject(o, "excludes_zero", d->excludes_zero);
        cJSON_AddBoolToObject(o, "approximate", d->approximate);
        return o;
}

/* {"name", "self"?, "total"}: a group has no self (it is never a leaf). */
static int entry_json(struct profile_shares *s, size_t i, cJSON **ret) {
        bool group;
        const char *name = profile_shares_name(s, i, &group);
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", name);
        static const char *const kinds[] = { [PROFILE_SHARE_SELF] = "self", [PROFILE_SHARE_TOTAL] = "total" };
        for (int k = group ? PROFILE_SHARE_TOTAL : PROFILE_SHARE_SELF; k < _PROFILE_SHARE_KIND_MAX; k++) {
                struct profile_share_compared c;
                int r = profile_shares_compare(s, i, (enum profile_share_kind) k, LEVEL, &c);
                if (r < 0)
                        return r;
                cJSON *e = cJSON_AddObjectToObject(o, kinds[k]);
                cJSON_AddItemToObject(e, "cell", side_json(c.shares[PROFILE_SIDE_CELL], &c.side[PROFILE_SIDE_CELL]));
                cJSON_AddItemToObject(e, "baseline",
                                      side_json(c.shares[PROFILE_SIDE_BASELINE], &c.side[PROFILE_SIDE_BASELINE]));
                cJSON_AddItemToObject(e, "difference", difference_json(&c.difference));
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* The profiled, succeeded runs of one cell, counted into side. */
static int read_cell(const char *state_dir, const cJSON *rows, const char *cell, struct profile_shares *s,
                     enum profile_side side) {
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                const cJSON *c = cJSON_GetObjectItemCaseSensitive(row, "cell");
                const cJSON *st = cJSON_GetObjectItemCaseSensitive(row, "state");
                const cJSON *id = cJSON_GetObjectItemCaseSensitive(row, "id");
                if (!cJSON_IsString(c) || strcmp(c->valuestring, cell) != 0 || !cJSON_IsString(st) ||
                    strcmp(st->valuestring, "succeeded") != 0 || !cJSON_IsString(id))
                        continue;
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                if (run_profile_read(state_dir, id->valuestring, &text, &len) < 0)
                        continue;
                int r = profile_shares_add_run(s, side, text, len);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The body: groups in first-seen order, frames by |difference of total share|, at most limit. */
static int body_json(struct profile_shares *s, const char *cell, const char *baseline, size_t limit, cJSON **ret) {
        size_t n = profile_shares_count(s), n_ranked = 0;
        _cleanup_free_ size_t *ranked = calloc(MAX(limit, (size_t) 1), sizeof *ranked);
        _cleanup_json_ cJSON *body = cJSON_CreateObject();
        if (!ranked || !body)
                return -ENOMEM;
        cJSON_AddStringToObject(body, "cell", cell);
        cJSON_AddStringToObject(body, "baseline", baseline);
        cJSON_AddNumberToObject(body, "cell_runs", (double) profile_shares_runs(s, PROFILE_SIDE_CELL));
        cJSON_AddNumberToObject(body, "baseline_runs", (double) profile_shares_runs(s, PROFILE_SIDE_BASELINE));
        cJSON_AddBoolToObject(body, "truncated", profile_shares_truncated(s));
        cJSON *groups = cJSON_AddArrayToObject(body, "groups");
        for (size_t i = 0; i < n; i++) {
                bool group;
                (void) profile_shares_name(s, i, &group);
                if (!group)
                        continue;
                cJSON *e = NULL;
                int r = entry_json(s, i, &e);
                if (r < 0)
                        return r;
                cJSON_AddItemToArray(groups, e);
        }
        int r = profile_shares_rank_frames(s, PROFILE_SHARE_TOTAL, PROFILE_ORDER_DIFFERENCE, ranked, limit, &n_ranked);
        if (r < 0)
                return r;
        cJSON *frames = cJSON_AddArrayToObject(body, "frames");
        for (size_t i = 0; i < n_ranked; i++) {
                cJSON *e = NULL;
                if ((r = entry_json(s, ranked[i], &e)) < 0)
                        return r;
                cJSON_AddItemToArray(frames, e);
        }
        *ret = TAKE_PTR(body);
        return 0;
}

enum MHD_Result api_get_experiment_profile(struct api_request *req) {
        const char *id = req->path_params[0], *cell = api_query(req, "cell"), *baseline = api_query(req, "baseline");
        struct error err = { 0 };
        int64_t limit;
        if (api_query_int(req, "limit", 1, FRAMES_LIMIT_MAX, FRAMES_LIMIT_DEFAULT, &limit, &err) < 0)
                return api_reply_error(req, &err);
        _cleanup_(api_profile_experiment_done) struct profile_experiment exp = { 0 };
        enum MHD_Result reply;
        if (!api_profile_experiment(req, cell, "the cell to compare", &exp, &reply))
                return reply;
        const cJSON *first = cJSON_GetArrayItem(exp.cells, 0);
        if (!baseline && cJSON_IsString(first))
                baseline = first->valuestring;
        if (!baseline || !json_array_has_string(exp.cells, baseline))
                return api_reply_errorf(req, 400, "invalid_value", "baseline", "no cell '%.*s' in experiment %s",
                                        UTF8_PREFIX(baseline ? baseline : "", 64), id);
        if (strcmp(cell, baseline) == 0)
                return api_reply_errorf(req, 400, "conflict", "baseline", "must be another cell than cell ('%.*s')",
                                        UTF8_PREFIX(cell, 64));

        _cleanup_(profile_shares_freep) struct profile_shares *s = NULL;
        int r = profile_shares_new(&s);
        if (r >= 0)
                r = read_cell(req->config->state_dir, exp.rows, cell, s, PROFILE_SIDE_CELL);
        if (r >= 0)
                r = read_cell(req->config->state_dir, exp.rows, baseline, s, PROFILE_SIDE_BASELINE);
        if (r < 0)
                return api_reply_errno(req, r, "profile");
        size_t nc = profile_shares_runs(s, PROFILE_SIDE_CELL), nb = profile_shares_runs(s, PROFILE_SIDE_BASELINE);
        if (nc == 0 || nb == 0)
                return api_reply_errorf(req, 404, "not_found", NULL, "cell '%.*s' has no profiled run that succeeded",
                                        UTF8_PREFIX(nc == 0 ? cell : baseline, 64));
        cJSON *body = NULL;
        r = body_json(s, cell, baseline, (size_t) limit, &body);
        if (r < 0)
                return api_reply_errno(req, r, "profile");
        return api_reply_json_finished(req, body, api_profile_experiment_finished(&exp));
}
