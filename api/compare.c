/* compare.c: GET /v1/compare?a=EXP[:CELL]&b=EXP[:CELL]: two experiments (or cells of them) side
 * by side, per metric both sides' statistics and the ratio b/a with the report's 95% interval, the
 * report's method (api/cell-stats), so that "this week's build against last week's" is one
 * request. Cells are matched by name unless named; what differs between the two (definition
 * fields, the host facts recorded when their runs started) is listed and warned about, since a
 * ratio across different loads or hosts answers another question than the one asked. */
#include <cjson/cJSON.h>
#include <string.h>

#include "api/cell-stats.h"
#include "api/differences.h"
#include "api/handlers.h"
#include "basic/id.h"
#include "basic/json-util.h"
#include "basic/utf8.h"
#include "storage/experiments.h"

struct side {
        const char *param;              /* "a" or "b" */
        char id[ID_LEN + 1];
        const char *cell;               /* NULL = match by name */
        char status[EXPERIMENT_STATUS_SIZE];
        cJSON *rows, *cells, *definition, *host;
};

static void side_done(struct side *s) {
        cJSON_Delete(s->rows);
        cJSON_Delete(s->cells);
        cJSON_Delete(s->definition);
        cJSON_Delete(s->host);
}

/* "EXP" or "EXP:CELL"; a malformed value is a 400 naming the parameter. */
static int parse_side(struct api_request *req, const char *param, struct side *s, struct error *err) {
        const char *v = api_query(req, param);
        *s = (struct side){ .param = param };
        if (!v)
                return error_set(err, 400, "missing_parameter", param, "%s is required: EXPERIMENT_ID[:CELL]", param);
        size_t n = strcspn(v, ":");
        if (n != ID_LEN)
                return error_set(err, 400, "invalid_parameter", param,
                                 "%s must be an experiment id, optionally followed by :CELL, got '%.*s'",
                                 param, UTF8_PREFIX(v, 64));
        memcpy(s->id, v, ID_LEN);
        s->id[ID_LEN] = '\0';
        if (!id_valid(s->id))
                return error_set(err, 400, "invalid_parameter", param, "%s must be an experiment id, got '%.*s'",
                                 param, UTF8_PREFIX(v, 64));
        if (v[n] == ':') {
                s->cell = v + n + 1;
                if (!s->cell[0])
                        return error_set(err, 400, "invalid_parameter", param, "%s names an empty cell after ':'", param);
        }
        return 0;
}

static int load_side(struct db_conn *c, struct side *s) {
        int r = experiments_report_rows(c, s->id, &s->rows, &s->cells, s->status);
        if (r >= 0)
                r = experiments_definition_json(c, s->id, &s->definition);
        if (r >= 0)
                r = experiments_host_snapshot_json(c, s->id, &s->host);
        return r;
}

static bool has_cell(const struct side *s, const char *name) {
        const cJSON *c;
        cJSON_ArrayForEach(c, s->cells) {
                if (strcmp(cJSON_GetStringValue(c), name) == 0)
                        return true;
        }
        return false;
}

/* The (a, b) cell pairs: the named ones (a cell named on one side only is looked for by the same
 * name on the other), else every cell of a that b has too. */
static int pair_cells(const struct side *a, const struct side *b, cJSON *pairs, struct error *err) {
        const struct side *sides[] = { a, b };
        for (size_t i = 0; i < 2; i++) {
                const char *name = sides[i]->cell ? sides[i]->cell : sides[1 - i]->cell;
                if (name && !has_cell(sides[i], name))
                        return error_set(err, 400, "invalid_parameter", sides[i]->param,
                                         "experiment %s has no cell '%.*s'", sides[i]->id, UTF8_PREFIX(name, 64));
        }
        if (a->cell || b->cell) {
                cJSON *p = cJSON_CreateArray();
                cJSON_AddItemToArray(p, cJSON_CreateString(a->cell ? a->cell : b->cell));
                cJSON_AddItemToArray(p, cJSON_CreateString(b->cell ? b->cell : a->cell));
                cJSON_AddItemToArray(pairs, p);
                return 0;
        }
        const cJSON *c;
        cJSON_ArrayForEach(c, a->cells) {
                if (!has_cell(b, cJSON_GetStringValue(c)))
                        continue;
                cJSON *p = cJSON_CreateArray();
                cJSON_AddItemToArray(p, cJSON_CreateString(cJSON_GetStringValue(c)));
                cJSON_AddItemToArray(p, cJSON_CreateString(cJSON_GetStringValue(c)));
                cJSON_AddItemToArray(pairs, p);
        }
        if (cJSON_GetArraySize(pairs) == 0)
                return error_set(err, 400, "invalid_parameter", "b",
                                 "experiments %s and %s have no cell name in common: name the cells (EXP:CELL)", a->id, b->id);
        return 0;
}

