/* bisections.c: bisection across versions (issue 38, item 2). POST /v1/bisections takes a
 * definition without cells, the versions (oldest first, each a name and the vars that fill the
 * definition's placeholders), the metric and the difference that counts. Each step is one
 * experiment of two versions as cells with a stop rule (issue 37) on that metric, the older the
 * baseline: first the two ends (equivalent: "no change"), then the last version known unchanged
 * against the middle of the range still open, the range halving on each decision, until two
 * adjacent versions differ. A step that cannot decide is run again with twice the rounds, up to
 * `retries` times, then the bisection ends "undecided" with the range still open. The loop calls
 * api_bisections_advance() after each scheduling pass: the store holds every step, so a
 * restarted daemon goes on where it was. A request may name a series' change point instead of a
 * definition (bisection-series.c makes the definition of its two sides). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bisection-series.h"
#include "api/handlers.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/sequential.h"
#include "basic/utf8.h"
#include "definition/definition-peer-load.h"
#include "definition/definition.h"
#include "storage/bisections.h"
#include "storage/experiments.h"
#include "storage/rounds.h"

#define VERSIONS_MIN 2
#define VERSIONS_MAX DEFINITION_CELLS_MAX
#define RETRIES_MAX 3
#define RETRIES_DEFAULT 1
#define ROUNDS_MIN_DEFAULT 3
#define ROUNDS_MAX_DEFAULT 10
#define OPEN_PER_PASS 16

/* ---- the request ------------------------------------------------------------------------------ */

static int reject(struct error *err, const char *code, const char *field, const char *message) {
        return error_set(err, 400, code, field, "%s", message);
}

/* Every member of o is one of known[] and appears once (a hostile key is never echoed). */
static int check_members(const cJSON *o, const char *path, const char *const *known, size_t n, struct error *err) {
        const cJSON *m;
        cJSON_ArrayForEach(m, o) {
                size_t i = 0;
                while (i < n && strcmp(m->string, known[i]) != 0)
                        i++;
                if (i == n)
                        return error_set(err, 400, "unknown_field", path, "%s has a member that is not one of its fields",
                                         path[0] ? path : "the request");
                if (cJSON_GetObjectItemCaseSensitive(o, known[i]) != m)
                        return error_set(err, 400, "duplicate_field", path, "%s has \"%s\" twice", path[0] ? path : "the request",
                                         known[i]);
        }
        return 0;
}

static int check_versions(const cJSON *versions, struct error *err) {
        static const char *const known[] = { "name", "vars" };
        int n = cJSON_GetArraySize(versions);
        if (!cJSON_IsArray(versions) || n < VERSIONS_MIN || n > VERSIONS_MAX)
                return error_set(err, 400, "invalid_value", "versions", "must be an array of %d to %d versions, oldest first",
                                 VERSIONS_MIN, VERSIONS_MAX);
        for (int i = 0; i < n; i++) {
                const cJSON *v = cJSON_GetArrayItem(versions, i);
                char path[64];
                snprintf(path, sizeof path, "versions[%d]", i);
                if (!cJSON_IsObject(v))
                        return error_set(err, 400, "wrong_type", path, "must be an object {\"name\", \"vars\"}");
                int r = check_members(v, path, known, ELEMENTSOF(known), err);
                if (r < 0)
                        return r;
                if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v, "vars"))) {
                        snprintf(path, sizeof path, "versions[%d].vars", i);
                        return reject(err, "missing_field", path,
                                      "is required (an object): the versions differ by the values they put in the definition's placeholders");
                }
        }
        return 0;
}

/* The fields a step's definition gets from the bisection, refused in its definition. */
static int check_definition(const cJSON *d, struct error *err) {
        static const char *const owned[] = { "name", "description", "cells", "iterations", "stop" };
        if (!cJSON_IsObject(d))
                return reject(err, "missing_field", "definition", "is required: an experiment definition without cells");
        for (size_t i = 0; i < ELEMENTSOF(owned); i++)
                if (cJSON_GetObjectItemCaseSensitive(d, owned[i]))
                        return error_set(err, 400, "conflict", "definition",
                                         "must not have \"%s\": a bisection makes each step's (the versions are its cells)", owned[i]);
        return 0;
}

