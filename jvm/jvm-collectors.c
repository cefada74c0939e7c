/* jvm-collectors.c: one table of HotSpot's collectors (see jvm-collectors.h). */
#include "jvm/jvm-collectors.h"

#include <stdbool.h>
#include <string.h>

#include "basic/macro.h"

static const struct {
        const char *name, *flag, *log_name;
} collectors[] = {
        { "SerialGC", "UseSerialGC", "Serial" },
        { "ParallelGC", "UseParallelGC", "Parallel" },
        { "G1GC", "UseG1GC", "G1" },
        { "ZGC", "UseZGC", "The Z Garbage Collector" },
        { "ShenandoahGC", "UseShenandoahGC", "Shenandoah" },
        { "EpsilonGC", "UseEpsilonGC", "Epsilon" },
};

static bool equals(const char *s, size_t n, const char *lit) {
        return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

const char *jvm_collector_by_flag(const char *s, size_t n) {
        for (size_t i = 0; i < ELEMENTSOF(collectors); i++)
                if (equals(s, n, collectors[i].flag))
                        return collectors[i].name;
        return NULL;
}

const char *jvm_collector_by_log_name(const char *s, size_t n) {
        for (size_t i = 0; i < ELEMENTSOF(collectors); i++)
                if (equals(s, n, collectors[i].log_name))
                        return collectors[i].name;
        return NULL;
}
