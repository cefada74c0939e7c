/* peer-hosts.h: the load hosts this daemon has used (issue 39, GET /v1/peers): each host named
 * in a run's metrics.load.hosts whose clock that run measured, with the clock of the last run
 * that used it. Runs of imported experiments are another lab's and are left out. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "storage/db.h"

/* The hosts read at most, newest use first. */
#define PEER_HOSTS_SCAN_MAX 1024
#define PEER_HOSTS_HOST_MAX 253

struct peer_host_used {
        char host[PEER_HOSTS_HOST_MAX + 1];
        char run_id[64];                /* the last run that used it */
        int64_t used_wall_ns;           /* that run's last state transition */
        double offset_ns, rtt_ns, error_ns;     /* its clock as that run measured it */
};

/* fn per host, newest use first, at most max (<= PEER_HOSTS_SCAN_MAX) of them; fn returning
 * < 0 stops the read with that. 0 or a negative errno. */
int peer_hosts_used(struct db_conn *c, size_t max, int (*fn)(const struct peer_host_used *h, void *userdata),
                    void *userdata);
