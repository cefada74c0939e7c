/* http-test-server.c: a small HTTP/1.1 server for the injector's tests, able to misbehave on
 * purpose. It listens on an ephemeral port, prints the port on stdout, and answers every request
 * the way --mode says:
 *   length   200 with Content-Length (default)     chunked  200 with a chunked body and trailer
 *   close    answers with Connection: close, then closes
 *   never    reads requests and never answers      reset    answers nothing, resets (RST)
 * --delay-ms N waits before each answer, --status N answers with that status, --body N sets the
 * body size, --notify-after N prints "served N" on stdout once N answers were sent (an event the
 * tests wait for), --listen ADDR picks the address (127.0.0.1 or ::1). One thread per connection:
 * simple, and plenty for tests. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_LENGTH, MODE_CHUNKED, MODE_CLOSE, MODE_NEVER, MODE_RESET };

static enum mode mode = MODE_LENGTH;
static unsigned delay_ms;
static unsigned status = 200;
static size_t body_size = 100;
static unsigned long notify_after;
static atomic_ulong served;
static char *body;

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -1;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

/* Read one request (headers and a Content-Length body) from buf/len, reading more as needed.
 * Returns the bytes it used, 0 on EOF or error. */
static size_t read_request(int fd, char *buf, size_t cap, size_t *len) {
        for (;;) {
                char *end = memmem(buf, *len, "\r\n\r\n", 4);
                if (end) {
                        size_t head = (size_t) (end - buf) + 4, content = 0;
                        for (char *l = buf; l && l < end; l = memchr(l, '\n', (size_t) (end - l))) {
                                if (*l == '\n')
                                        l++;
                                if (strncasecmp(l, "Content-Length:", 15) == 0)
                                        content = strtoul(l + 15, NULL, 10);
                        }
                        if (head + content > cap)
                                return 0;
                        while (*len < head + content) {
                                ssize_t k = recv(fd, buf + *len, cap - *len, 0);
                                if (k <= 0)
                                        return 0;
                                *len += (size_t) k;
                        }
                        return head + content;
                }
                if (*len == cap)
                        return 0;
                ssize_t k = recv(fd, buf + *len, cap - *len, 0);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return 0;
                *len += (size_t) k;
        }
}

static int answer(int fd) {
        char head[256];
        int n;
        if (mode == MODE_CHUNKED) {
                n = snprintf(head, sizeof head, "HTTP/1.1 %u X\r\nTransfer-Encoding: chunked\r\n\r\n", status);
                if (write_all(fd, head, (size_t) n) < 0)
                        return -1;
                /* Three chunks, one with an extension, then a trailer. */
                size_t a = body_size / 3, b = body_size / 3, c = body_size - a - b;
                size_t parts[3] = { a, b, c }, off = 0;
                for (int i = 0; i < 3; i++) {
                        if (parts[i] == 0)
                                continue;
                        n = snprintf(head, sizeof head, i == 1 ? "%zx;ext=1\r\n" : "%zX\r\n", parts[i]);
                        if (write_all(fd, head, (size_t) n) < 0 || write_all(fd, body + off, parts[i]) < 0 ||
                            write_all(fd, "\r\n", 2) < 0)
                                return -1;
                        off += parts[i];
                }
                return write_all(fd, "0\r\nX-Trailer: yes\r\n\r\n", 21);
        }
        n = snprintf(head, sizeof head, "HTTP/1.1 %u X\r\nContent-Length: %zu\r\nContent-Type: text/plain\r\n%s\r\n",
                     status, body_size, mode == MODE_CLOSE ? "Connection: close\r\n" : "");
        if (write_all(fd, head, (size_t) n) < 0 || write_all(fd, body, body_size) < 0)
                return -1;
        return 0;
}

static void *serve(void *arg) {
        int fd = (int) (intptr_t) arg;
        static __thread char buf[65536];
        size_t len = 0;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        for (;;) {
                size_t used = read_request(fd, buf, sizeof buf, &len);
                if (used == 0)
                        break;
                memmove(buf, buf + used, len - used);
                len -= used;
                if (mode == MODE_NEVER)
                        continue;
                if (mode == MODE_RESET) {
                        struct linger lg = { .l_onoff = 1, .l_linger = 0 };
                        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
                        break;
                }
                if (delay_ms > 0) {
                        struct timespec ts = { .tv_sec = delay_ms / 1000, .tv_nsec = (long) (delay_ms % 1000) * 1000000 };
                        nanosleep(&ts, NULL);
                }
                if (answer(fd) < 0)
                        break;
                unsigned long s = atomic_fetch_add(&served, 1) + 1;
                if (notify_after > 0 && s == notify_after) {
                        printf("served %lu\n", s);
                        fflush(stdout);
                }
                if (mode == MODE_CLOSE)
                        break;
        }
        close(fd);
        return NULL;
}

static int parse_mode(const char *s) {
        static const char *const names[] = { "length", "chunked", "close", "never", "reset" };
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
                if (strcmp(s, names[i]) == 0) {
                        mode = (enum mode) i;
                        return 0;
                }
        return -1;
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "mode", required_argument, NULL, 'm' },    { "delay-ms", required_argument, NULL, 'd' },
                { "status", required_argument, NULL, 's' },  { "body", required_argument, NULL, 'b' },
                { "notify-after", required_argument, NULL, 'n' }, { "listen", required_argument, NULL, 'l' },
                { NULL, 0, NULL, 0 },
        };
        const char *listen_addr = "127.0.0.1";
        int c;
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'm':
                        if (parse_mode(optarg) < 0)
                                return 2;
                        break;
                case 'd':
                        delay_ms = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 's':
                        status = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'b':
                        body_size = strtoul(optarg, NULL, 10);
                        break;
                case 'n':
                        notify_after = strtoul(optarg, NULL, 10);
                        break;
                case 'l':
                        listen_addr = optarg;
                        break;
                default:
                        return 2;
                }
        }
        signal(SIGPIPE, SIG_IGN);
        body = malloc(body_size + 1);
        if (!body)
                return 1;
        memset(body, 'x', body_size);

        bool v6 = strchr(listen_addr, ':') != NULL;
        int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_storage ss = { 0 };
        socklen_t sl;
        if (v6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &ss;
                a->sin6_family = AF_INET6;
                if (inet_pton(AF_INET6, listen_addr, &a->sin6_addr) != 1)
                        return 2;
                sl = sizeof *a;
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *) &ss;
                a->sin_family = AF_INET;
                if (inet_pton(AF_INET, listen_addr, &a->sin_addr) != 1)
                        return 2;
                sl = sizeof *a;
        }
        if (s < 0 || bind(s, (struct sockaddr *) &ss, sl) < 0 || listen(s, 1024) < 0 ||
            getsockname(s, (struct sockaddr *) &ss, &sl) < 0) {
                perror("http-test-server");
                return 1;
        }
        unsigned port = ntohs(v6 ? ((struct sockaddr_in6 *) &ss)->sin6_port : ((struct sockaddr_in *) &ss)->sin_port);
        printf("%u\n", port);
        fflush(stdout);
        for (;;) {
                int fd = accept4(s, NULL, NULL, SOCK_CLOEXEC);
                if (fd < 0) {
                        if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
                                continue;
                        perror("accept");
                        return 1;
                }
                pthread_t t;
                pthread_attr_t attr;
                pthread_attr_init(&attr);
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                pthread_attr_setstacksize(&attr, 256 << 10);
                if (pthread_create(&t, &attr, serve, (void *) (intptr_t) fd) != 0)
                        close(fd);
                pthread_attr_destroy(&attr);
        }
}
