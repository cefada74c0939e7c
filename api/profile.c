/* profile.c: GET /v1/runs/{id}/profile: the run's profile.folded as it is (text), or with
 * ?format=json as a tree of {name, self, total, children} bounded in depth and nodes; and
 * GET /v1/experiments/{id}/profile/tree?cell=B: the same tree of all the cell's profiled runs
 * merged (their samples added up), what the dashboard draws a cell's flame graph from. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers.h"
#include "api/profile-experiment.h"
#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/utf8.h"
#include "profile/profile-folded.h"
#include "storage/db.h"
#include "storage/experiments.h"
#include "storage/run-profile.h"
#include "storage/runs.h"

#define TREE_DEPTH_DEFAULT 64
#define TREE_DEPTH_MAX 256
#define TREE_NODES_DEFAULT 20000
#define TREE_NODES_MAX 200000

struct node {
        char *name;
        uint64_t self, total;
        struct node *child, *next;      /* children in first-seen order */
};

struct tree {
        struct node root;
        size_t n_nodes, max_nodes;
        unsigned max_depth;
        bool truncated;                 /* some samples were kept in an ancestor's self */
};

static void node_free_children(struct node *n) {
        for (struct node *c = n->child, *next; c; c = next) {
                next = c->next;
                node_free_children(c);
                free(c->name);
                free(c);
        }
}

/* The child of n named name[0, len), made when there is room; NULL when not (or no memory). */
static struct node *child_of(struct tree *t, struct node *n, const char *name, size_t len) {
        struct node **p = &n->child;
        for (; *p; p = &(*p)->next)
                if (strlen((*p)->name) == len && memcmp((*p)->name, name, len) == 0)
                        return *p;
        if (t->n_nodes >= t->max_nodes)
                return NULL;
        struct node *c = calloc(1, sizeof *c);
        if (!c || !(c->name = strndup(name, len))) {
                free(c);
                return NULL;
        }
        *p = c;
        t->n_nodes++;
        return c;
}

/* "a;b;c N": the samples are the leaf's self and every frame's total. */
static void add_stack(struct tree *t, const struct profile_folded_line *line) {
        const char *sp = line->stack + line->len;
        uint64_t count = line->count;
        struct node *n = &t->root;
        n->total += count;
        unsigned depth = 0;
        for (const char *f = line->stack; f < sp;) {
                const char *e = memchr(f, ';', (size_t) (sp - f));
                size_t l = e ? (size_t) (e - f) : (size_t) (sp - f);
                struct node *c = depth < t->max_depth ? child_of(t, n, f, l) : NULL;
                if (!c) {
                        t->truncated = true;
                        break;
                }
                n = c;
                n->total += count;
                depth++;
                f += l + 1;
        }
        n->self += count;
}

static cJSON *node_json(const struct node *n) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", n->name);
        cJSON_AddNumberToObject(o, "self", (double) n->self);
        cJSON_AddNumberToObject(o, "total", (double) n->total);
        cJSON *children = cJSON_AddArrayToObject(o, "children");
        for (const struct node *c = n->child; c; c = c->next)
                cJSON_AddItemToArray(children, node_json(c));
        return o;
}

static void tree_add_text(struct tree *t, const char *text, size_t len) {
        struct profile_folded_line l;
        for (size_t pos = 0; profile_folded_next(text, len, &pos, &l);)
                add_stack(t, &l);
}

/* The tree's answer ({samples, truncated, root}) into o; the tree's nodes are freed. */
static void tree_to_json(struct tree *t, cJSON *o) {
        cJSON_AddNumberToObject(o, "samples", (double) t->root.total);
        cJSON_AddBoolToObject(o, "truncated", t->truncated);
        cJSON_AddItemToObject(o, "root", node_json(&t->root));
        node_free_children(&t->root);
}

static struct tree tree_new(unsigned max_depth, size_t max_nodes) {
        return (struct tree){ .root = { .name = "all" }, .max_depth = max_depth, .max_nodes = max_nodes };
}

/* max_depth and max_nodes, the bounds both trees take. */
static int tree_bounds(struct api_request *req, int64_t *ret_depth, int64_t *ret_nodes, struct error *err) {
        int r = api_query_int(req, "max_depth", 1, TREE_DEPTH_MAX, TREE_DEPTH_DEFAULT, ret_depth, err);
        return r < 0 ? r : api_query_int(req, "max_nodes", 1, TREE_NODES_MAX, TREE_NODES_DEFAULT, ret_nodes, err);
}

