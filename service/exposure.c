/* exposure.c: TLS material, the unix socket's permissions and the clear-text warning. */
#include "service/exposure.h"

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/log.h"

#define TLS_FILE_MAX (1024 * 1024)

static int read_pem(const char *flag, const char *path, char **ret) {
        size_t size;
        int r = read_file_bounded(path, TLS_FILE_MAX, ret, &size);
        if (r < 0)
                return log_error_errno(r, "%s %s: cannot read it", flag, path);
        if (!strstr(*ret, "-----BEGIN ")) {
                explicit_bzero(*ret, size);
                free(*ret);
                *ret = NULL;
                return log_error_errno(-EINVAL, "%s %s: not a PEM file", flag, path);
        }
        return 0;
}

int exposure_tls_load(const struct options *o, struct tls_pem *ret) {
        struct tls_pem t = { 0 };
        if (!o->tls_cert || !o->tls_key) {
                *ret = t;
                return 0;
        }
        int r = read_pem("--tls-cert", o->tls_cert, &t.cert);
        if (r >= 0)
                r = read_pem("--tls-key", o->tls_key, &t.key);
        if (r < 0) {
                tls_pem_done(&t);
                return r;
        }
        *ret = t;
        return 0;
}

void tls_pem_done(struct tls_pem *t) {
        if (t->key)
                explicit_bzero(t->key, strlen(t->key));
        free(t->key);
        free(t->cert);
        *t = (struct tls_pem){ 0 };
}

int exposure_socket_perms(const struct options *o, struct listen_socket_perms *ret) {
        struct listen_socket_perms p = { .mode = o->socket_mode, .gid = (gid_t) -1 };
        if (o->socket_group) {
                errno = 0;
                struct group *g = getgrnam(o->socket_group);
                if (!g)
                        return log_error_errno(errno ? -errno : -ESRCH, "--socket-group %s: no such group", o->socket_group);
                p.gid = g->gr_gid;
        }
        *ret = p;
        return 0;
}

void exposure_warn(const char *listen_name, bool local, bool tls) {
        if (!local && !tls)
                log_warning("listening on %s beyond loopback without TLS: the bearer token and every answer cross "
                            "the network in clear text; give --tls-cert and --tls-key", listen_name);
}
