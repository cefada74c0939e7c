/* runs.c: queries about runs that the API and the scheduler share. */
#include "runs.h"

int runs_count_queue(struct db_conn *c, int64_t *ret_queued, int64_t *ret_active) {
        static const char sql[] =
                "SELECT coalesce(sum(state = 'queued'), 0),"
                "       coalesce(sum(state IN ('preparing','starting','warmup','measuring','collecting')), 0)"
                "  FROM runs WHERE state NOT IN ('succeeded','failed','cancelled','interrupted')";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        r = db_step(s);
        if (r < 0)
                return r;
        if (r == 0)
                return -EIO;
        *ret_queued = sqlite3_column_int64(s, 0);
        *ret_active = sqlite3_column_int64(s, 1);
        return 0;
}
