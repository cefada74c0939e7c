/* listen.h: the API's listening socket: from systemd socket activation, a TCP address or a
 * unix socket path. */
#pragma once

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

struct listen_address {
        bool is_unix;
        struct sockaddr_storage addr;
        socklen_t addr_len;
};

/* "127.0.0.1:7878", "[::1]:7878", "localhost:7878", "unix:/run/slicelab/api.sock". Port 0 asks
 * the kernel for a free port (tests use it; the chosen address is logged and put in STATUS=). */
int listen_address_parse(const char *s, struct listen_address *ret);

/* A unix socket's file: its permission bits and group ((gid_t) -1: the daemon's). A socket
 * systemd passes keeps what its unit (SocketMode=, SocketGroup=) gave it. */
struct listen_socket_perms {
        unsigned mode;
        gid_t gid;
};

/* Bind and listen, or take the socket systemd passed (sd_listen_fds). Returns the fd, the
 * address it really listens on ("127.0.0.1:34567", "unix:/path") and whether it is loopback
 * or a unix socket (reads are open only then). */
int listen_open(const char *spec, const struct listen_socket_perms *perms, int *ret_fd, char *ret_name, size_t name_size,
                bool *ret_local);