enum MHD_Result api_get_run_profile(struct api_request *req) {
        const char *id = req->path_params[0], *format = api_query(req, "format");
        struct error err = { 0 };
        int64_t depth, nodes;
        if (format && strcmp(format, "json") != 0 && strcmp(format, "folded") != 0)
                return api_reply_errorf(req, 400, "invalid_value", "format", "must be folded or json, got '%.*s'",
                                        UTF8_PREFIX(format, 32));
        if (tree_bounds(req, &depth, &nodes, &err) < 0)
                return api_reply_error(req, &err);
        bool finished = false;
        int r = runs_is_finished(req->lease.conn, id, &finished);
        if (r < 0)
                return api_reply_errno(req, r, "run");
        /* collection writes the file: only a finished run's is whole */
        if (!finished)
                return api_reply_errorf(req, 409, "not_finished", NULL, "run %s has not finished: its profile is made at the end", id);
        db_lease_release(&req->lease);
        char *text = NULL;
        size_t len = 0;
        r = run_profile_read(req->config->state_dir, id, &text, &len);
        if (r == -ENOENT)
                return api_reply_errorf(req, 404, "not_found", NULL,
                                        "run %s has no profile (its definition has no profile.cpu, its cell has profile false, or profiling failed: see its warnings)", id);
        if (r < 0)
                return api_reply_errno(req, r, "profile");
        if (!format || strcmp(format, "folded") == 0)
                return api_reply_buffer_finished(req, text, len, "text/plain; charset=utf-8", true);
        struct tree t = tree_new((unsigned) depth, (size_t) nodes);
        tree_add_text(&t, text, len);
        free(text);
        cJSON *body = cJSON_CreateObject();
        tree_to_json(&t, body);
        return api_reply_json_finished(req, body, true);
}

/* The cell's succeeded runs' profiles added to t; their ids into ids. A run without a profile
 * file (profiling failed for it: its warnings say why) is left out; one that cannot be read is
 * an error. */
static int cell_tree(const char *state_dir, const cJSON *rows, const char *cell, struct tree *t, cJSON *ids) {
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                const char *c = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "cell"));
                const char *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "state"));
                const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "id"));
                if (!c || !state || !id || strcmp(c, cell) != 0 || strcmp(state, "succeeded") != 0)
                        continue;
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                int r = run_profile_read(state_dir, id, &text, &len);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                tree_add_text(t, text, len);
                cJSON_AddItemToArray(ids, cJSON_CreateString(id));
        }
        return 0;
}

bool api_profile_experiment(struct api_request *req, const char *cell, const char *what, struct profile_experiment *ret,
                            enum MHD_Result *ret_reply) {
        const char *id = req->path_params[0];
        if (!cell) {
                *ret_reply = api_reply_errorf(req, 400, "missing_field", "cell", "is required: %s", what);
                return false;
        }
        int r = experiments_report_rows(req->lease.conn, id, &ret->rows, &ret->cells, ret->status);
        if (r < 0) {
                *ret_reply = api_reply_errno(req, r, "experiment");
                return false;
        }
        db_lease_release(&req->lease);
        if (!json_array_has_string(ret->cells, cell)) {
                *ret_reply = api_reply_errorf(req, 400, "invalid_value", "cell", "no cell '%.*s' in experiment %s",
                                              UTF8_PREFIX(cell, 64), id);
                return false;
        }
        return true;
}

bool api_profile_experiment_finished(const struct profile_experiment *e) {
        return strcmp(e->status, "running") != 0 && strcmp(e->status, "queued") != 0;
}

void api_profile_experiment_done(struct profile_experiment *e) {
        cJSON_Delete(e->rows);
        cJSON_Delete(e->cells);
        *e = (struct profile_experiment){ 0 };
}

enum MHD_Result api_get_experiment_profile_tree(struct api_request *req) {
        const char *cell = api_query(req, "cell");
        struct error err = { 0 };
        int64_t depth, nodes;
        if (tree_bounds(req, &depth, &nodes, &err) < 0)
                return api_reply_error(req, &err);
        _cleanup_(api_profile_experiment_done) struct profile_experiment exp = { 0 };
        enum MHD_Result reply;
        if (!api_profile_experiment(req, cell, "the cell whose runs' profiles to merge", &exp, &reply))
                return reply;
        _cleanup_json_ cJSON *ids = cJSON_CreateArray();
        struct tree t = tree_new((unsigned) depth, (size_t) nodes);
        int r = cell_tree(req->config->state_dir, exp.rows, cell, &t, ids);
        if (r < 0) {
                node_free_children(&t.root);
                return api_reply_errno(req, r, "profile");
        }
        if (cJSON_GetArraySize(ids) == 0)
                return api_reply_errorf(req, 404, "not_found", NULL,
                                        "cell '%.*s' has no profiled run that succeeded (yet: see the runs' state and warnings)",
                                        UTF8_PREFIX(cell, 64));
        cJSON *body = cJSON_CreateObject();
        cJSON_AddStringToObject(body, "cell", cell);
        cJSON_AddItemToObject(body, "runs", TAKE_PTR(ids));
        tree_to_json(&t, body);
        return api_reply_json_finished(req, body, api_profile_experiment_finished(&exp));
}
