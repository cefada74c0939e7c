/* peer-tool.c: the peer client library (peer/) from the command line, for tests/peers/loads.sh:
 * the calls a coordinator makes, against a real peer daemon.
 *   peer-tool TEMPLATE ALLOW TOKEN_FILE HOST clock N       -> "offset_ns rtt_ns error_ns samples"
 *   peer-tool ... HOST start BODY_FILE                     -> the load's id
 *   peer-tool ... HOST renew ID | get ID | delete ID
 *   peer-tool ... HOST timeline ID DIR NAME
 *   peer-tool ... HOST probe MORE|-        -> per host (HOST, then MORE's comma-separated ones):
 *                                             "host yes|no version|- error" (peer_probe)
 * An error prints the library's message on stderr and exits 1. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "peer/peer-client.h"
#include "peer/peer-probe.h"

static int fail(const struct error *err) {
        fprintf(stderr, "peer-tool: %s\n", err->message);
        return 1;
}

int main(int argc, char **argv) {
        if (argc < 7) {
                fprintf(stderr, "usage: peer-tool TEMPLATE ALLOW TOKEN_FILE HOST CMD ARG...\n");
                return 2;
        }
        _cleanup_free_ char *token = NULL;
        if (read_one_line(argv[3], &token) < 0) {
                fprintf(stderr, "peer-tool: cannot read %s\n", argv[3]);
                return 2;
        }
        char *allow[] = { argv[2], NULL };
        const struct peer_config c = { .url_template = argv[1], .allow = allow, .token = token };
        const char *host = argv[4], *cmd = argv[5], *arg = argv[6];
        struct error err = { 0 };
        if (peer_global_init() < 0)
                return 2;
        if (strcmp(cmd, "clock") == 0) {
                struct peer_clock pc;
                if (peer_clock_measure(&c, host, (unsigned) atoi(arg), &pc, &err) < 0)
                        return fail(&err);
                printf("%" PRId64 " %" PRId64 " %" PRId64 " %u\n", pc.offset_ns, pc.rtt_ns, pc.error_ns, pc.samples);
                return 0;
        }
        if (strcmp(cmd, "start") == 0) {
                _cleanup_free_ char *body = NULL, *id = NULL;
                if (read_file_bounded(arg, 1 << 20, &body, NULL) < 0)
                        return 2;
                if (peer_load_start(&c, host, body, &id, &err) < 0)
                        return fail(&err);
                printf("%s\n", id);
                return 0;
        }
        if (strcmp(cmd, "renew") == 0)
                return peer_load_renew(&c, host, arg, &err) < 0 ? fail(&err) : 0;
        if (strcmp(cmd, "delete") == 0)
                return peer_load_delete(&c, host, arg, &err) < 0 ? fail(&err) : 0;
        if (strcmp(cmd, "get") == 0) {
                _cleanup_free_ char *json = NULL;
                if (peer_load_get(&c, host, arg, &json, &err) < 0)
                        return fail(&err);
                printf("%s\n", json);
                return 0;
        }
        if (strcmp(cmd, "timeline") == 0 && argc >= 9) {
                _cleanup_close_ int dir = open(argv[7], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dir < 0)
                        return 2;
                return peer_load_fetch_timeline(&c, host, arg, dir, argv[8], &err) < 0 ? fail(&err) : 0;
        }
        if (strcmp(cmd, "probe") == 0) {
                const char *hosts[16] = { host };
                size_t n = 1;
                _cleanup_free_ char *more = strdup(arg);
                for (char *save = NULL, *t = strtok_r(more, ",", &save); t && n < ELEMENTSOF(hosts);
                     t = strtok_r(NULL, ",", &save))
                        if (strcmp(t, "-") != 0)
                                hosts[n++] = t;
                struct peer_probe probes[ELEMENTSOF(hosts)];
                if (peer_probe(&c, hosts, n, probes) < 0)
                        return 2;
                for (size_t i = 0; i < n; i++)
                        printf("%s %s %s %s\n", hosts[i], probes[i].answers ? "yes" : "no",
                               probes[i].version[0] ? probes[i].version : "-", probes[i].error[0] ? probes[i].error : "-");
                return 0;
        }
        fprintf(stderr, "peer-tool: unknown command %s\n", cmd);
        return 2;
}
