/* bench-profile-fold.c: how long profile/profile-fold.c takes to collapse 1 M perf samples (issue
 * 28's goal: at most 1 s). The input is `perf script -F comm,tid,ip,sym` text as the daemon
 * reads it from its pipe, made up here: Java-like stacks 20 to 100 frames deep (or as asked)
 * that share their roots (a thread pool's worker, a servlet container, a service's layers), JIT
 * frames printed "[unknown]" and named from a perf map of 4000 methods (a caller's frame at one
 * of its call sites, a leaf's in its hot loop), the JVM's native frames at the bottom, kernel
 * frames at some leaves, GC, compiler and VM threads, and kernel-only samples. A child process
 * writes the text into a pipe as it makes it (1 M samples are about 1.6 GB of text), so the
 * figures are profile_folder_read()'s reading and folding; the text alone (read from the pipe
 * in 1 MB blocks and split at its newlines, nothing folded) is timed too. Each is given as wall
 * time and as this process's CPU time (the build machine is shared: the CPU time is what the
 * fold costs, the wall time what it took there and then, the child's making included).
 * The folded text's FNV-1a digest is printed so that two versions of the folder can be shown to
 * write the same bytes. Prints figures, best of 3; asserts nothing.
 * slicelab-sut.jar's own stacks are shallower (a run of tests/integration/profile-runs.sh: 19
 * frames per sample on average, at most 57, 9 of them JIT frames): `bench-profile-fold 1000000
 * 10 20` is about that depth (about 18 frames per sample, 5 of them native).
 * Usage: bench-profile-fold [SAMPLES [JAVA_FRAMES_MIN JAVA_FRAMES_MAX]] (1000000 20 100) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/time-util.h"
#include "basic/hash.h"
#include "profile/profile-fold.h"

#define METHODS 4000
#define DISTINCT 20000                  /* distinct samples (stacks) the stream draws from */
#define MAP_BASE UINT64_C(0x7f2d20000000)
#define METHOD_SPAN 0x400

struct pool {
        char **text;                    /* one sample's lines each, ending in a blank line */
        size_t *len;
        size_t bytes;
};

static void die(const char *what, int r) {
        fprintf(stderr, "bench-profile-fold: %s: %s\n", what, strerror(-r));
        exit(1);
}

static uint64_t next(uint64_t *s) {
        *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        return *s >> 33;
}

static char *perf_map(size_t *ret_len) {
        static const char *const layers[] = { "controller", "service", "repository", "mapper", "codec", "cache", "client", "util" };
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                die("open_memstream", -ENOMEM);
        for (unsigned i = 0; i < METHODS; i++)
                fprintf(f, "0x%" PRIx64 " 0x%x %s com.example.shop.%s.Component%u.method%u(java.lang.String, long, java.util.Map)\n",
                        MAP_BASE + (uint64_t) i * METHOD_SPAN, METHOD_SPAN - 0x58, i % 3 ? "void" : "java.lang.Object",
                        layers[i % 8], i / 8, i % 17);
        fclose(f);
        *ret_len = len;
        return text;
}

/* One sample: comm, then frames leaf first, as perf script prints them. */
static void sample_text(FILE *f, unsigned idx, unsigned depth_min, unsigned depth_max, uint64_t *seed) {
        unsigned kind = (unsigned) (next(seed) % 100);
        if (kind < 4) { /* the kernel alone, on a JVM thread */
                fprintf(f, "java %u \n\tffffffff8226e079 _raw_spin_unlock_irqrestore\n\tffffffff813b13ef task_sched_runtime\n"
                           "\tffffffff81200000 do_syscall_64\n\tffffffff81c0008b entry_SYSCALL_64_after_hwframe\n\n", 4000 + idx % 7);
                return;
        }
        if (kind < 12) {
                fprintf(f, "GC Thread#%u %u \n\t          abcdef PSPromotionManager::drain_stacks_depth\n"
                           "\t          abcd00 StealTask::do_it\n\t          ab0000 GCTaskThread::run\n"
                           "\t          ea734f Thread::call_run\n\t          891f5 start_thread\n\n", idx % 2, 4100 + idx % 2);
                return;
        }
        if (kind < 17) {
                fprintf(f, "C2 CompilerThre %u \n\t          cc6b8b PhaseChaitin::Split\n\t          5cafea Compile::Code_Gen\n"
                           "\t          5c0000 C2Compiler::compile_method\n\t          ea734f Thread::call_run\n\t           891f5 start_thread\n\n", 4200);
                return;
        }
        if (kind < 20) {
                fprintf(f, "VM Thread %u \n\t          123456 SafepointSynchronize::begin\n\t          123000 VMThread::inner_execute\n"
                           "\t          ea734f Thread::call_run\n\t           891f5 start_thread\n\n", 4300);
                return;
        }
        /* a worker of the pool: a path from the common roots down, each frame a function of
         * its parent and a small choice, so stacks share prefixes as a real program's do */
        fprintf(f, "pool-1-thread-%u %u \n", idx % 32, 5000 + idx % 32);
        unsigned depth = depth_min + (unsigned) (next(seed) % (depth_max - depth_min + 1));
        uint64_t frames[128];           /* depth_max is at most 128 */
        uint64_t parent = 0;
        for (unsigned d = 0; d < depth; d++) {
                unsigned choice = d < 12 ? 0 : (unsigned) (next(seed) % 3);
                parent = (parent * 31 + d * 7 + choice) % METHODS;
                frames[d] = parent;
        }
        if (next(seed) % 4 == 0)
                fprintf(f, "\tffffffff8226e079 _raw_spin_unlock_irqrestore\n\tffffffff81c0008b entry_SYSCALL_64_after_hwframe\n"
                           "\t    7f2d2d0a1234 __libc_write\n");
        /* a caller's frame is at its call site of the callee (one of 16 per method), the leaf's
         * somewhere in its hot loop (32 places) */
        for (unsigned d = depth; d > 0; d--) {
                uint64_t at = d == depth ? 0x40 + next(seed) % 32 * 4 : 0x100 + frames[d] % 16 * 0x18;
                fprintf(f, "\t    %" PRIx64 " [unknown]\n", MAP_BASE + frames[d - 1] * METHOD_SPAN + at);
        }
        fprintf(f, "\t          8a1b2c JavaCalls::call_helper\n\t          8a0000 JavaThread::thread_main_inner\n"
                   "\t          ea734f Thread::call_run\n\t          b8e0a1 thread_native_entry\n\t           891f5 start_thread\n\n");
}

