/* test-profile-fold: perf script text (a fixture shaped as perf 6.1 prints it) folded by thread
 * group with JIT names from a perf map fixture; the bounds on depth. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "profile/profile-fold.h"

static char *fold_fixture(const char *script, const char *map_path, bool jvm, struct profile_fold_stats *st) {
        char path[4096];
        _cleanup_(profile_map_freep) struct profile_map *map = NULL;
        if (map_path) {
                snprintf(path, sizeof path, "%s/tests/profile/fixtures/%s", getenv("SLICELAB_SRC"), map_path);
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                assert_int_equal(read_file_bounded(path, PROFILE_MAP_BYTES_MAX, &text, &len), 0);
                assert_int_equal(profile_map_parse(text, len, &map), 0);
        }
        _cleanup_(profile_folder_freep) struct profile_folder *f = NULL;
        assert_int_equal(profile_folder_new(jvm, map, &f), 0);
        snprintf(path, sizeof path, "%s/tests/profile/fixtures/%s", getenv("SLICELAB_SRC"), script);
        FILE *in = fopen(path, "re");
        assert_non_null(in);
        assert_int_equal(profile_folder_read(f, in), 0);
        fclose(in);
        char *out = NULL;
        size_t out_len = 0;
        FILE *o = open_memstream(&out, &out_len);
        assert_int_equal(profile_folder_write(f, o, 1 << 20), 0);
        fclose(o);
        profile_folder_stats(f, st);
        return out;
}

static void test_fold_jvm(void **state) {
        struct profile_fold_stats st;
        _cleanup_free_ char *out = fold_fixture("perf-script.txt", "perf.map", true, &st);
        assert_string_equal(out,
                            "app;start_thread;JavaThread::thread_main_inner;Interpreter;"
                            "long slicelab.sut.Work.spin(long, long) 3\n"
                            "gc;start_thread;G1ConcurrentMark::mark_from_roots 1\n"
                            "gc;start_thread;G1ParEvacuateFollowersClosure::do_void 1\n"
                            "jit;start_thread;Compile::Code_Gen;PhaseChaitin::Split 1\n"
                            "kernel;task_sched_runtime;_raw_spin_unlock_irqrestore 1\n"
                            "other;something:odd 1\n"
                            "vm;start_thread;SafepointSynchronize::begin 1\n");
        assert_int_equal(st.samples, 9);
        assert_int_equal(st.by_group[PROFILE_GROUP_APP], 3);
        assert_int_equal(st.by_group[PROFILE_GROUP_GC], 2);
        assert_int_equal(st.by_group[PROFILE_GROUP_JIT], 1);
        assert_int_equal(st.by_group[PROFILE_GROUP_VM], 1);
        assert_int_equal(st.by_group[PROFILE_GROUP_KERNEL], 1);
        assert_int_equal(st.by_group[PROFILE_GROUP_OTHER], 1);
}

/* Without a map JIT frames stay [unknown]; a native SUT's threads are all app. */
static void test_fold_native(void **state) {
        struct profile_fold_stats st;
        _cleanup_free_ char *out = fold_fixture("perf-script.txt", NULL, false, &st);
        assert_non_null(strstr(out, "app;start_thread;JavaThread::thread_main_inner;[unknown];[unknown] 3\n"));
        assert_non_null(strstr(out, "app;start_thread;Compile::Code_Gen;PhaseChaitin::Split 1\n"));
        assert_int_equal(st.by_group[PROFILE_GROUP_GC], 0);
        assert_int_equal(st.by_group[PROFILE_GROUP_APP], 7);
}

static void test_groups(void **state) {
        assert_int_equal(profile_group_of_comm("G1 Refine#0", true), PROFILE_GROUP_GC);
        assert_int_equal(profile_group_of_comm("C1 CompilerThre", true), PROFILE_GROUP_JIT);
        assert_int_equal(profile_group_of_comm("VM Periodic Tas", true), PROFILE_GROUP_VM);
        assert_int_equal(profile_group_of_comm("HTTP-Dispatcher", true), PROFILE_GROUP_APP);
        assert_int_equal(profile_group_of_comm("", true), PROFILE_GROUP_OTHER);
}