/* Per metric both sides and the ratio b/a. */
static cJSON *compare_cells(const struct side *a, const struct side *b, const char *ca, const char *cb) {
        _cleanup_json_ cJSON *ga = cell_gather(a->rows, ca), *gb = cell_gather(b->rows, cb);
        const cJSON *va = cJSON_GetObjectItemCaseSensitive(ga, "values");
        const cJSON *vb = cJSON_GetObjectItemCaseSensitive(gb, "values");
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "a", ca);
        cJSON_AddStringToObject(o, "b", cb);
        cJSON *runs = cJSON_AddObjectToObject(o, "runs");
        cJSON_AddItemToObject(runs, "a", cell_run_counts(a->rows, ca));
        cJSON_AddItemToObject(runs, "b", cell_run_counts(b->rows, cb));
        cJSON *metrics = cJSON_AddObjectToObject(o, "metrics");
        _cleanup_json_ cJSON *sa = cell_metric_stats(va), *sb = cell_metric_stats(vb);
        _cleanup_json_ cJSON *ratios = cell_metric_ratios(vb, va);
        const cJSON *m;
        cJSON_ArrayForEach(m, sa) {
                const cJSON *other = cJSON_GetObjectItemCaseSensitive(sb, m->string);
                if (!other)
                        continue;
                cJSON *e = cJSON_AddObjectToObject(metrics, m->string);
                cJSON_AddItemToObject(e, "a", cJSON_Duplicate(m, true));
                cJSON_AddItemToObject(e, "b", cJSON_Duplicate(other, true));
                cJSON *r = cJSON_DetachItemFromObjectCaseSensitive(ratios, m->string);
                cJSON_AddItemToObject(e, "ratio", r ? r : cJSON_CreateNull());
        }
        return o;
}

static cJSON *side_json(const struct side *s) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "experiment_id", s->id);
        json_add_string_or_null(o, "name", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->definition, "name")));
        cJSON_AddStringToObject(o, "status", s->status);
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(s->definition, "labels");
        cJSON_AddItemToObject(o, "labels", labels ? cJSON_Duplicate(labels, true) : cJSON_CreateObject());
        return o;
}

enum MHD_Result api_get_compare(struct api_request *req) {
        struct error err = { 0 };
        struct side a, b;
        if (parse_side(req, "a", &a, &err) < 0 || parse_side(req, "b", &b, &err) < 0)
                return api_reply_error(req, &err);
        int r = load_side(req->lease.conn, &a);
        if (r >= 0)
                r = load_side(req->lease.conn, &b);
        db_lease_release(&req->lease);
        _cleanup_json_ cJSON *pairs = cJSON_CreateArray();
        if (r >= 0 && pair_cells(&a, &b, pairs, &err) < 0)
                r = -EINVAL;
        if (r < 0) {
                side_done(&a);
                side_done(&b);
                return r == -EINVAL ? api_reply_error(req, &err) : api_reply_errno(req, r, "experiment");
        }

        cJSON *body = cJSON_CreateObject();
        cJSON_AddItemToObject(body, "a", side_json(&a));
        cJSON_AddItemToObject(body, "b", side_json(&b));
        cJSON_AddNumberToObject(body, "confidence", 0.95);
        cJSON *cells = cJSON_AddArrayToObject(body, "cells");
        cJSON *differences = cJSON_AddArrayToObject(body, "differences");
        cJSON *warnings = cJSON_CreateArray();
        differences_definitions(a.definition, b.definition, differences);
        const cJSON *p;
        cJSON_ArrayForEach(p, pairs) {
                const char *ca = cJSON_GetStringValue(cJSON_GetArrayItem(p, 0));
                const char *cb = cJSON_GetStringValue(cJSON_GetArrayItem(p, 1));
                cJSON_AddItemToArray(cells, compare_cells(&a, &b, ca, cb));
                differences_cells(a.definition, ca, b.definition, cb, differences);
        }
        if (!differences_hosts(a.host, b.host, differences))
                json_append_printf(warnings, "no host facts recorded for experiment %s: the hosts could not be compared",
                                   a.host ? b.id : a.id);
        differences_warn(differences, warnings);
        cJSON_AddItemToObject(body, "warnings", warnings);
        side_done(&a);
        side_done(&b);
        return api_reply_json(req, 200, body);
}
