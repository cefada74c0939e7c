/* recv-stamp.c: kernel receive timestamps for answers (see recv-stamp.h). */
#include "injector/recv-stamp.h"

#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "basic/time-util.h"

void recv_stamp_enable(int fd) {
        int one = 1;
        (void) setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}

int64_t recv_stamp_offset(void) {
        return now_wall_ns() - now_mono_ns();
}

static int64_t stamp_of(struct msghdr *m, int64_t offset_ns, int64_t fallback_ns) {
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm))
                if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS &&
                    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
                        struct timespec ts;
                        memcpy(&ts, CMSG_DATA(cm), sizeof ts);
                        return (int64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec - offset_ns;
                }
        return fallback_ns;
}

ssize_t recv_stamp_recv(int fd, void *buf, size_t size, int64_t offset_ns, int64_t fallback_ns,
                        int64_t *stamp_ns) {
        union {
                char buf[CMSG_SPACE(sizeof(struct timespec))];
                struct cmsghdr align;
        } control;
        struct iovec iov = { .iov_base = buf, .iov_len = size };
        struct msghdr m = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof control.buf,
        };
        ssize_t n = recvmsg(fd, &m, 0);
        if (n > 0)
                *stamp_ns = stamp_of(&m, offset_ns, fallback_ns);
        return n;
}
