/* bench-differential.c: the differential profile of 2 cells x 10 iterations (what
 * GET /v1/experiments/{id}/profile and the findings rule `profile` compute, through
 * findings/profile-shares.h) over realistic folded profiles: per run thousands of distinct stacks
 * 8 to 40 frames deep, rooted at the six thread groups, drawn from a call tree of a few thousand
 * Java, JVM and kernel frames with names as long as theirs, sample counts heavy-tailed, the lines
 * sorted as the daemon writes them. Timed,
 * best of 3: counting the 20 runs in; then as the API answers: every frame ranked by its
 * difference of total share, the groups and the first 100 frames compared (self and total, with
 * their intervals) (goal: at most 200 ms for both); and, for scale, every name compared.
 * Prints figures; asserts nothing.
 * Usage: bench-differential [STACKS_PER_RUN] [ITERATIONS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/macro.h"
#include "findings/profile-shares.h"

#define FRAMES 4000
#define SIDES 2
#define SHOWN 100

static const char *const groups[] = { "app", "gc", "jit", "vm", "kernel", "other" };
static const unsigned group_weight[] = { 70, 10, 8, 4, 5, 3 };  /* percent of stacks */

static double clock_ms(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* Wall time, and this process's CPU time: on a shared machine the second says what it costs. */
static double now_ms(void) {
        return clock_ms(CLOCK_MONOTONIC);
}

static double cpu_ms(void) {
        return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static char names[FRAMES][96];

/* Frame names as perf script and the JIT's perf map spell them. */
static void make_names(void) {
        static const char *const pkgs[] = { "io.netty.channel", "org.springframework.web.servlet", "com.fasterxml.jackson.databind",
                                            "java.util.concurrent", "slicelab.sut" };
        for (size_t i = 0; i < FRAMES; i++) {
                switch (i % 4) {
                case 0:
                case 1:
                        snprintf(names[i], sizeof names[i], "%s.Class%zu::method%zu(java.lang.Object)", pkgs[i % ELEMENTSOF(pkgs)], i / 7, i);
                        break;
                case 2:
                        snprintf(names[i], sizeof names[i], "JVM_Function%zu::doWork(Thread*, oopDesc*)", i);
                        break;
                default:
                        snprintf(names[i], sizeof names[i], "[k] kernel_path_%zu", i);
                }
        }
}

static int cmp_line(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The lines in order, as the daemon writes profile.folded. */
static char *sort_lines(char *t, size_t len, size_t *ret_len) {
        size_t n = 0, cap = 1024;
        char **lines = malloc(cap * sizeof *lines), *out = malloc(len + 1), *save = NULL;
        if (!lines || !out)
                abort();
        t[len] = '\0';
        for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                if (n == cap && !(lines = realloc(lines, (cap *= 2) * sizeof *lines)))
                        abort();
                lines[n++] = l;
        }
        qsort(lines, n, sizeof *lines, cmp_line);
        size_t at = 0;
        for (size_t i = 0; i < n; i++)
                at += (size_t) sprintf(out + at, "%s\n", lines[i]);
        free(lines);
        free(t);
        *ret_len = at;
        return out;
}

/* One run's folded text: stack s is a path through the frame tree seeded by s (the same stacks
 * in every run; two ways on at each of the first 12 levels, as thread roots and frameworks
 * share their start, eight below), its count drawn anew (heavy-tailed; the cell's gc stacks twice as frequent). */
static char *make_run(size_t stacks, bool cell, size_t *ret_len) {
        size_t cap = stacks * 1200, len = 0;
        char *t = malloc(cap);
        if (!t)
                abort();
        for (size_t s = 0; s < stacks; s++) {
                uint64_t seed = s * 0x2545F4914F6CDD1DULL + 1;
                size_t g = 0;
                for (unsigned pick = (unsigned) (seed % 100), acc = 0; g < ELEMENTSOF(groups); g++)
                        if (pick < (acc += group_weight[g]))
                                break;
                len += (size_t) snprintf(t + len, cap - len, "%s", groups[g]);
                size_t depth = 8 + (seed >> 8) % 33, frame = (seed >> 16) % 8;
                for (size_t d = 0; d < depth && len + 200 < cap; d++) {
                        frame = (frame * 31 + ((seed >> (d % 48)) & (d < 12 ? 1 : 7)) + d) % FRAMES;
                        len += (size_t) snprintf(t + len, cap - len, ";%s", names[frame]);
                }
                uint64_t count = 1 + (next() % 1000 < 50 ? next() % 400 : next() % 8);
                if (cell && g == 1)
                        count *= 2;
                len += (size_t) snprintf(t + len, cap - len, " %llu\n", (unsigned long long) count);
        }
        return sort_lines(t, len, ret_len);
}

/* Name i's shares, self (a frame's) and total, with their intervals. */
static int compare_all(struct profile_shares *s, size_t i) {
        bool group;
        (void) profile_shares_name(s, i, &group);
        for (int kind = group ? PROFILE_SHARE_TOTAL : PROFILE_SHARE_SELF; kind < _PROFILE_SHARE_KIND_MAX; kind++) {
                struct profile_share_compared c;
                int r = profile_shares_compare(s, i, (enum profile_share_kind) kind, 0.95, &c);
                if (r < 0)
                        return r;
        }
        return 0;
}

int main(int argc, char **argv) {
        size_t stacks = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
        size_t iterations = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
        make_names();
        size_t runs = SIDES * iterations, bytes = 0;
        char **texts = calloc(runs, sizeof *texts);
        size_t *lens = calloc(runs, sizeof *lens);
        if (!texts || !lens)
                return 1;
        for (size_t i = 0; i < runs; i++) {
                texts[i] = make_run(stacks, i < iterations, &lens[i]);
                bytes += lens[i];
        }
        printf("%zu cells x %zu iterations, %zu distinct stacks per run, %.1f MB of folded text\n", (size_t) SIDES,
               iterations, stacks, (double) bytes / 1e6);
        double best_add = 1e9, best_api = 1e9, best_all = 1e9, best_api_cpu = 1e9;
        size_t names_seen = 0;
        struct profile_share_compared gc = { 0 };
        for (int k = 0; k < 3; k++) {
                double t0 = now_ms(), c0 = cpu_ms();
                struct profile_shares *s = NULL;
                if (profile_shares_new(&s) < 0)
                        return 1;
                for (size_t i = 0; i < runs; i++)
                        if (profile_shares_add_run(s, i < iterations ? PROFILE_SIDE_CELL : PROFILE_SIDE_BASELINE, texts[i],
                                                   lens[i]) < 0)
                                return 1;
                double t1 = now_ms();
                names_seen = profile_shares_count(s);
                for (size_t i = 0; i < names_seen; i++) {
                        bool group;
                        const char *name = profile_shares_name(s, i, &group);
                        if (group && (compare_all(s, i) < 0 || (strcmp(name, "gc") == 0 &&
                                      profile_shares_compare(s, i, PROFILE_SHARE_TOTAL, 0.95, &gc) < 0)))
                                return 1;
                }
                size_t shown[SHOWN], n_shown;
                if (profile_shares_rank_frames(s, PROFILE_SHARE_TOTAL, PROFILE_ORDER_DIFFERENCE, shown, SHOWN, &n_shown) < 0)
                        return 1;
                for (size_t i = 0; i < n_shown; i++)
                        if (compare_all(s, shown[i]) < 0)
                                return 1;
                double t2 = now_ms(), c2 = cpu_ms();
                for (size_t i = 0; i < names_seen; i++)
                        if (compare_all(s, i) < 0)
                                return 1;
                double t3 = now_ms();
                profile_shares_free(s);
                best_add = MIN(best_add, t1 - t0);
                best_api = MIN(best_api, t2 - t0);
                best_api_cpu = MIN(best_api_cpu, c2 - c0);
                best_all = MIN(best_all, (t1 - t0) + (t3 - t2));
        }
        printf("%zu names (groups and frames); the gc group's share %+.1f points (95%% interval %+.1f to %+.1f)\n",
               names_seen, gc.difference.value * 100, gc.difference.ci_low * 100, gc.difference.ci_high * 100);
        printf("counting the runs in: %.1f ms\n", best_add);
        printf("the differential as the API answers (rank all, compare groups and %d frames): %.1f ms, %.1f ms of CPU "
               "(goal: at most 200 ms)\n",
               SHOWN, best_api, best_api_cpu);
        printf("every name compared (self and total, with intervals): %.1f ms; best of 3 each\n", best_all);
        for (size_t i = 0; i < runs; i++)
                free(texts[i]);
        free(texts);
        free(lens);
        return 0;
}