/* A stack deeper than the bound keeps its root side and says it was cut. */
static void test_depth(void **state) {
        _cleanup_(profile_folder_freep) struct profile_folder *f = NULL;
        assert_int_equal(profile_folder_new(true, NULL, &f), 0);
        assert_int_equal(profile_folder_line(f, "t 1", 3), 0);
        for (int i = PROFILE_FOLD_DEPTH_MAX + 9; i >= 0; i--) {
                char l[64];
                int n = snprintf(l, sizeof l, "\t%x f%d", 0x1000 + i, i);
                assert_int_equal(profile_folder_line(f, l, (size_t) n), 0);
        }
        assert_int_equal(profile_folder_line(f, "", 0), 0);
        char *out = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&out, &len);
        assert_int_equal(profile_folder_write(f, o, 1 << 20), 0);
        fclose(o);
        assert_true(strncmp(out, "app;[truncated];f0;f1;", 22) == 0);
        char last[32];
        snprintf(last, sizeof last, ";f%d 1\n", PROFILE_FOLD_DEPTH_MAX - 1);
        assert_non_null(strstr(out, last));
        struct profile_fold_stats st;
        profile_folder_stats(f, &st);
        assert_int_equal(st.truncated, 1);
        /* and the writer's bound */
        free(out);
        o = open_memstream(&out, &len);
        assert_int_equal(profile_folder_write(f, o, 16), -EFBIG);
        fclose(o);
        free(out);
}

static char *write_folded(struct profile_folder *f) {
        char *out = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&out, &len);
        assert_non_null(o);
        assert_int_equal(profile_folder_write(f, o, SIZE_MAX), 0);
        fclose(o);
        return out;
}

/* profile_folder_read() takes its stream in large blocks: what it folds is what the same text
 * gives line by line, with lines across the blocks' edges, a frame line longer than a block
 * (only its head counts), ips seen again under another name, and no newline at the end. */
static void test_read_blocks(void **state) {
        char *text = NULL;
        size_t text_len = 0;
        FILE *t = open_memstream(&text, &text_len);
        assert_non_null(t);
        for (unsigned i = 0; i < 40000; i++) {
                fprintf(t, "worker-%u %u \n", i % 5, 100 + i % 5);
                for (unsigned d = 0; d < 1 + i % 7; d++)
                        fprintf(t, "\t%16x %s%u\n", 0x1000 + (i * 7 + d) % 97, i % 11 ? "f" : "g;", (i + d) % 13);
                if (i == 20000) /* 3 MB of ip digits: not an ip, the line skipped whole */
                        fprintf(t, "\t%03000000d x\n", 1);
                fputc('\n', t);
        }
        fprintf(t, "last 1\n\t1234 [unknown]"); /* no newline */
        fclose(t);

        _cleanup_(profile_folder_freep) struct profile_folder *by_lines = NULL, *by_blocks = NULL;
        assert_int_equal(profile_folder_new(true, NULL, &by_lines), 0);
        assert_int_equal(profile_folder_new(true, NULL, &by_blocks), 0);
        for (size_t pos = 0; pos < text_len;) {
                const char *nl = memchr(text + pos, '\n', text_len - pos);
                size_t len = nl ? (size_t) (nl - (text + pos)) : text_len - pos;
                assert_int_equal(profile_folder_line(by_lines, text + pos, len), 0);
                pos += len + 1;
        }
        assert_int_equal(profile_folder_line(by_lines, "", 0), 0);
        FILE *in = fmemopen(text, text_len, "r");
        assert_non_null(in);
        assert_int_equal(profile_folder_read(by_blocks, in), 0);
        fclose(in);

        _cleanup_free_ char *want = write_folded(by_lines), *got = write_folded(by_blocks);
        assert_string_equal(got, want);
        /* the last line, without its newline, first in order ('[' sorts before letters) */
        assert_true(strncmp(got, "app;[unknown] 1\n", strlen("app;[unknown] 1\n")) == 0);
        struct profile_fold_stats a, b;
        profile_folder_stats(by_lines, &a);
        profile_folder_stats(by_blocks, &b);
        assert_int_equal(b.samples, 40001);
        assert_memory_equal(&a, &b, sizeof a);
        free(text);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fold_jvm),
                cmocka_unit_test(test_fold_native),
                cmocka_unit_test(test_groups),
                cmocka_unit_test(test_depth),
                cmocka_unit_test(test_read_blocks),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
