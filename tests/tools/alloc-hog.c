/* alloc-hog.c: touches memory in 1 MiB steps until the kernel stops it; for OOM tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
        size_t limit_mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
        for (size_t i = 0; i < limit_mib; i++) {
                char *p = malloc(1 << 20);
                if (!p)
                        return 1;
                memset(p, (int) i, 1 << 20);
        }
        printf("allocated %zu MiB without being stopped\n", limit_mib);
        return 0;
}
