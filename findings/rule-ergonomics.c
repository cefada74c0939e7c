/* rule-ergonomics.c: JVM flags that ergonomics set differently in a cell than in the baseline
 * (as PrintFlagsFinal reported them in the first succeeded run of each), with what each one
 * does. Any difference is medium: the cells then differ in more than the experiment varies. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

static const struct {
        const char *flag, *does;
} flags[] = {
        { "ActiveProcessorCount", "the CPUs the JVM sizes its thread pools for (from the cpuset, or the quota with container support)" },
        { "CICompilerCount", "JIT compiler threads: fewer delay reaching compiled code" },
        { "ParallelGCThreads", "threads of the stop-the-world GC phases: more shorten pauses when CPUs are there, lengthen them under a quota" },
        { "ConcGCThreads", "threads of concurrent GC phases, competing with the application" },
        { "gc", "the collector (ergonomics choose SerialGC for fewer than 2 CPUs or under 1792 MB)" },
        { "MaxHeapSize", "the heap limit (by default a share of the memory the JVM sees)" },
};

/* The flag's value in the cell's first run that reports it, as text; false if none does. */
static bool flag_text(const struct findings_cell *c, const char *flag, char *buf, size_t size, double *ret_num) {
        char path[64];
        snprintf(path, sizeof path, "jvm.%s", flag);
        const char *s = findings_string(c, path);
        *ret_num = NAN;
        if (s) {
                snprintf(buf, size, "%s", s);
                return true;
        }
        for (size_t i = 0; i < c->n_runs; i++)
                if (findings_metric(&c->runs[i], path, ret_num)) {
                        snprintf(buf, size, "%.0f", *ret_num);
                        return true;
                }
        return false;
}

void findings_rule_ergonomics(const struct findings_input *in, cJSON *out) {
        const struct findings_cell *base = &in->cells[in->baseline];
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                if (ci == in->baseline)
                        continue;
                const struct findings_cell *cell = &in->cells[ci];
                char claim[1024], what[1024] = "";
                int len = snprintf(claim, sizeof claim, "the JVM in cell %s chose", cell->name);
                size_t wlen = 0, n_diff = 0;
                double vals[ELEMENTSOF(flags)], bases[ELEMENTSOF(flags)];
                bool diff[ELEMENTSOF(flags)] = { false };
                for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                        char a[64], b[64];
                        if (!flag_text(cell, flags[i].flag, a, sizeof a, &vals[i]) ||
                            !flag_text(base, flags[i].flag, b, sizeof b, &bases[i]) || strcmp(a, b) == 0)
                                continue;
                        diff[i] = true;
                        if (len > 0 && (size_t) len < sizeof claim)
                                len += snprintf(claim + len, sizeof claim - (size_t) len, "%s %s %s vs %s", n_diff ? "," : "",
                                                flags[i].flag, a, b);
                        if (wlen < sizeof what)
                                wlen += (size_t) snprintf(what + wlen, sizeof what - wlen, " %s: %s.", flags[i].flag, flags[i].does);
                        n_diff++;
                }
                if (n_diff == 0)
                        continue;
                if (len > 0 && (size_t) len < sizeof claim)
                        len += snprintf(claim + len, sizeof claim - (size_t) len, " in %s.%s", base->name, what); /* may cut the explanations */
                cJSON *f = findings_append(out, "ergonomics", FINDING_MEDIUM, (double) n_diff, claim,
                                           "pin what should not vary (-XX:ActiveProcessorCount=N, -XX:ParallelGCThreads=N, "
                                           "-XX:CICompilerCount=N, the collector, -Xmx) so that the cells differ only in the "
                                           "CPU limits under test, or keep the difference and count it as part of the result");
                findings_add_cell(f, cell->name);
                findings_add_cell(f, base->name);
                for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                        if (!diff[i])
                                continue;
                        char path[64], a[64], b[64];
                        double na, nb;
                        snprintf(path, sizeof path, "jvm.%s", flags[i].flag);
                        flag_text(cell, flags[i].flag, a, sizeof a, &na);
                        flag_text(base, flags[i].flag, b, sizeof b, &nb);
                        if (isfinite(na) || isfinite(nb))
                                findings_add_evidence(f, path, cell, na, nb);
                        else
                                findings_add_evidence_text(f, path, cell, a, b);
                }
        }
}