static int check_cell(const cJSON *cell, struct error *err) {
        if (!cell)
                return 0;
        if (!cJSON_IsObject(cell))
                return reject(err, "wrong_type", "cell", "must be an object: the fields every version's cell has");
        if (cJSON_GetObjectItemCaseSensitive(cell, "name") || cJSON_GetObjectItemCaseSensitive(cell, "vars"))
                return reject(err, "conflict", "cell", "must not have name or vars: they are each version's");
        return 0;
}

/* The request in the form it is stored: every field, defaults filled. */
static int canonical_request(const cJSON *body, cJSON **ret, struct error *err) {
        static const char *const known[] = { "name", "definition", "cell", "versions", "metric", "difference_pct",
                                             "level", "iterations", "retries" };
        if (!cJSON_IsObject(body))
                return reject(err, "wrong_type", "", "the request must be a JSON object");
        int r = check_members(body, "", known, ELEMENTSOF(known), err);
        if (r < 0)
                return r;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(body, "name");
        if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > DEFINITION_NAME_MAX)
                return error_set(err, 400, "invalid_value", "name", "is required: a string of 1 to %d bytes", DEFINITION_NAME_MAX);
        const cJSON *definition = cJSON_GetObjectItemCaseSensitive(body, "definition");
        const cJSON *cell = cJSON_GetObjectItemCaseSensitive(body, "cell");
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(body, "versions");
        if ((r = check_definition(definition, err)) < 0 || (r = check_cell(cell, err)) < 0 || (r = check_versions(versions, err)) < 0)
                return r;
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(body, "metric")))
                return reject(err, "missing_field", "metric", "is required: the metric whose change is followed (a stop metric)");
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(body, "difference_pct")))
                return reject(err, "missing_field", "difference_pct", "is required: the difference in percent that counts as a change");
        const cJSON *retries = cJSON_GetObjectItemCaseSensitive(body, "retries");
        if (retries && (!cJSON_IsNumber(retries) || retries->valuedouble < 0 || retries->valuedouble > RETRIES_MAX ||
                        retries->valuedouble != floor(retries->valuedouble)))
                return error_set(err, 400, "out_of_range", "retries", "must be an integer from 0 to %d", RETRIES_MAX);
        cJSON *o = cJSON_Duplicate(body, true);
        if (!o)
                return -ENOMEM;
        if (!retries)
                cJSON_AddNumberToObject(o, "retries", RETRIES_DEFAULT);
        if (!cJSON_GetObjectItemCaseSensitive(o, "iterations")) {
                cJSON *it = cJSON_AddObjectToObject(o, "iterations");
                cJSON_AddNumberToObject(it, "min", ROUNDS_MIN_DEFAULT);
                cJSON_AddNumberToObject(it, "max", ROUNDS_MAX_DEFAULT);
        }
        *ret = o;
        return 0;
}

/* ---- a step's definition ---------------------------------------------------------------------- */

static cJSON *version_cell(const cJSON *request, int i) {
        const cJSON *template = cJSON_GetObjectItemCaseSensitive(request, "cell");
        const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(request, "versions"), i);
        cJSON *cell = template ? cJSON_Duplicate(template, true) : cJSON_CreateObject();
        cJSON_AddItemToObject(cell, "name", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "name"), true));
        cJSON_AddItemToObject(cell, "vars", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "vars"), true));
        return cell;
}

static void add_label(cJSON *definition, const char *key, const char *value) {
        cJSON *labels = cJSON_GetObjectItemCaseSensitive(definition, "labels");
        if (!labels)
                labels = cJSON_AddObjectToObject(definition, "labels");
        if (cJSON_IsObject(labels) && !cJSON_GetObjectItemCaseSensitive(labels, key))
                cJSON_AddStringToObject(labels, key, value);
}

/* The definition of a step over the versions idx[0..n) (idx[0] the baseline), at attempt
 * (each doubling the rounds); at POST, every version at once, to check them all. */
