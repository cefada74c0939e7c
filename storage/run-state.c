/* run-state.c: the lifecycle's names, its transition rows, and experiments' status. */
#include "storage/run-state.h"

#include <string.h>

#include "basic/time-util.h"

static const char *const state_names[_RUN_STATE_MAX] = {
        [RUN_QUEUED] = "queued",         [RUN_PREPARING] = "preparing", [RUN_STARTING] = "starting",
        [RUN_WARMUP] = "warmup",         [RUN_MEASURING] = "measuring", [RUN_COLLECTING] = "collecting",
        [RUN_SUCCEEDED] = "succeeded",   [RUN_FAILED] = "failed",       [RUN_CANCELLED] = "cancelled",
        [RUN_INTERRUPTED] = "interrupted",
};

const char *run_state_to_string(int state) {
        return state >= 0 && state < _RUN_STATE_MAX ? state_names[state] : "unknown";
}

int run_state_from_string(const char *s) {
        for (int i = 0; s && i < _RUN_STATE_MAX; i++)
                if (strcmp(s, state_names[i]) == 0)
                        return i;
        return -EINVAL;
}

bool run_state_is_terminal(int state) {
        return state >= RUN_SUCCEEDED;
}

int run_state_transition(struct db_conn *c, const char *run_id, const char *state, const char *reason,
                    const char *message) {
        static const char sql_update[] =
                "UPDATE runs SET state = ?2, reason = coalesce(?3, reason), message = coalesce(?4, message)"
                " WHERE id = ?1";
        static const char sql_event[] =
                "INSERT INTO run_events(run_id, seq, state, wall_ns, mono_ns, message)"
                " VALUES (?1, (SELECT coalesce(max(seq), -1) + 1 FROM run_events WHERE run_id = ?1), ?2, ?3, ?4, ?5)";
        sqlite3_stmt *u _cleanup_stmt_ = NULL, *e _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql_update, &u);
        if (r < 0 || (r = db_stmt(c, sql_event, &e)) < 0)
                return r;
        db_bind_text(u, 1, run_id);
        db_bind_text(u, 2, state);
        db_bind_text(u, 3, reason);
        db_bind_text(u, 4, message);
        if ((r = db_step(u)) < 0)
                return r;
        if (sqlite3_changes(db_handle(c)) == 0)
                return -ENOENT;
        db_bind_text(e, 1, run_id);
        db_bind_text(e, 2, state);
        sqlite3_bind_int64(e, 3, now_wall_ns());
        sqlite3_bind_int64(e, 4, now_mono_ns());
        db_bind_text(e, 5, message);
        r = db_step(e);
        return r < 0 ? r : 0;
}

int run_state_refresh_experiment(struct db_conn *c, const char *id) {
        static const char sql[] =
                "UPDATE experiments SET"
                " status = (SELECT CASE"
                "   WHEN sum(state IN " RUN_STATES_UNFINISHED_SQL ") > 0 THEN"
                "     CASE WHEN sum(state <> 'queued') > 0 THEN 'running' ELSE 'queued' END"
                "   WHEN (SELECT cancel_requested FROM experiments WHERE id = ?1) THEN 'cancelled'"
                "   WHEN sum(state = 'succeeded') = count(*) THEN 'succeeded'"
                "   WHEN sum(state = 'succeeded') = 0 THEN 'failed'"
                "   ELSE 'partial' END FROM runs WHERE experiment_id = ?1),"
                " finished_wall_ns = CASE WHEN (SELECT count(*) FROM runs WHERE experiment_id = ?1 AND state IN"
                "   " RUN_STATES_UNFINISHED_SQL ") = 0"
                "   THEN coalesce(finished_wall_ns, ?2) ELSE NULL END"
                " WHERE id = ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, id, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 2, now_wall_ns());
        r = db_step(s);
        return r < 0 ? r : 0;
}
