/* profile-diff.c: GET /v1/experiments/{id}/profile?cell=B&baseline=A: per thread group and per
 * frame, its share of each profiled run's samples (self: the frame is the leaf; total: anywhere
 * in the stack, once per stack), the cell's and the baseline's mean share with a 95% interval
 * across iterations, and the difference of the means with its Welch interval; largest absolute
 * difference of total share first, at most `limit` frames. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers.h"
#include "api/profile-read.h"
#include "basic/json-util.h"
#include "basic/stats.h"
#include "storage/db.h"
#include "storage/experiments.h"

#define RECORDS_PER_RUN_MAX (4u << 20)
#define FRAMES_LIMIT_DEFAULT 100
#define FRAMES_LIMIT_MAX 1000

/* One frame's counts in one run. */
struct record {
        const char *name;
        uint32_t run;
        bool group;
        uint64_t self, total;
};

struct records {
        struct record *r;
        size_t n, cap;
        bool truncated;
};

static int push(struct records *rs, const char *name, uint32_t run, bool group, uint64_t self, uint64_t total) {
        if (rs->n >= (size_t) RECORDS_PER_RUN_MAX * 8) {
                rs->truncated = true;
                return 0;
        }
        if (rs->n == rs->cap) {
                size_t cap = rs->cap ? rs->cap * 2 : 4096;
                struct record *r = reallocarray(rs->r, cap, sizeof *r);
                if (!r)
                        return -ENOMEM;
                rs->r = r;
                rs->cap = cap;
        }
        rs->r[rs->n++] = (struct record){ name, run, group, self, total };
        return 0;
}

/* Splits text in place ("a;b;c N" lines) into records of run; *ret_samples their sum. */
static int run_records(char *text, size_t len, uint32_t run, struct records *rs, uint64_t *ret_samples) {
        uint64_t samples = 0;
        for (size_t pos = 0; pos < len;) {
                char *line = text + pos, *nl = memchr(line, '\n', len - pos);
                size_t l = nl ? (size_t) (nl - line) : len - pos;
                pos += l + 1;
                line[l] = '\0';
                char *sp = strrchr(line, ' '), *end;
                if (!sp)
                        continue;
                *sp = '\0';
                uint64_t c = strtoull(sp + 1, &end, 10);
                if (*end || c == 0)
                        continue;
                samples += c;
                const char *frames[256];
                size_t n = 0;
                for (char *f = line, *next; f && n < ELEMENTSOF(frames); f = next) {
                        next = strchr(f, ';');
                        if (next)
                                *next++ = '\0';
                        frames[n++] = f;
                }
                if (n == 0)
                        continue;
                int r = push(rs, frames[0], run, true, 0, c);
                for (size_t i = 1; r >= 0 && i < n; i++) {
                        bool seen = false; /* recursion: a frame's total counts a stack once */
                        for (size_t j = 1; j < i && !seen; j++)
                                seen = strcmp(frames[j], frames[i]) == 0;
                        if (!seen || i == n - 1)
                                r = push(rs, frames[i], run, false, i == n - 1 ? c : 0, seen ? 0 : c);
                }
                if (r < 0)
                        return r;
        }
        *ret_samples = samples;
        return 0;
}

static int cmp_record(const void *a, const void *b) {
        const struct record *x = a, *y = b;
        if (x->group != y->group)
                return x->group ? -1 : 1;
        int c = strcmp(x->name, y->name);
        return c ? c : (x->run > y->run) - (x->run < y->run);
}

struct side {
        size_t first, n;                /* runs [first, first + n) of the run list */
};

static cJSON *share_json(const double *x, size_t n, struct stats_summary *ret) {
        cJSON *o = cJSON_CreateObject();
        cJSON *a = cJSON_AddArrayToObject(o, "shares");
        for (size_t i = 0; i < n; i++)
                cJSON_AddItemToArray(a, cJSON_CreateNumber(x[i]));
        struct stats_summary s = { 0 };
        if (n > 0 && stats_describe(x, n, &s) >= 0) {
                cJSON_AddNumberToObject(o, "mean", s.mean);
                if (s.have_ci) {
                        cJSON_AddNumberToObject(o, "ci_low", s.ci_low);
                        cJSON_AddNumberToObject(o, "ci_high", s.ci_high);
                } else {
                        cJSON_AddNullToObject(o, "ci_low");
                        cJSON_AddNullToObject(o, "ci_high");
                }
        }
        *ret = s;
        return o;
}