static cJSON *step_definition(const cJSON *request, const char *id, int step, const int *idx, size_t n, unsigned attempt) {
        cJSON *d = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "definition"), true);
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(request, "versions");
        const char *base = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(versions, idx[0]), "name"));
        char text[96];
        snprintf(text, sizeof text, "bisection %s step %d", id, step);
        cJSON_AddStringToObject(d, "name", text);
        cJSON_AddItemToObject(d, "description", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "name"), true));
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(request, "iterations");
        cJSON *iterations = cJSON_Duplicate(it, true);
        const cJSON *max = cJSON_GetObjectItemCaseSensitive(it, "max");
        if (cJSON_IsNumber(max) && attempt > 0)
                cJSON_ReplaceItemInObjectCaseSensitive(
                        iterations, "max", cJSON_CreateNumber(fmin(max->valuedouble * (double) (1u << attempt), DEFINITION_ITERATIONS_MAX)));
        cJSON_AddItemToObject(d, "iterations", iterations);
        cJSON *stop = cJSON_AddObjectToObject(d, "stop");
        cJSON_AddStringToObject(stop, "baseline", base ? base : "");
        cJSON *metrics = cJSON_AddArrayToObject(stop, "metrics");
        cJSON_AddItemToArray(metrics, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "metric"), true));
        cJSON_AddItemToObject(stop, "difference_pct", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "difference_pct"), true));
        if (cJSON_GetObjectItemCaseSensitive(request, "level"))
                cJSON_AddItemToObject(stop, "level", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(request, "level"), true));
        cJSON *cells = cJSON_AddArrayToObject(d, "cells");
        for (size_t i = 0; i < n; i++)
                cJSON_AddItemToArray(cells, version_cell(request, idx[i]));
        add_label(d, "bisection", id);
        snprintf(text, sizeof text, "%d", step);
        add_label(d, "bisection_step", text);
        return d;
}

/* An error of the definition of every version at once, said of the request's own fields (a
 * cell is a version there, and is named so in the message too). */
static void said_of_request(struct error *err) {
        static const struct {
                const char *from, *to;
        } moves[] = {
                { "stop.metrics", "metric" }, { "stop.difference_pct", "difference_pct" }, { "stop.level", "level" },
                { "stop", "metric" },         { "iterations", "iterations" },
        };
        char field[sizeof err->field];
        unsigned i;
        int used = 0;
        if (sscanf(err->field, "cells[%u]%n", &i, &used) == 1 && used > 0) {
                const char *rest = err->field + used;
                if (strncmp(rest, ".vars", 5) == 0 || strncmp(rest, ".name", 5) == 0 || !rest[0])
                        snprintf(field, sizeof field, "versions[%u]%.100s", i, rest);
                else
                        snprintf(field, sizeof field, "cell%.100s", rest);
        } else {
                snprintf(field, sizeof field, "definition%s%.100s", err->field[0] ? "." : "", err->field);
                for (size_t k = 0; k < ELEMENTSOF(moves); k++)
                        if (strncmp(err->field, moves[k].from, strlen(moves[k].from)) == 0) {
                                snprintf(field, sizeof field, "%s", moves[k].to);
                                break;
                        }
        }
        snprintf(err->field, sizeof err->field, "%s", field);
        /* "versions[" is 3 bytes longer: the text stops short of the end rather than cut one */
        char message[sizeof err->message], *o = message;
        for (const char *p = err->message; *p && o < message + sizeof message - 16;)
                if (strncmp(p, "cells[", 6) == 0) {
                        o = stpcpy(o, "versions[");
                        p += 6;
                } else
                        *o++ = *p++;
        *o = '\0';
        message[utf8_complete_len(message, strlen(message))] = '\0';
        memcpy(err->message, message, sizeof message);
}

/* The definition of every version as one experiment, checked as POST /v1/experiments would. */
static int check_all_versions(const struct api_config *config, const cJSON *request, struct error *err) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(request, "versions"));
        int idx[VERSIONS_MAX];
        for (int i = 0; i < n; i++)
                idx[i] = i;
        _cleanup_json_ cJSON *d = step_definition(request, "check", 0, idx, (size_t) n, 0);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(d);
        if (!text)
                return -ENOMEM;
        _cleanup_(definition_freep) struct definition *parsed = NULL;
        int r = api_check_definition(config, text, strlen(text), &parsed, err);
        if (r < 0 && err->status == 400)
                said_of_request(err);
        return r;
}

/* ---- the driver --------------------------------------------------------------------------------- */

static const char *version_of(const cJSON *request, unsigned i) {
        const char *name = cJSON_GetStringValue(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(request, "versions"), (int) i), "name"));
        return name ? name : "?";
}

static int finish(struct db_conn *c, const char *id, const char *status, const char *outcome, const char *fmt, ...)
        _printf_(5, 6);
