/* peer-hosts.c: the load hosts the runs used, from their stored metrics (peer-hosts.h). */
#include "storage/peer-hosts.h"

#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

int peer_hosts_used(struct db_conn *c, size_t max, int (*fn)(const struct peer_host_used *h, void *userdata),
                    void *userdata) {
        /* The row of each host's latest use: with one max() aggregate, SQLite takes the other
         * columns from the row that has it. instr() skips the runs without load hosts before
         * their metrics are parsed. A host whose clock a run never measured (rtt_ns 0: it did
         * not answer in preflight) was not used by that run. */
        static const char sql[] =
                "SELECT host, run_id, max(used_ns), offset_ns, rtt_ns, error_ns FROM ("
                "  SELECT json_extract(h.value, '$.host') AS host, r.id AS run_id,"
                "         (SELECT max(e.wall_ns) FROM run_events e WHERE e.run_id = r.id) AS used_ns,"
                "         json_extract(h.value, '$.offset_ns') AS offset_ns,"
                "         json_extract(h.value, '$.rtt_ns') AS rtt_ns,"
                "         json_extract(h.value, '$.error_ns') AS error_ns"
                "    FROM runs r, json_each(r.metrics, '$.load.hosts') h"
                "   WHERE r.metrics IS NOT NULL AND instr(r.metrics, '\"hosts\"') > 0"
                "     AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.experiment_id = r.experiment_id)"
                "     AND json_type(h.value, '$.host') = 'text' AND json_extract(h.value, '$.rtt_ns') > 0)"
                " WHERE used_ns IS NOT NULL"
                " GROUP BY host ORDER BY 3 DESC, host LIMIT ?1";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt(c, sql, &s);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 1, (sqlite3_int64) MIN(max, (size_t) PEER_HOSTS_SCAN_MAX));
        while ((r = db_step(s)) > 0) {
                const char *host = (const char *) sqlite3_column_text(s, 0);
                const char *run = (const char *) sqlite3_column_text(s, 1);
                struct peer_host_used h = {
                        .used_wall_ns = sqlite3_column_int64(s, 2),
                        .offset_ns = sqlite3_column_double(s, 3),
                        .rtt_ns = sqlite3_column_double(s, 4),
                        .error_ns = sqlite3_column_double(s, 5),
                };
                /* A name longer than a host's is no host this daemon used: skipped, not cut. */
                if (!host || strlen(host) > PEER_HOSTS_HOST_MAX || !run || strlen(run) >= sizeof h.run_id)
                        continue;
                strcpy(h.host, host);
                strcpy(h.run_id, run);
                r = fn(&h, userdata);
                if (r < 0)
                        return r;
        }
        return r;
}