static void pool_make(struct pool *p, unsigned depth_min, unsigned depth_max) {
        uint64_t seed = 42;
        p->text = calloc(DISTINCT, sizeof *p->text);
        p->len = calloc(DISTINCT, sizeof *p->len);
        if (!p->text || !p->len)
                die("calloc", -ENOMEM);
        for (unsigned i = 0; i < DISTINCT; i++) {
                FILE *f = open_memstream(&p->text[i], &p->len[i]);
                if (!f)
                        die("open_memstream", -ENOMEM);
                sample_text(f, i, depth_min, depth_max, &seed);
                fclose(f);
                p->bytes += p->len[i];
        }
}

/* The stream: samples drawn from the pool, the lower indices more often (a profile's few hot
 * stacks), until n samples were given. */
struct stream {
        const struct pool *pool;
        uint64_t n, given, seed;
        const char *cur;
        size_t left;
};

static size_t stream_draw(uint64_t *seed) {
        uint64_t a = next(seed) % DISTINCT, b = next(seed) % DISTINCT;
        return (size_t) (a * b / DISTINCT);
}

static size_t stream_read(struct stream *s, char *buf, size_t size) {
        size_t done = 0;
        while (done < size) {
                if (s->left == 0) {
                        if (s->given == s->n)
                                break;
                        size_t idx = stream_draw(&s->seed);
                        s->cur = s->pool->text[idx];
                        s->left = s->pool->len[idx];
                        s->given++;
                }
                size_t k = MIN(s->left, size - done);
                memcpy(buf + done, s->cur, k);
                s->cur += k;
                s->left -= k;
                done += k;
        }
        return done;
}

static uint64_t stream_bytes(const struct pool *p, uint64_t n) {
        uint64_t seed = 7, bytes = 0;
        for (uint64_t i = 0; i < n; i++)
                bytes += p->len[stream_draw(&seed)];
        return bytes;
}

/* The text comes from a child through a pipe, as perf script's comes to the daemon: making it
 * costs this process nothing, reading it costs what the daemon's reading costs. */
static FILE *stream_open(const struct pool *p, uint64_t n, pid_t *ret_child) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                die("pipe2", -errno);
        pid_t pid = fork();
        if (pid < 0)
                die("fork", -errno);
        if (pid == 0) {
                static char buf[1 << 16];
                struct stream s = { .pool = p, .n = n, .seed = 7 };
                size_t k;
                close(fds[0]);
                while ((k = stream_read(&s, buf, sizeof buf)) > 0)
                        if (write_full(fds[1], buf, k) < 0)
                                _exit(1);
                _exit(0);
        }
        close(fds[1]);
        FILE *f = fdopen(fds[0], "r");
        if (!f)
                die("fdopen", -errno);
        *ret_child = pid;
        return f;
}

static void stream_close(FILE *f, pid_t child) {
        int status;
        fclose(f);
        while (waitpid(child, &status, 0) < 0)
                if (errno != EINTR)
                        die("waitpid", -errno);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                die("the stream's child", -EIO);
}

/* The text alone: read in blocks and split into lines as profile_folder_read() does, nothing
 * folded. */
struct span {
        double wall, cpu;
};