static int finish(struct db_conn *c, const char *id, const char *status, const char *outcome, const char *fmt, ...) {
        char message[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        int r = bisections_finish(c, id, status, outcome, message);
        if (r >= 0)
                log_info("bisection %s: %s%s%s: %s", id, status, outcome ? " " : "", outcome ? outcome : "", message);
        return r == -ESTALE ? 0 : r;
}

/* Queues step's experiment (versions lo and mid, lo the baseline) and records the step. */
static int start_step(struct db_conn *c, const struct api_config *config, const struct bisection_row *row, const cJSON *request,
                      unsigned step, unsigned lo, unsigned mid, unsigned attempt) {
        const int idx[2] = { (int) lo, (int) mid };
        _cleanup_json_ cJSON *d = step_definition(request, row->id, (int) step, idx, 2, attempt);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(d);
        if (!text)
                return -ENOMEM;
        struct error err = { 0 };
        _cleanup_(definition_freep) struct definition *parsed = NULL;
        struct bisection_step_row s = { .step = step, .lo = lo, .mid = mid, .attempt = attempt };
        char key[64];
        snprintf(key, sizeof key, "bisection.%s.%u", row->id, step);
        bool existing;
        int r = api_check_definition(config, text, strlen(text), &parsed, &err);
        if (r >= 0)
                r = api_queue_experiment(c, config, parsed, key, s.experiment_id, &existing, &err);
        if (r < 0 && err.status)
                return finish(c, row->id, "failed", NULL, "step %u (%s against %s) could not be queued: %s", step,
                              version_of(request, mid), version_of(request, lo), err.message);
        if (r < 0)
                return r;
        if ((r = bisections_add_step(c, row->id, &s)) < 0)
                return r;
        log_info("bisection %s: step %u, %s against %s (attempt %u): experiment %s", row->id, step, version_of(request, mid),
                 version_of(request, lo), attempt, s.experiment_id);
        return 1;
}

/* The step's comparison from its experiment's rounds. */
static int evaluate(struct db_conn *c, const char *experiment_id, struct sequential_outcome *ret) {
        cJSON *stored = NULL;
        int r = experiments_definition_json(c, experiment_id, &stored);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *owned = stored;
        _cleanup_free_ char *text = cJSON_PrintUnformatted(stored);
        if (!text)
                return -ENOMEM;
        _cleanup_(definition_freep) struct definition *d = NULL;
        struct error err = { 0 };
        if ((r = definition_parse(text, strlen(text), NULL, &d, &err)) < 0)
                return r;
        struct sequential_plan plan;
        definition_stop_plan(d, &plan);
        if (sequential_plan_comparisons(&plan) != 1)
                return -EBADMSG;
        unsigned ended;
        struct sequential_outcome o = { 0 };
        if ((r = rounds_ended(c, experiment_id, &ended)) < 0 || (r = rounds_evaluate(c, experiment_id, &plan, ended, &o)) < 0)
                return r;
        *ret = o;
        return 0;
}

static bool is_ends_step(const struct bisection_row *row, const struct bisection_step_row *s) {
        return s->lo == 0 && s->mid == row->n_versions - 1;
}

/* The pending step's experiment ended: its decision, and the range it leaves (1). 0 while it
 * runs; -ESTALE when the bisection ended here. */
static int decide(struct db_conn *c, struct bisection_row *row, const cJSON *request, struct bisection_step_row *s) {
        char status[EXPERIMENT_STATUS_SIZE];
        int r = bisections_experiment_status(c, s->experiment_id, status);
        if (r == -ENOENT) {
                r = finish(c, row->id, "failed", NULL, "step %u's experiment %s was deleted", s->step, s->experiment_id);
                return r < 0 ? r : -ESTALE;
        }
        if (r < 0)
                return r;
        if (!experiment_status_finished(status))
                return 0;
        if (strcmp(status, "cancelled") == 0) {
                r = finish(c, row->id, "failed", NULL, "step %u's experiment %s was cancelled: the bisection stops there", s->step,
                           s->experiment_id);
                return r < 0 ? r : -ESTALE;
        }
        struct sequential_outcome o = { 0 };
        if ((r = evaluate(c, s->experiment_id, &o)) < 0)
                return r;
        const char *decision = o.interval.n == 0 ? "failed" : sequential_decision_name(o.decision);
        unsigned lo = row->lo, hi = row->hi;
        if (!is_ends_step(row, s) && o.decision == SEQUENTIAL_DIFFERENT)
                hi = s->mid;
        else if (!is_ends_step(row, s) && o.decision == SEQUENTIAL_EQUIVALENT)
                lo = s->mid;
        bool bounded = o.interval.n > 0 && o.interval.bounded;
        if ((r = bisections_decide(c, row->id, s->step, decision, o.interval.n > 0 ? o.interval.ratio : NAN,
                                   bounded ? o.interval.low : NAN, bounded ? o.interval.high : NAN, lo, hi)) < 0)
                return r;
        row->lo = lo;
        row->hi = hi;
        snprintf(s->decision, sizeof s->decision, "%s", decision);
        return 1;
}

/* After a decided step: the next step, or the end. */
static int go_on(struct db_conn *c, const struct api_config *config, const struct bisection_row *row, const cJSON *request,
                 const struct bisection_step_row *s) {
        const char *a = version_of(request, s->lo), *b = version_of(request, s->mid);
        const cJSON *pct = cJSON_GetObjectItemCaseSensitive(request, "difference_pct");
        double margin = cJSON_IsNumber(pct) ? pct->valuedouble : 0;
        if (strcmp(s->decision, "failed") == 0)
                return finish(c, row->id, "failed", NULL, "step %u (%s against %s): experiment %s gave no round to compare", s->step, b, a,
                              s->experiment_id);
        if (strcmp(s->decision, "undecided") == 0) {
                const cJSON *retries = cJSON_GetObjectItemCaseSensitive(request, "retries");
                if (cJSON_IsNumber(retries) && s->attempt < (unsigned) retries->valueint)
                        return start_step(c, config, row, request, s->step + 1, s->lo, s->mid, s->attempt + 1);
                return finish(c, row->id, "succeeded", "undecided",
                              "step %u could not tell %s from %s at ±%g%% (experiment %s, attempt %u); the change, if any, is between %s "
                              "and %s",
                              s->step, b, a, margin, s->experiment_id, s->attempt, version_of(request, row->lo),
                              version_of(request, row->hi));
        }
        if (is_ends_step(row, s) && strcmp(s->decision, "equivalent") == 0)
                return finish(c, row->id, "succeeded", "no_change", "%s and %s are equivalent within ±%g%% (experiment %s): no change to follow",
                              b, a, margin, s->experiment_id);
        if (row->hi - row->lo <= 1)
                return finish(c, row->id, "succeeded", "found",
                              "%s is the first version that differs by more than ±%g%% from %s, the last unchanged one (%u steps)",
                              version_of(request, row->hi), margin, version_of(request, row->lo), s->step + 1);
        return start_step(c, config, row, request, s->step + 1, row->lo, row->lo + (row->hi - row->lo) / 2, 0);
}

/* One bisection: 1 when it queued an experiment, 0 when it waits or ended. */
static int advance_one(struct db_conn *c, const struct api_config *config, const char *id) {
        _cleanup_(bisection_row_done) struct bisection_row row = { 0 };
        int r = bisections_get(c, id, &row);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *request = cJSON_Parse(row.request);
        if (!request)
                return -EBADMSG;
        struct bisection_step_row s;
        r = bisections_last_step(c, id, &s);
        if (r == -ENOENT)
                return start_step(c, config, &row, request, 0, 0, row.n_versions - 1, 0);
        if (r < 0)
                return r;
        if (!s.decision[0]) {
                r = decide(c, &row, request, &s);
                if (r <= 0)
                        return r == -ESTALE ? 0 : r;
        }
        return go_on(c, config, &row, request, &s);
}

int api_bisections_advance(struct db_conn *c, const struct api_config *config) {
        char ids[OPEN_PER_PASS][ID_LEN + 1];
        size_t n = 0;
        int r = bisections_open(c, ids, ELEMENTSOF(ids), &n);
        if (r < 0)
                return log_error_errno(r, "bisections: cannot read the open ones");
        int queued = 0;
        for (size_t i = 0; i < n; i++) {
                r = advance_one(c, config, ids[i]);
                if (r < 0)
                        log_error_errno(r, "bisection %s: cannot go on", ids[i]);
                else
                        queued += r;
        }
        return queued;
}

/* ---- the handlers ------------------------------------------------------------------------------- */

static enum MHD_Result reply_bisection(struct api_request *req, struct db_conn *c, unsigned status, const char *id) {
        cJSON *body = NULL;
        int r = bisections_json(c, id, &body);
        if (r < 0)
                return api_reply_errno(req, r, "bisection");
        if (status != 201)
                return api_reply_json(req, status, body);
        char location[64];
        snprintf(location, sizeof location, "/v1/bisections/%s", id);
        const char *const headers[] = { "Location", location, NULL };
        return api_reply_json_headers(req, status, body, headers);
}

enum MHD_Result api_post_bisection(struct api_request *req) {
        struct error err = { 0 };
        if (req->config->results_only)
                return api_reply_results_only(req);
        if (definition_json_check(req->body, req->body_len, &err) < 0)
                return api_reply_error(req, &err);
        _cleanup_json_ cJSON *body = cJSON_ParseWithLength(req->body, req->body_len);
        struct db_lease lease _cleanup_lease_ = { 0 };
        _cleanup_json_ cJSON *from_series = NULL, *origin = NULL;
        int r = 0;
        if (cJSON_IsObject(body) && cJSON_GetObjectItemCaseSensitive(body, "series")) {
                r = check_versions(cJSON_GetObjectItemCaseSensitive(body, "versions"), &err);
                if (r >= 0)
                        r = db_lease_take(req->config->storage, &lease);
                if (r >= 0)
                        r = api_bisection_from_series(lease.conn, body, &from_series, &origin, &err);
        }
        cJSON *request = NULL;
        if (r >= 0)
                r = canonical_request(from_series ? from_series : body, &request, &err);
        _cleanup_json_ cJSON *owned = request;
        if (r >= 0)
                r = check_all_versions(req->config, request, &err);
        if (r >= 0 && origin)
                cJSON_AddItemToObject(request, "from_series", TAKE_PTR(origin));
        if (r < 0 && err.status)
                return api_reply_error(req, &err);
        if (r < 0)
                return api_reply_errno(req, r, "bisection");
        _cleanup_free_ char *text = cJSON_PrintUnformatted(request);
        if (!text)
                return api_reply_errno(req, -ENOMEM, "bisection");
        char id[ID_LEN + 1];
        r = lease.conn ? 0 : db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = bisections_create(lease.conn, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(request, "name")), text,
                                      (unsigned) cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(request, "versions")), id);
        if (r < 0)
                return api_reply_errno(req, r, "bisection");
        log_info("bisection %s queued: %d versions", id, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(request, "versions")));
        /* the loop queues its first step */
        api_wake_loop(req);
        return reply_bisection(req, lease.conn, 201, id);
}