/* mean(b) - mean(a) with Welch's interval (t at Welch-Satterthwaite degrees of freedom). */
static cJSON *difference_json(const struct stats_summary *b, const struct stats_summary *a, double *ret) {
        cJSON *o = cJSON_CreateObject();
        double d = b->mean - a->mean;
        *ret = d;
        cJSON_AddNumberToObject(o, "value", d);
        double vb = b->have_stddev ? b->stddev * b->stddev / (double) b->n : NAN;
        double va = a->have_stddev ? a->stddev * a->stddev / (double) a->n : NAN;
        double se = sqrt(vb + va);
        if (isfinite(se) && se > 0) {
                double df = (vb + va) * (vb + va) / (vb * vb / (double) (b->n - 1) + va * va / (double) (a->n - 1));
                double t = stats_t_quantile(0.975, df);
                cJSON_AddNumberToObject(o, "ci_low", d - t * se);
                cJSON_AddNumberToObject(o, "ci_high", d + t * se);
                cJSON_AddBoolToObject(o, "excludes_zero", d - t * se > 0 || d + t * se < 0);
        } else {
                cJSON_AddNullToObject(o, "ci_low");
                cJSON_AddNullToObject(o, "ci_high");
                cJSON_AddBoolToObject(o, "excludes_zero", false);
        }
        return o;
}

/* The entry of one name: records [from, to) of the sorted list, one per run at most. */
static cJSON *entry_json(const struct record *r, size_t from, size_t to, const uint64_t *samples, struct side cell,
                         struct side base, double *ret_abs) {
        size_t runs = cell.n + base.n;
        _cleanup_free_ double *self = calloc(runs, sizeof(double)), *total = calloc(runs, sizeof(double));
        if (!self || !total)
                return NULL;
        for (size_t i = from; i < to; i++) {
                size_t k = r[i].run;
                self[k] += samples[k] ? (double) r[i].self / (double) samples[k] : 0;
                total[k] += samples[k] ? (double) r[i].total / (double) samples[k] : 0;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r[from].name);
        const char *const kinds[] = { "self", "total" };
        double *values[] = { self, total };
        for (size_t k = r[from].group ? 1 : 0; k < 2; k++) {
                struct stats_summary sc, sb;
                cJSON *e = cJSON_AddObjectToObject(o, kinds[k]);
                cJSON_AddItemToObject(e, "cell", share_json(values[k] + cell.first, cell.n, &sc));
                cJSON_AddItemToObject(e, "baseline", share_json(values[k] + base.first, base.n, &sb));
                double d = 0;
                cJSON_AddItemToObject(e, "difference", difference_json(&sc, &sb, &d));
                if (k == 1)
                        *ret_abs = fabs(d);
        }
        return o;
}

struct ranked {
        double key;
        cJSON *item;
};

static int cmp_ranked(const void *a, const void *b) {
        const struct ranked *x = a, *y = b;
        return (x->key < y->key) - (x->key > y->key);
}

/* The profiled, succeeded runs of one cell, read in; run indices continue from *n_runs. */
static int read_cell(struct api_request *req, const cJSON *rows, const char *cell, struct records *rs,
                     char ***texts, uint64_t **samples, size_t *n_runs, struct side *ret) {
        ret->first = *n_runs;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) {
                const cJSON *c = cJSON_GetObjectItemCaseSensitive(row, "cell");
                const cJSON *st = cJSON_GetObjectItemCaseSensitive(row, "state");
                const cJSON *id = cJSON_GetObjectItemCaseSensitive(row, "id");
                if (!cJSON_IsString(c) || strcmp(c->valuestring, cell) != 0 || !cJSON_IsString(st) ||
                    strcmp(st->valuestring, "succeeded") != 0 || !cJSON_IsString(id))
                        continue;
                char *text = NULL;
                size_t len = 0;
                if (api_profile_read(req->config->state_dir, id->valuestring, &text, &len) < 0)
                        continue;
                char **t = reallocarray(*texts, *n_runs + 1, sizeof **texts);
                uint64_t *s = t ? reallocarray(*samples, *n_runs + 1, sizeof **samples) : NULL;
                if (t)
                        *texts = t;
                if (s)
                        *samples = s;
                if (!t || !s) {
                        free(text);
                        return -ENOMEM;
                }
                (*texts)[*n_runs] = text;
                int r = run_records(text, len, (uint32_t) *n_runs, rs, &(*samples)[*n_runs]);
                (*n_runs)++;
                if (r < 0)
                        return r;
        }
        ret->n = *n_runs - ret->first;
        return 0;
}

static bool has_cell(const cJSON *cells, const char *name) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cells)
                if (cJSON_IsString(c) && strcmp(c->valuestring, name) == 0)
                        return true;
        return false;
}

