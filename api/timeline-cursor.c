/* timeline-cursor.c: the records of a stored timeline in order, one block in memory at a time. */
#include "api/timeline-cursor.h"

#include <stdio.h>
#include <string.h>

#include "basic/error.h"
#include "basic/utf8.h"
#include "storage/runs.h"

int timeline_cursor_next(struct timeline_cursor *c, const struct timeline_record **ret, int64_t *ret_seq) {
        while (!c->done) {
                if (c->block_pos >= c->block_n) {
                        int n = requests_block_at(c->lease.conn, c->run_id, c->step, c->next_seq, c->from_ns, c->block, &c->block_first_seq);
                        if (n < 0)
                                return n;
                        if (n == 0) {
                                c->done = true;
                                break;
                        }
                        c->block_n = (size_t) n;
                        c->block_pos = c->next_seq > c->block_first_seq ? (size_t) (c->next_seq - c->block_first_seq) : 0;
                        continue;
                }
                const struct timeline_record *rec = &c->block[c->block_pos];
                int64_t seq = c->block_first_seq + (int64_t) c->block_pos;
                c->block_pos++;
                c->next_seq = seq + 1;
                if (rec->scheduled_ns >= c->to_ns) {
                        c->done = true; /* sorted: nothing later can be in the window */
                        break;
                }
                if (rec->scheduled_ns < c->from_ns)
                        continue;
                unsigned phase = rec->flags & TIMELINE_WARMUP ? PHASE_WARMUP : PHASE_MEASURE;
                if (!(c->phases & phase))
                        continue;
                *ret = rec;
                *ret_seq = seq;
                return 1;
        }
        return 0;
}

static void cursor_what(const struct timeline_cursor *c, char what[static 64]) {
        snprintf(what, 64, "the timeline of run %s", c->run_id);
}

int timeline_cursor_inconsistent(const struct timeline_cursor *c, struct error *err) {
        char what[64];
        cursor_what(c, what);
        return api_error_inconsistent(err, what);
}

int timeline_cursor_check(struct timeline_cursor *c, struct error *err) {
        int r = requests_check_blocks(c->lease.conn, c->run_id, c->step);
        if (r == -EUCLEAN)
                return timeline_cursor_inconsistent(c, err);
        if (r < 0)
                return error_set(err, 500, "internal", NULL, "cannot read the timeline of run %s", c->run_id);
        return 0;
}

enum MHD_Result timeline_cursor_reply_errno(struct api_request *req, const struct timeline_cursor *c, int r) {
        char what[64];
        cursor_what(c, what);
        return api_reply_errno(req, r, what);
}

int timeline_ns_at(int64_t start_ns, int64_t ms, int64_t *ret) {
        int64_t ns;
        if (__builtin_mul_overflow(ms, INT64_C(1000000), &ns) || __builtin_add_overflow(start_ns, ns, &ns))
                return -EUCLEAN;
        *ret = ns;
        return 0;
}

int timeline_ms_between(int64_t a_ns, int64_t b_ns, int64_t *ret) {
        int64_t d;
        if (__builtin_sub_overflow(a_ns, b_ns, &d))
                return -EUCLEAN;
        *ret = d / 1000000 - (d % 1000000 < 0);
        return 0;
}

int timeline_query_phase(struct api_request *req, unsigned *ret, struct error *err) {
        const char *phase = api_query(req, "phase");
        if (!phase || strcmp(phase, "measure") == 0)
                *ret = PHASE_MEASURE;
        else if (strcmp(phase, "warmup") == 0)
                *ret = PHASE_WARMUP;
        else if (strcmp(phase, "all") == 0)
                *ret = PHASE_MEASURE | PHASE_WARMUP;
        else
                return error_set(err, 400, "invalid_parameter", "phase", "phase must be measure, warmup or all, got '%.*s'",
                                 UTF8_PREFIX(phase, 32));
        return 0;
}

void timeline_cursor_attach(struct api_request *req, struct timeline_cursor *c) {
        snprintf(c->run_id, sizeof c->run_id, "%s", req->path_params[0]);
        c->lease = req->lease;
        req->lease.conn = NULL;
}

int timeline_cursor_open(struct api_request *req, struct timeline_cursor *c, struct error *err) {
        const char *id = req->path_params[0];
        timeline_cursor_attach(req, c);
        c->step = -1; /* the run's own timeline: buckets and histograms take no ?step= */
        int r = runs_measure_start(c->lease.conn, id, &c->measure_start_ns);
        if (r >= 0)
                r = runs_is_finished(c->lease.conn, id, &c->finished);
        if (r == -ENOENT)
                return error_set(err, 404, "not_found", NULL, "run not found");
        if (r == -ENODATA)
                return error_set(err, 404, "not_found", NULL, "run %s has no timeline (yet)", id);
        if (r < 0)
                return error_set(err, 500, "internal", NULL, "cannot read run %s", id);
        return timeline_cursor_check(c, err);
}
