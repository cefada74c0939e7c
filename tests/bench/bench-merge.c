/* bench-merge.c: the merge of load hosts' timelines (basic/timeline-merge.h) as the coordinator
 * does it after a run: each file past its header, shifted by its own offset and marked with its
 * host, into one file. Prints the wall time of each of three merges; asserts nothing.
 *   bench-merge OUT IN... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "basic/timeline-merge.h"
#include "basic/time-util.h"

int main(int argc, char **argv) {
        if (argc < 3 || argc - 2 > 255) {
                fprintf(stderr, "usage: bench-merge OUT IN...\n");
                return 2;
        }
        unsigned n = (unsigned) argc - 2;
        struct timeline_merge_input in[255];
        for (unsigned i = 0; i < n; i++) {
                in[i] = (struct timeline_merge_input){ .fd = open(argv[i + 2], O_RDONLY | O_CLOEXEC),
                                                       .offset = sizeof(struct timeline_header),
                                                       /* peers' clocks 1000 s apart */
                                                       .shift_ns = (int64_t) i * 1000 * NSEC_PER_SEC,
                                                       .flags = timeline_host_flags(i) };
                if (in[i].fd < 0) {
                        perror(argv[i + 2]);
                        return 1;
                }
        }
        for (int round = 0; round < 3; round++) {
                int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (out < 0) {
                        perror(argv[1]);
                        return 1;
                }
                struct timespec a, b;
                uint64_t records = 0;
                clock_gettime(CLOCK_MONOTONIC, &a);
                int r = timeline_merge(out, in, n, &records);
                clock_gettime(CLOCK_MONOTONIC, &b);
                close(out);
                if (r < 0) {
                        fprintf(stderr, "merge: error %d\n", r);
                        return 1;
                }
                double s = (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_nsec - a.tv_nsec) / 1e9;
                printf("merge %u timelines, %llu records: %.3f s (%.1f M records/s)\n", n,
                       (unsigned long long) records, s, (double) records / s / 1e6);
        }
        return 0;
}