enum MHD_Result api_list_bisections(struct api_request *req) {
        struct error err = { 0 };
        int64_t limit;
        if (api_query_int(req, "limit", 1, 1000, 100, &limit, &err) < 0)
                return api_reply_error(req, &err);
        cJSON *body = NULL;
        int r = bisections_list_json(req->lease.conn, limit, &body);
        if (r < 0)
                return api_reply_errno(req, r, "bisection");
        return api_reply_json(req, 200, body);
}

enum MHD_Result api_get_bisection(struct api_request *req) {
        return reply_bisection(req, req->lease.conn, 200, req->path_params[0]);
}

/* Cancels an open bisection and its step's experiment; an ended one stays as it ended. */
enum MHD_Result api_delete_bisection(struct api_request *req) {
        const char *id = req->path_params[0];
        struct db_conn *c = req->lease.conn;
        struct bisection_step_row s = { 0 };
        int r = bisections_finish(c, id, "cancelled", NULL, "cancelled by request");
        if (r == -ESTALE) {
                /* Ended before: answered as it ended, when it exists. */
                struct bisection_row row = { 0 };
                if ((r = bisections_get(c, id, &row)) < 0)
                        return api_reply_errno(req, r, "bisection");
                bisection_row_done(&row);
                return reply_bisection(req, c, 200, id);
        }
        if (r < 0)
                return api_reply_errno(req, r, "bisection");
        bool stopping = false;
        if (bisections_last_step(c, id, &s) >= 0 && !s.decision[0]) {
                int64_t cancelled = 0;
                cJSON *active = NULL;
                if (experiments_cancel(c, s.experiment_id, &cancelled, &active) >= 0) {
                        stopping = cJSON_GetArraySize(active) > 0;
                        cJSON_Delete(active);
                }
        }
        log_info("bisection %s cancelled%s", id, stopping ? ", stopping its step's run in progress" : "");
        api_wake_loop(req);
        return reply_bisection(req, c, stopping ? 202 : 200, id);
}