static struct span span_since(int64_t wall0, int64_t cpu0) {
        return (struct span){ (double) (now_mono_ns() - wall0) / 1e9, (double) (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / 1e9 };
}

static void span_best(struct span *best, struct span s) {
        best->wall = MIN(best->wall, s.wall);
        best->cpu = MIN(best->cpu, s.cpu);
}

static struct span time_read_only(const struct pool *p, uint64_t n) {
        pid_t child;
        FILE *f = stream_open(p, n, &child);
        enum { BLOCK = 1 << 20 };
        _cleanup_free_ char *buf = malloc(BLOCK);
        size_t lines = 0, got;
        if (!buf)
                die("malloc", -ENOMEM);
        int64_t t0 = now_mono_ns(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        while ((got = fread(buf, 1, BLOCK, f)) > 0)
                for (const char *at = buf, *nl; (nl = memchr(at, '\n', (size_t) (buf + got - at))); at = nl + 1)
                        lines++;
        struct span secs = span_since(t0, c0);
        stream_close(f, child);
        if (lines == 0)
                die("no text", -EIO);
        return secs;
}

static struct span time_fold(const struct pool *p, const struct profile_map *map, uint64_t n, struct profile_fold_stats *st,
                             struct span *ret_write, size_t *ret_bytes, uint64_t *ret_digest) {
        _cleanup_(profile_folder_freep) struct profile_folder *fo = NULL;
        int r = profile_folder_new(true, map, &fo);
        if (r < 0)
                die("profile_folder_new", r);
        pid_t child;
        FILE *f = stream_open(p, n, &child);
        int64_t t0 = now_mono_ns(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        r = profile_folder_read(fo, f);
        struct span fold = span_since(t0, c0);
        stream_close(f, child);
        if (r < 0)
                die("profile_folder_read", r);
        char *out = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&out, &len);
        if (!o)
                die("open_memstream", -ENOMEM);
        int64_t t2 = now_mono_ns(), c2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        r = profile_folder_write(fo, o, SIZE_MAX);
        fclose(o);
        *ret_write = span_since(t2, c2);
        *ret_digest = fnv1a64(out, len);
        free(out);
        if (r < 0)
                die("profile_folder_write", r);
        profile_folder_stats(fo, st);
        *ret_bytes = len;
        return fold;
}

int main(int argc, char **argv) {
        uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
        unsigned depth_min = argc > 3 ? (unsigned) atoi(argv[2]) : 20, depth_max = argc > 3 ? (unsigned) atoi(argv[3]) : 100;
        if (depth_min < 1 || depth_max < depth_min || depth_max > 128) {
                fprintf(stderr, "bench-profile-fold: Java frames from 1 to 128, the minimum first\n");
                return 2;
        }
        size_t map_len = 0;
        _cleanup_free_ char *map_text = perf_map(&map_len);
        _cleanup_(profile_map_freep) struct profile_map *map = NULL;
        int r = profile_map_parse(map_text, map_len, &map);
        if (r < 0)
                die("profile_map_parse", r);
        struct pool p = { 0 };
        pool_make(&p, depth_min, depth_max);

        struct span best_read = { 1e9, 1e9 }, best_fold = { 1e9, 1e9 }, best_write = { 1e9, 1e9 };
        struct profile_fold_stats st = { 0 };
        size_t out_bytes = 0;
        uint64_t text_bytes = stream_bytes(&p, n), digest = 0;
        for (int i = 0; i < 3; i++) {
                struct span w;
                span_best(&best_read, time_read_only(&p, n));
                span_best(&best_fold, time_fold(&p, map, n, &st, &w, &out_bytes, &digest));
                span_best(&best_write, w);
        }
        printf("input: %" PRIu64 " samples, %.0f MB of perf script text (%u distinct stacks drawn, %u-%u Java frames), a perf map of %u methods\n",
               n, (double) text_bytes / 1e6, DISTINCT, depth_min, depth_max, METHODS);
        printf("groups: app %" PRIu64 ", gc %" PRIu64 ", jit %" PRIu64 ", vm %" PRIu64 ", kernel %" PRIu64 ", other %" PRIu64 "\n",
               st.by_group[PROFILE_GROUP_APP], st.by_group[PROFILE_GROUP_GC], st.by_group[PROFILE_GROUP_JIT],
               st.by_group[PROFILE_GROUP_VM], st.by_group[PROFILE_GROUP_KERNEL], st.by_group[PROFILE_GROUP_OTHER]);
        printf("reading the text alone (1 MB blocks): wall %.3f s, CPU %.3f s\n", best_read.wall, best_read.cpu);
        printf("collapse (profile_folder_read):   wall %.3f s, CPU %.3f s (%.2f M samples per CPU second; goal: 1 M samples in at most 1 s)\n",
               best_fold.wall, best_fold.cpu, (double) n / best_fold.cpu / 1e6);
        printf("write (profile_folder_write):     wall %.3f s, CPU %.3f s (%zu bytes of folded text, FNV-1a %016" PRIx64 ")\n",
               best_write.wall, best_write.cpu, out_bytes, digest);
        for (unsigned i = 0; i < DISTINCT; i++)
                free(p.text[i]);
        free(p.text);
        free(p.len);
        return 0;
}
