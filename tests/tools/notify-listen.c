/* notify-listen.c: a stand-in for systemd's side of sd_notify, for tests. Binds a datagram
 * socket, starts CMD with NOTIFY_SOCKET pointing at it, and prints one line per event:
 *   PID <pid>                     once the child is started
 *   <monotonic_us> <message>      per datagram, newlines shown as '|'
 *   EXIT <code> | SIGNAL <n>      when the child ends (and exits with the same code)
 * SIGTERM/SIGINT sent to notify-listen are forwarded to the child. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int bind_socket(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof sa.sun_path)
                return -1;
        strcpy(sa.sun_path, path);
        unlink(path);
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                return -1;
        return fd;
}

int main(int argc, char **argv) {
        if (argc < 4 || strcmp(argv[2], "--") != 0) {
                fprintf(stderr, "usage: notify-listen SOCKET -- CMD [ARGS...]\n");
                return 2;
        }
        int fd = bind_socket(argv[1]);
        if (fd < 0) {
                perror("notify-listen: bind");
                return 2;
        }
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        int sfd = signalfd(-1, &mask, SFD_CLOEXEC);

        pid_t pid = fork();
        if (pid == 0) {
                sigprocmask(SIG_UNBLOCK, &mask, NULL);
                setenv("NOTIFY_SOCKET", argv[1], 1);
                execvp(argv[3], argv + 3);
                perror("notify-listen: exec");
                _exit(127);
        }
        printf("PID %d\n", (int) pid);
        fflush(stdout);
        struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
        for (;;) {
                if (poll(pfd, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return 2;
                }
                if (pfd[0].revents & POLLIN) {
                        char buf[4096];
                        ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
                        if (n > 0) {
                                buf[n] = '\0';
                                for (char *p = buf; *p; p++)
                                        if (*p == '\n')
                                                *p = '|';
                                printf("%lld %s\n", now_us(), buf);
                                fflush(stdout);
                        }
                        continue; /* drain datagrams before looking at the child's exit */
                }
                if (pfd[1].revents & POLLIN) {
                        struct signalfd_siginfo si;
                        if (read(sfd, &si, sizeof si) != sizeof si)
                                continue;
                        if (si.ssi_signo != SIGCHLD) {
                                kill(pid, (int) si.ssi_signo);
                                continue;
                        }
                        int status;
                        if (waitpid(pid, &status, WNOHANG) != pid)
                                continue;
                        if (WIFEXITED(status)) {
                                printf("EXIT %d\n", WEXITSTATUS(status));
                                fflush(stdout);
                                unlink(argv[1]);
                                return WEXITSTATUS(status);
                        }
                        printf("SIGNAL %d\n", WTERMSIG(status));
                        fflush(stdout);
                        unlink(argv[1]);
                        return 128 + WTERMSIG(status);
                }
        }
}
