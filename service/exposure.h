/* exposure.h: how the API is exposed beyond the process: TLS material for HTTPS, the unix
 * socket's mode and group, and the warning when it listens beyond loopback in clear. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "service/listen.h"
#include "service/options.h"

struct tls_pem {
        char *cert;     /* PEM text, or NULL without --tls-cert */
        char *key;
};

/* Read --tls-cert and --tls-key (each at most 1 MiB) before anything listens; an error names
 * the file. Nothing to do (both NULL) when they are not set. */
int exposure_tls_load(const struct options *o, struct tls_pem *ret);
/* Free, the key's bytes wiped first. */
void tls_pem_done(struct tls_pem *t);

/* --socket-mode and --socket-group resolved (the group by name); an unknown group is an error. */
int exposure_socket_perms(const struct options *o, struct listen_socket_perms *ret);

/* The log's warning for an API reachable from other hosts without TLS. */
void exposure_warn(const char *listen_name, bool local, bool tls);
