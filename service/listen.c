/* listen.c: opening the API's listening socket. */
#include "service/listen.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "basic/hostport.h"
#include "basic/log.h"
#include "basic/macro.h"

int listen_address_parse(const char *s, struct listen_address *ret) {
        struct listen_address a = { 0 };
        if (strncmp(s, "unix:", 5) == 0) {
                struct sockaddr_un *un = (struct sockaddr_un *) &a.addr;
                const char *path = s + 5;
                if (path[0] != '/' || strlen(path) >= sizeof un->sun_path)
                        return -EINVAL;
                un->sun_family = AF_UNIX;
                strcpy(un->sun_path, path);
                a.is_unix = true;
                a.addr_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
                *ret = a;
                return 0;
        }
        /* Port 0 asks the kernel for a free one. */
        struct hostport hp;
        if (hostport_split(s, strlen(s), HOSTPORT_PORT_ZERO, &hp, NULL) < 0 || !hp.has_port)
                return -EINVAL;
        char host[64];   /* longer than any numeric address */
        if (hp.host_len >= sizeof host)
                return -EINVAL;
        memcpy(host, hp.host, hp.host_len);
        host[hp.host_len] = '\0';
        if (hp.ipv6) {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &a.addr;
                if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
                        return -EINVAL;
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(hp.port);
                a.addr_len = sizeof *in6;
        } else {
                struct sockaddr_in *in = (struct sockaddr_in *) &a.addr;
                if (strcmp(host, "localhost") == 0)
                        strcpy(host, "127.0.0.1");
                if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
                        return -EINVAL;
                in->sin_family = AF_INET;
                in->sin_port = htons(hp.port);
                a.addr_len = sizeof *in;
        }
        *ret = a;
        return 0;
}

static bool sockaddr_is_local(const struct sockaddr_storage *ss) {
        switch (ss->ss_family) {
        case AF_UNIX:
                return true;
        case AF_INET:
                return (ntohl(((const struct sockaddr_in *) ss)->sin_addr.s_addr) >> 24) == 127;
        case AF_INET6: {
                const struct in6_addr *a = &((const struct sockaddr_in6 *) ss)->sin6_addr;
                return IN6_IS_ADDR_LOOPBACK(a) ||
                       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
        }
        default:
                return false;
        }
}

static void sockaddr_name(const struct sockaddr_storage *ss, char *buf, size_t size) {
        char host[INET6_ADDRSTRLEN] = "?";
        switch (ss->ss_family) {
        case AF_UNIX:
                snprintf(buf, size, "unix:%s", ((const struct sockaddr_un *) ss)->sun_path);
                return;
        case AF_INET: {
                const struct sockaddr_in *in = (const struct sockaddr_in *) ss;
                inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
                snprintf(buf, size, "%s:%u", host, ntohs(in->sin_port));
                return;
        }
        case AF_INET6: {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) ss;
                inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
                snprintf(buf, size, "[%s]:%u", host, ntohs(in6->sin6_port));
                return;
        }
        default:
                snprintf(buf, size, "?");
        }
}

/* A unix socket file left by a daemon that died is removed; one somebody listens on is not. */
static int unlink_stale_unix_socket(const struct listen_address *a) {
        const char *path = ((const struct sockaddr_un *) &a->addr)->sun_path;
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (!S_ISSOCK(st.st_mode))
                return -EEXIST;
        _cleanup_close_ int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe < 0)
                return negative_errno();
        if (connect(probe, (const struct sockaddr *) &a->addr, a->addr_len) == 0)
                return -EADDRINUSE;
        return unlink(path) < 0 ? negative_errno() : 0;
}

/* The socket file is made with exactly the mode asked for (umask set around bind, so there is
 * no moment with a wider one), then given its group. */
static int bind_unix(int fd, const struct listen_address *a, const struct listen_socket_perms *p) {
        mode_t old = umask(~(mode_t) p->mode & 0777);
        int r = bind(fd, (const struct sockaddr *) &a->addr, a->addr_len) < 0 ? negative_errno() : 0;
        umask(old);
        if (r < 0)
                return r;
        const char *path = ((const struct sockaddr_un *) &a->addr)->sun_path;
        /* bind() honours the umask only; chmod says it outright whatever the umask allowed. */
        if (chmod(path, p->mode) < 0 || (p->gid != (gid_t) -1 && chown(path, (uid_t) -1, p->gid) < 0)) {
                r = negative_errno();
                (void) unlink(path);
                return log_error_errno(r, "cannot set the mode %04o and group of %s", p->mode, path);
        }
        return 0;
}

static int bind_and_listen(const struct listen_address *a, const struct listen_socket_perms *p, int *ret) {
        _cleanup_close_ int fd = socket(a->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        if (a->is_unix) {
                int r = unlink_stale_unix_socket(a);
                if (r < 0)
                        return r;
        } else {
                int one = 1;
                if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
                        return negative_errno();
        }
        if (a->is_unix) {
                int r = bind_unix(fd, a, p);
                if (r < 0)
                        return r;
        } else if (bind(fd, (const struct sockaddr *) &a->addr, a->addr_len) < 0)
                return negative_errno();
        if (listen(fd, SOMAXCONN) < 0)
                return negative_errno();
        *ret = TAKE_FD(fd);
        return 0;
}

int listen_open(const char *spec, const struct listen_socket_perms *perms, int *ret_fd, char *ret_name, size_t name_size,
                bool *ret_local) {
        int fd = -1;
        int n = sd_listen_fds(true);
        if (n < 0)
                return log_error_errno(n, "cannot read the sockets passed by systemd");
        if (n > 1)
                return log_error_errno(-EINVAL, "systemd passed %d sockets; slicelabd takes one", n);
        if (n == 1) {
                fd = SD_LISTEN_FDS_START;
                if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1) <= 0)
                        return log_error_errno(-EINVAL, "the socket systemd passed is not a listening stream socket");
                log_info("using the socket passed by systemd; --listen is ignored");
        } else {
                struct listen_address a;
                int r = listen_address_parse(spec, &a);
                if (r < 0)
                        return log_error_errno(r, "cannot listen on %s: not a valid address", spec);
                r = bind_and_listen(&a, perms, &fd);
                if (r < 0)
                        return log_error_errno(r, "cannot listen on %s", spec);
        }
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        if (getsockname(fd, (struct sockaddr *) &ss, &len) < 0) {
                int r = negative_errno();
                close(fd);
                return log_error_errno(r, "getsockname");
        }
        sockaddr_name(&ss, ret_name, name_size);
        *ret_local = sockaddr_is_local(&ss);
        *ret_fd = fd;
        return 0;
}
