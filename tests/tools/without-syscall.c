/* without-syscall.c: run a program on a kernel that seems to lack one system call.
 *
 *   without-syscall NR PROGRAM [ARG...]
 *
 * A seccomp filter makes syscall NR fail with ENOSYS, as it does on a kernel older than the
 * call (or in a sandbox that refuses it), and the program is executed under it; the filter is
 * inherited by everything it starts. Used to test fallbacks such as slicelab-inject's for
 * epoll_pwait2() (Linux 5.11) on a machine whose kernel has it. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc < 3) {
                fprintf(stderr, "usage: without-syscall NR PROGRAM [ARG...]\n");
                return 2;
        }
        char *end;
        unsigned long nr = strtoul(argv[1], &end, 10);
        if (*end || nr > 1024) {
                fprintf(stderr, "without-syscall: bad syscall number %s\n", argv[1]);
                return 2;
        }
        struct sock_filter filter[] = {
                /* Only x86-64 numbers mean what NR says; other ABIs pass untouched. */
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned) nr, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
                perror("without-syscall: seccomp");
                return 1;
        }
        execv(argv[2], argv + 2);
        perror("without-syscall: exec");
        return 127;
}
