/* conn-hold: abusive HTTP clients for the chaos tests.
 *   conn-hold PORT SOURCE COUNT idle     open COUNT connections from SOURCE (an address of
 *                                        127.0.0.0/8) to 127.0.0.1:PORT and send nothing
 *   conn-hold PORT SOURCE 1 trickle      one connection sending request headers one byte a
 *                                        second, never finishing them
 * Prints "opened N" once connected, "kept K" with the connections the server had not closed
 * one second later, then "closed after S s" once the server has closed every one of them (or
 * "still open after S s" at a limit of 60 s) and exits. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_S 60

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int open_one(const char *source, int port) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -1;
        struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        inet_pton(AF_INET, source, &src.sin_addr);
        inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
        if (bind(fd, (struct sockaddr *) &src, sizeof src) < 0 || connect(fd, (struct sockaddr *) &dst, sizeof dst) < 0) {
                close(fd);
                return -1;
        }
        return fd;
}

/* Closed by the server: readable with nothing to read, or an error. */
static int count_open(struct pollfd *p, int n) {
        for (int i = 0; i < n; i++)
                p[i].events = POLLIN;
        poll(p, (nfds_t) n, 0);
        int open = 0;
        char c;
        for (int i = 0; i < n; i++) {
                if (p[i].fd < 0)
                        continue;
                if (p[i].revents && recv(p[i].fd, &c, 1, MSG_DONTWAIT) <= 0) {
                        close(p[i].fd);
                        p[i].fd = -1;
                        continue;
                }
                open++;
        }
        return open;
}

int main(int argc, char **argv) {
        if (argc != 5) {
                fprintf(stderr, "usage: conn-hold PORT SOURCE COUNT idle|trickle\n");
                return 2;
        }
        int port = atoi(argv[1]), count = atoi(argv[3]);
        int trickle = strcmp(argv[4], "trickle") == 0;
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
                rl.rlim_cur = rl.rlim_max;
                setrlimit(RLIMIT_NOFILE, &rl);
        }
        struct pollfd *p = calloc((size_t) count, sizeof *p);
        if (!p)
                return 1;
        int opened = 0;
        for (int i = 0; i < count; i++) {
                p[i].fd = open_one(argv[2], port);
                opened += p[i].fd >= 0;
        }
        double start = now_s();
        printf("opened %d\n", opened);
        fflush(stdout);
        static const char req[] = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
        size_t sent = 0;
        int open = opened;
        for (int tick = 0; open > 0 && now_s() - start < LIMIT_S; tick++) {
                if (trickle)
                        for (int i = 0; i < count; i++)
                                if (p[i].fd >= 0)
                                        (void) send(p[i].fd, sent < sizeof req - 1 ? &req[sent] : "a", 1, MSG_NOSIGNAL);
                sent++;
                usleep(trickle ? 1000000 : 100000);
                open = count_open(p, count);
                if (tick == (trickle ? 0 : 9)) {
                        printf("kept %d\n", open);
                        fflush(stdout);
                }
        }
        printf("%s after %.0f s\n", open ? "still open" : "closed", now_s() - start);
        fflush(stdout);
        for (int i = 0; i < count; i++)
                if (p[i].fd >= 0)
                        close(p[i].fd);
        free(p);
        return 0;
}
