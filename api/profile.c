/* profile.c: GET /v1/runs/{id}/profile: the run's profile.folded as it is (text), or with
 * ?format=json as a tree of {name, self, total, children} bounded in depth and nodes. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers.h"
#include "storage/db.h"
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
static void add_line(struct tree *t, const char *line, size_t len) {
        const char *sp = memrchr(line, ' ', len);
        if (!sp)
                return;
        char *end;
        unsigned long long count = strtoull(sp + 1, &end, 10);
        if (end != line + len || count == 0)
                return;
        struct node *n = &t->root;
        n->total += count;
        unsigned depth = 0;
        for (const char *f = line; f < sp;) {
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

static cJSON *tree_json(const char *text, size_t len, unsigned max_depth, size_t max_nodes) {
        struct tree t = { .root = { .name = "all" }, .max_depth = max_depth, .max_nodes = max_nodes };
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t l = nl ? (size_t) (nl - (text + pos)) : len - pos;
                add_line(&t, text + pos, l);
                pos += l + 1;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "samples", (double) t.root.total);
        cJSON_AddBoolToObject(o, "truncated", t.truncated);
        cJSON_AddItemToObject(o, "root", node_json(&t.root));
        node_free_children(&t.root);
        return o;
}

enum MHD_Result api_get_run_profile(struct api_request *req) {
        const char *id = req->path_params[0], *format = api_query(req, "format");
        struct error err = { 0 };
        int64_t depth, nodes;
        if (format && strcmp(format, "json") != 0 && strcmp(format, "folded") != 0)
                return api_reply_errorf(req, 400, "invalid_value", "format", "must be folded or json, got '%.32s'", format);
        if (api_query_int(req, "max_depth", 1, TREE_DEPTH_MAX, TREE_DEPTH_DEFAULT, &depth, &err) < 0 ||
            api_query_int(req, "max_nodes", 1, TREE_NODES_MAX, TREE_NODES_DEFAULT, &nodes, &err) < 0)
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
                                        "run %s has no profile (its definition has no profile.cpu, or profiling failed: see its warnings)", id);
        if (r < 0)
                return api_reply_errno(req, r, "profile");
        if (!format || strcmp(format, "folded") == 0)
                return api_reply_buffer_finished(req, text, len, "text/plain; charset=utf-8", true);
        cJSON *tree = tree_json(text, len, (unsigned) depth, (size_t) nodes);
        free(text);
        return api_reply_json_finished(req, tree, true);
}