enum MHD_Result api_get_experiment_profile(struct api_request *req) {
        const char *id = req->path_params[0], *cell = api_query(req, "cell"), *baseline = api_query(req, "baseline");
        struct error err = { 0 };
        int64_t limit;
        if (api_query_int(req, "limit", 1, FRAMES_LIMIT_MAX, FRAMES_LIMIT_DEFAULT, &limit, &err) < 0)
                return api_reply_error(req, &err);
        if (!cell)
                return api_reply_errorf(req, 400, "missing_field", "cell", "is required: the cell to compare");
        _cleanup_json_ cJSON *rows = NULL, *cells = NULL;
        char status[EXPERIMENT_STATUS_SIZE];
        int r = experiments_report_rows(req->lease.conn, id, &rows, &cells, status);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        db_lease_release(&req->lease);
        const cJSON *first = cJSON_GetArrayItem(cells, 0);
        if (!baseline && cJSON_IsString(first))
                baseline = first->valuestring;
        if (!has_cell(cells, cell))
                return api_reply_errorf(req, 400, "invalid_value", "cell", "no cell '%.64s' in experiment %s", cell, id);
        if (!baseline || !has_cell(cells, baseline))
                return api_reply_errorf(req, 400, "invalid_value", "baseline", "no cell '%.64s' in experiment %s",
                                        baseline ? baseline : "", id);
        if (strcmp(cell, baseline) == 0)
                return api_reply_errorf(req, 400, "conflict", "baseline", "must be another cell than cell ('%.64s')", cell);

        struct records rs = { 0 };
        char **texts = NULL;
        uint64_t *samples = NULL;
        size_t n_runs = 0;
        struct side sc = { 0 }, sb = { 0 };
        r = read_cell(req, rows, cell, &rs, &texts, &samples, &n_runs, &sc);
        if (r >= 0)
                r = read_cell(req, rows, baseline, &rs, &texts, &samples, &n_runs, &sb);
        cJSON *body = NULL;
        struct ranked *ranked = NULL;
        size_t n_ranked = 0;
        if (r >= 0 && rs.n > 0) {
                qsort(rs.r, rs.n, sizeof *rs.r, cmp_record);
                ranked = calloc(rs.n, sizeof *ranked);
                if (!ranked)
                        r = -ENOMEM;
        }
        if (r >= 0) {
                body = cJSON_CreateObject();
                cJSON_AddStringToObject(body, "cell", cell);
                cJSON_AddStringToObject(body, "baseline", baseline);
                cJSON_AddNumberToObject(body, "cell_runs", (double) sc.n);
                cJSON_AddNumberToObject(body, "baseline_runs", (double) sb.n);
                cJSON_AddBoolToObject(body, "truncated", rs.truncated);
                cJSON *groups = cJSON_AddArrayToObject(body, "groups");
                for (size_t i = 0, j; i < rs.n; i = j) {
                        for (j = i + 1; j < rs.n && rs.r[j].group == rs.r[i].group && strcmp(rs.r[j].name, rs.r[i].name) == 0; j++)
                                ;
                        double key = 0;
                        cJSON *e = entry_json(rs.r, i, j, samples, sc, sb, &key);
                        if (!e) {
                                r = -ENOMEM;
                                break;
                        }
                        if (rs.r[i].group)
                                cJSON_AddItemToArray(groups, e);
                        else
                                ranked[n_ranked++] = (struct ranked){ key, e };
                }
                qsort(ranked, n_ranked, sizeof *ranked, cmp_ranked);
                cJSON *frames = cJSON_AddArrayToObject(body, "frames");
                for (size_t i = 0; i < n_ranked; i++) {
                        if (i < (size_t) limit)
                                cJSON_AddItemToArray(frames, ranked[i].item);
                        else
                                cJSON_Delete(ranked[i].item);
                }
        }
        free(ranked);
        free(rs.r);
        for (size_t i = 0; i < n_runs; i++)
                free(texts[i]);
        free(texts);
        free(samples);
        if (r < 0) {
                cJSON_Delete(body);
                return api_reply_errno(req, r, "profile");
        }
        if (sc.n == 0 || sb.n == 0) {
                cJSON_Delete(body);
                return api_reply_errorf(req, 404, "not_found", NULL, "cell '%.64s' has no profiled run that succeeded",
                                        sc.n == 0 ? cell : baseline);
        }
        return api_reply_json_finished(req, body, strcmp(status, "running") != 0 && strcmp(status, "queued") != 0);
}
