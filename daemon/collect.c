/* collect.c: a run's raw files into its metrics. */
#include "daemon/collect.h"
#include "daemon/collect-hosts.h"
#include "daemon/profile.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "storage/db.h"
#include "basic/fileio.h"
#include "host/host-cpufreq.h"
#include "host/host-sysfs.h"
#include "host/host-warnings.h"
#include "basic/json-util.h"
#include "jvm/jvm-flags.h"
#include "jvm/jvm-gclog.h"
#include "jvm/jvm-hsperf.h"
#include "basic/log.h"
#include "storage/runs.h"
#include "daemon/samples.h"
#include "daemon/energy.h"
#include "daemon/run-files.h"
#include "daemon/run-plan.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/utf8.h"
#include "storage/timeline-store.h"
#include "daemon/timeline.h"
#include "daemon/ops-series.h"
#include "daemon/timeline-series.h"

#define GC_EVENTS_MAX 1000000

DEFINE_POINTER_CLEANUP(struct timeline, timeline_free)

void collect_baseline_take(struct cgroup_run *cg, pid_t sut_pid, bool jvm, const struct host_rapl *rapl,
                           struct collect_baseline *ret) {
        *ret = (struct collect_baseline){ .t_ns = now_mono_ns() };
        ret->has_energy = rapl && host_rapl_read(rapl, ret->energy_uj) >= 0;
        ret->has_sut = slice_read_stats(cg, SLICE_SUT, &ret->sut) >= 0;
        ret->has_load = slice_read_stats(cg, SLICE_LOAD, &ret->load) >= 0;
        other_cpu_take(cg, &ret->cpu);
        ret->has_meminfo = host_read_meminfo("", &ret->meminfo) >= 0;
        struct jvm_hsperf_sample s;
        if (jvm && sut_pid > 0 && jvm_hsperf_sample_pid(sut_pid, &s) >= 0)
                ret->has_compile = jvm_hsperf_compile_time_ns(&s, &ret->compile_ns) >= 0;
}

static void path_in(const struct collect_input *in, const char *name, char *buf, size_t size) {
        snprintf(buf, size, "%s/%s", in->dir, name);
}

static bool cancelled(const struct collect_input *in) {
        return in->cancel && atomic_load(in->cancel);
}

static void add_number_or_null(cJSON *o, const char *name, bool has, double v) {
        if (has && isfinite(v))
                cJSON_AddNumberToObject(o, name, v);
        else
                cJSON_AddNullToObject(o, name);
}

/* ---- timeline --------------------------------------------------------------------------- */

static int collect_timeline(const struct collect_input *in, cJSON *m, struct timeline **keep, char *why, size_t why_size) {
        const struct definition_load *l = &in->def->load;
        const char *name = l->kind == DEFINITION_LOAD_EXTERNAL ? l->timeline : "timeline.bin";
        char path[PATH_MAX];
        path_in(in, name, path, sizeof path);
        _cleanup_(timeline_freep) struct timeline *t = NULL;
        int64_t t_start = now_mono_ns();
        _cleanup_close_ int fd = -1;
        int r = run_file_open(in->dir, name, RUN_FILE_CAP_TIMELINE, &fd, why, why_size);
        if (r < 0 && r != -ENOENT)
                return r; /* not the load's fault: the file is unsafe to read */
        if (r >= 0)
                r = timeline_load_fd(fd, &t);
        if (r < 0) {
                snprintf(why, why_size, "the load left no usable timeline %s: %s", path,
                         r == -EBADMSG ? "not a slicelab timeline (bad header or size)" : strerror(-r));
                return r;
        }
        int64_t measure_ns = l->kind == DEFINITION_LOAD_INJECTOR ? (int64_t) l->measure_s * NSEC_PER_SEC
                                                                 : in->measure_end_ns - in->measure_start_ns;
        size_t measured, answered;
        timeline_answered(t, &measured, &answered);
        if (answered == 0) {
                /* Nothing was measured about the server: not a result, a failed load. */
                snprintf(why, why_size, "none of the %zu measured requests got an answer (%s)", measured,
                         measured ? "the target refused, reset or never answered: see the timeline's error codes" : "the load sent nothing");
                return -ENOTCONN;
        }
        int64_t t_loaded = now_mono_ns();
        if ((r = timeline_metrics(t, measure_ns, m)) < 0)
                return r;
        /* A capacity search's timeline is its last step's: a series of steps at other rates. */
        if (l->mode != DEFINITION_MODE_CAPACITY && (r = timeline_steady_state(t, l->mode == DEFINITION_MODE_MAX, m)) < 0)
                return r;
        int64_t t_measured = now_mono_ns();
        if (cancelled(in))
                return -ECANCELED;
        if ((r = requests_store(in->db, in->run_id, t->records, t->n)) < 0) {
                snprintf(why, why_size, "cannot store the timeline: %s", strerror(-r));
                return r;
        }
        log_full(LOG_DEBUG, 0, NULL, in->run_id, "run %s: timeline load+sort %.3f s, metrics %.3f s, store %.3f s", in->run_id,
                 seconds_from_ns(t_loaded - t_start), seconds_from_ns(t_measured - t_loaded),
                 seconds_from_ns(now_mono_ns() - t_measured));
        double secs = seconds_from_ns(now_mono_ns() - t_start);
        log_full(LOG_INFO, 0, NULL, in->run_id, "run %s: timeline of %zu records loaded, measured and stored in %.3f s (%.0f records/s)",
                 in->run_id, t->n, secs, secs > 0 ? (double) t->n / secs : 0);
        /* The warmup the run had: the definition's, or with "auto" where the daemon ended it. */
        if (l->mode != DEFINITION_MODE_CAPACITY && t->header.start_ns > 0 && t->header.measure_start_ns >= t->header.start_ns)
                cJSON_AddNumberToObject(m, "warmup_s", seconds_from_ns(t->header.measure_start_ns - t->header.start_ns));
        if (t->header.measure_start_ns > 0) {
                cJSON_AddNumberToObject(m, "measure_start_ns", (double) t->header.measure_start_ns);
                runs_set_measure_start(in->db, in->run_id, t->header.measure_start_ns);
        }
        *keep = TAKE_PTR(t);
        return 0;
}

/* The injector's late requests by cause (slicelab-inject(1), "late"), copied only as the counts
 * it promises: the summary is a file the run's user could have written. The causes add up to
 * requests. */
static void add_late_requests(cJSON *load, const cJSON *late) {
        static const char *const fields[] = { "threshold_us", "requests", "server", "stalled", "injector",
                                              "stalls", "stalls_ms", "stall_max_ms" };
        double v[ELEMENTSOF(fields)];
        for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                const cJSON *n = cJSON_GetObjectItemCaseSensitive(late, fields[i]);
                if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble) || n->valuedouble < 0 || n->valuedouble > 1e15)
                        return;   /* none, the closed loop's null, or not what the injector writes */
                v[i] = n->valuedouble;
        }
        if (v[2] + v[3] + v[4] != v[1])
                return;
        cJSON *o = cJSON_AddObjectToObject(load, "late");
        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                cJSON_AddNumberToObject(o, fields[i], v[i]);
}

static int collect_injector_summary(const struct collect_input *in, cJSON *m, cJSON *warnings, char *why,
                                    size_t why_size) {
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;
        cJSON *load = cJSON_GetObjectItemCaseSensitive(m, "load");
        int r = run_file_open(in->dir, "summary.json", RUN_FILE_CAP_SUMMARY, &fd, why, why_size);
        if (r < 0 && r != -ENOENT)
                return r;
        why[0] = '\0';
        if (r < 0 || read_fd_bounded(fd, RUN_FILE_CAP_SUMMARY, &text, NULL) < 0) {
                cJSON_AddNullToObject(load, "saturated");
                return 0;
        }
        _cleanup_json_ cJSON *s = cJSON_Parse(text);
        cJSON *sat = cJSON_GetObjectItemCaseSensitive(s, "saturated");
        bool saturated = cJSON_IsTrue(sat);
        cJSON_AddBoolToObject(load, "saturated", saturated);
        add_late_requests(load, cJSON_GetObjectItemCaseSensitive(s, "late"));
        if (saturated)
                json_append_printf(warnings, "the injector was saturated (it could not keep the schedule): its figures describe the injector, not the server");
        return 0;
}

/* ---- a SUT without load ------------------------------------------------------------------ */

static int collect_ops(const struct collect_input *in, cJSON *m, char *why, size_t why_size) {
        _cleanup_json_ cJSON *line = cJSON_Parse(in->sut_last_line);
        cJSON *ops = cJSON_GetObjectItemCaseSensitive(line, "ops_per_s");
        if (!cJSON_IsNumber(ops) || !isfinite(ops->valuedouble) || ops->valuedouble < 0) {
                snprintf(why, why_size, "the SUT's last stdout line is not {\"ops_per_s\": N}: '%.*s'",
                         UTF8_PREFIX(in->sut_last_line, 200));
                return -EBADMSG;
        }
        cJSON_AddNumberToObject(m, "ops_per_s", ops->valuedouble);
        return in->sut_ops ? ops_series_steady_state(in->sut_ops, m) : 0;
}

/* ---- JVM ----------------------------------------------------------------------------------- */

static void store_gc_events(const struct collect_input *in, const struct jvm_gclog *log) {
        _cleanup_free_ struct gc_event_row *rows = calloc(MAX(log->n_events, (size_t) 1), sizeof *rows);
        if (!rows)
                return;
        for (size_t i = 0; i < log->n_events; i++) {
                const struct jvm_gc_event *e = &log->events[i];
                rows[i] = (struct gc_event_row){ .start_ns = e->start_ns, .duration_ns = e->duration_ns,
                                                 .kind = jvm_gc_event_kind_to_string(e->kind), .cause = e->cause,
                                                 .collector = e->collector, .heap_before = e->heap_before,
                                                 .heap_after = e->heap_after, .heap_capacity = e->heap_capacity,
                                                 .gc_id = e->gc_id };
        }
        int r = gc_events_store(in->db, in->run_id, rows, log->n_events);
        if (r < 0)
                log_full(LOG_WARNING, r, NULL, in->run_id, "run %s: cannot store GC events", in->run_id);
}

/* A missing file is a figure unknown; one that is unsafe to read (a symlink, a FIFO, too large)
 * fails the run, naming it. */
static int open_jvm_file(const struct collect_input *in, const char *name, uint64_t cap, FILE **ret, char *why,
                         size_t why_size) {
        int r = run_file_fopen(in->dir, name, cap, ret, why, why_size);
        if (r == -ENOENT)
                why[0] = '\0';
        return r;
}

struct gc_piece {
        struct timespec mtime;
        unsigned long number;
        char name[NAME_MAX + 1];
};

static int cmp_piece(const void *a, const void *b) {
        const struct gc_piece *x = a, *y = b;
        if (x->mtime.tv_sec != y->mtime.tv_sec)
                return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
        if (x->mtime.tv_nsec != y->mtime.tv_nsec)
                return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
        return (x->number > y->number) - (x->number < y->number);
}

/* A rotated piece as HotSpot names it: gc.log.N, N of at most 3 digits. */
static bool gc_piece_name(const char *name, unsigned long *ret) {
        static const char prefix[] = "gc.log.";
        const char *digits = name + sizeof prefix - 1;
        size_t n = strlen(digits);
        if (strncmp(name, prefix, sizeof prefix - 1) != 0 || n == 0 || n > 3 || strspn(digits, "0123456789") != n)
                return false;
        *ret = strtoul(digits, NULL, 10);
        return true;
}

/* The GC log's files in the order the JVM wrote them: its rotated pieces (regular files only)
 * oldest first by modification time (HotSpot reuses the numbers in a cycle, so the number does
 * not tell the order), then gc.log, the newest. *ret_n counts the pieces without gc.log. */
static size_t gc_log_files(const struct collect_input *in, struct gc_piece *pieces, size_t max, size_t *ret_n) {
        size_t n = 0;
        _cleanup_(closedirp) DIR *d = opendir(in->dir);
        struct dirent *de;
        while (d && (de = readdir(d)) && n < max - 1) {
                struct stat st;
                if (!gc_piece_name(de->d_name, &pieces[n].number) ||
                    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                pieces[n].mtime = st.st_mtim;
                snprintf(pieces[n].name, sizeof pieces[n].name, "%s", de->d_name);
                n++;
        }
        qsort(pieces, n, sizeof *pieces, cmp_piece);
        *ret_n = n;
        snprintf(pieces[n].name, sizeof pieces[n].name, "gc.log");
        return n + 1;
}

/* Each piece opened as every run file is (open_jvm_file): -ENOENT when there is no gc.log. */
static int load_gc_log(const struct collect_input *in, cJSON *warnings, struct jvm_gclog **ret, char *why,
                       size_t why_size) {
        struct gc_piece pieces[RUN_GCLOG_FILES + 2];
        FILE *files[ELEMENTSOF(pieces)] = { 0 };
        size_t rotated, n = gc_log_files(in, pieces, ELEMENTSOF(pieces), &rotated);
        if (rotated >= RUN_GCLOG_FILES)
                json_append_printf(warnings, "the GC log was rotated through all of its %d files of %d MiB: its oldest events may be gone",
                      RUN_GCLOG_FILES, RUN_GCLOG_FILE_MIB);
        int r = 0;
        for (size_t i = 0; i < n && r >= 0; i++)
                r = open_jvm_file(in, pieces[i].name, RUN_FILE_CAP_GC_LOG, &files[i], why, why_size);
        if (r >= 0)
                r = jvm_gclog_load_streams(files, n, GC_EVENTS_MAX, ret);
        for (size_t i = 0; i < n; i++)
                if (files[i])
                        fclose(files[i]);
        return r;
}

static int collect_jvm(const struct collect_input *in, cJSON *m, cJSON *warnings, struct jvm_gclog **keep, char *why,
                       size_t why_size) {
        char path[PATH_MAX];
        struct jvm_info info;
        jvm_info_init(&info);
        _cleanup_fclose_ FILE *out = NULL;
        int r = open_jvm_file(in, "sut.stdout", RUN_FILE_CAP_CAPTURE, &out, why, why_size);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r < 0 || jvm_flags_parse_file(out, &info) < 0 || !info.flags_table_found)
                json_append_printf(warnings, "no -XX:+PrintFlagsFinal table in the SUT's stdout: JVM ergonomics unknown");

        _cleanup_(jvm_gclog_freep) struct jvm_gclog *log = NULL;
        path_in(in, "gc.log", path, sizeof path);
        r = load_gc_log(in, warnings, &log, why, why_size);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r >= 0) {
                jvm_info_apply_gclog(&info, &log->info);
                struct jvm_gc_summary s;
                if (jvm_gc_summarize(log->events, log->n_events, in->measure_start_ns, in->measure_end_ns, &s) >= 0)
                        cJSON_AddItemToObject(m, "gc", jvm_gc_summary_to_json(&s));
                store_gc_events(in, log);
                if (log->truncated)
                        json_append_printf(warnings, "the GC log had more than %d events; the rest were not counted", GC_EVENTS_MAX);
        } else
                json_append_printf(warnings, "no GC log at %s (%s): GC figures unknown", path, strerror(-r));
        if (!cJSON_GetObjectItemCaseSensitive(m, "gc"))
                cJSON_AddNullToObject(m, "gc");
        *keep = TAKE_PTR(log);
        cJSON_AddItemToObject(m, "jvm", jvm_info_to_json(&info));

        if (info.has_active_processor_count) {
                const struct definition_cell *c = &in->def->cells[in->cell];
                double given = c->has_quota ? ceil(c->cpu_quota) : c->has_cpus ? cpulist_count(&c->cpus) : 0;
                if (given > 0 && (double) info.active_processor_count != given)
                        json_append_printf(warnings, "the JVM saw %lld CPUs (ActiveProcessorCount) while the cell gives it %.0f",
                              (long long) info.active_processor_count, given);
        }

        cJSON *jit = cJSON_AddObjectToObject(m, "jit");
        struct jvm_hsperf_sample sample;
        int64_t total = 0;
        _cleanup_close_ int fd = -1;
        path_in(in, "hsperfdata", path, sizeof path);
        r = run_file_open(in->dir, "hsperfdata", RUN_FILE_CAP_HSPERF, &fd, why, why_size);
        if (r < 0 && r != -ENOENT)
                return r;
        why[0] = '\0';
        bool has_total = r >= 0 && jvm_hsperf_read(fd, &sample) >= 0 && jvm_hsperf_compile_time_ns(&sample, &total) >= 0;
        add_number_or_null(jit, "compile_time_s", has_total, seconds_from_ns(total));
        bool has_window = in->baseline && in->baseline->has_compile && in->end && in->end->has_compile;
        add_number_or_null(jit, "compile_time_measure_s", has_window,
                           has_window ? seconds_from_ns(in->end->compile_ns - in->baseline->compile_ns) : 0);
        if (!has_total)
                json_append_printf(warnings, "no JVM counters saved at %s: JIT compile time unknown", path);
        return 0;
}

/* ---- cgroup --------------------------------------------------------------------------------- */

static void cgroup_figures(cJSON *o, const struct slice_stats *end, const struct slice_stats *start, bool full) {
        const struct slice_stats zero = { 0 };
        if (!start)
                start = &zero;
        add_number_or_null(o, "cpu_usage_s", end->has_cpu_usage, seconds_from_ns(end->cpu_usage_ns - start->cpu_usage_ns));
        if (full)
                add_number_or_null(o, "nr_periods", end->has_throttling, (double) (end->nr_periods - start->nr_periods));
        add_number_or_null(o, "nr_throttled", end->has_throttling, (double) (end->nr_throttled - start->nr_throttled));
        if (!full)
                return;
        add_number_or_null(o, "throttled_s", end->has_throttling, seconds_from_ns(end->throttled_ns - start->throttled_ns));
        add_number_or_null(o, "memory_peak_bytes", end->has_memory_peak, (double) end->memory_peak_bytes);
        add_number_or_null(o, "oom_kills", end->has_oom_kills, (double) end->oom_kills);
        add_number_or_null(o, "swap_bytes", end->has_swap, (double) end->swap_bytes);
        add_number_or_null(o, "swap_peak_bytes", end->has_swap_peak, (double) end->swap_peak_bytes);
}

/* The end-of-measure snapshot, or (a SUT without load: its exit is the end) a reading now. */
static bool end_stats(const struct collect_input *in, enum slice_kind kind, struct slice_stats *ret) {
        const struct collect_baseline *e = in->end;
        if (e && (kind == SLICE_SUT ? e->has_sut : e->has_load)) {
                *ret = kind == SLICE_SUT ? e->sut : e->load;
                return true;
        }
        return slice_read_stats(in->cg, kind, ret) >= 0;
}

static void collect_cgroups(const struct collect_input *in, cJSON *m, cJSON *warnings) {
        const struct collect_baseline *b = in->baseline;
        struct slice_stats st;
        cJSON *cg = cJSON_AddObjectToObject(m, "cgroup");
        if (end_stats(in, SLICE_SUT, &st)) {
                cgroup_figures(cg, &st, b && b->has_sut ? &b->sut : NULL, true);
                uint64_t periods = st.nr_periods - (b && b->has_sut ? b->sut.nr_periods : 0);
                uint64_t throttled = st.nr_throttled - (b && b->has_sut ? b->sut.nr_throttled : 0);
                if (st.has_throttling && periods > 0 && throttled * 20 > periods)
                        json_append_printf(warnings, "the SUT's slice was throttled in %.1f%% of periods (%llu of %llu)",
                              100.0 * (double) throttled / (double) periods, (unsigned long long) throttled,
                              (unsigned long long) periods);
                if (!st.has_swap)
                        json_append_printf(warnings, "the SUT slice's swap is not accounted (v1 without memsw or memory.stat swap): cgroup.swap_bytes unknown");
        }
        if (in->def->load.kind == DEFINITION_LOAD_NONE) {
                cJSON_AddNullToObject(m, "load");
                return;
        }
        cJSON *load = cJSON_AddObjectToObject(m, "load");
        if (end_stats(in, SLICE_LOAD, &st)) {
                cgroup_figures(load, &st, b && b->has_load ? &b->load : NULL, false);
                if (st.has_throttling && st.nr_throttled > (b && b->has_load ? b->load.nr_throttled : 0))
                        json_append_printf(warnings, "the injector's slice was throttled");
        }
}

/* ---- CPUs ------------------------------------------------------------------------------------ */

static void collect_cpus(const struct collect_input *in, cJSON *m, cJSON *warnings) {
        size_t n = 0;
        const struct host_cpu_freq *cpus = in->freq ? host_freq_sampler_cpus(in->freq, &n) : NULL;
        if (!cpus) {
                cJSON_AddNullToObject(m, "cpu");
                json_append_printf(warnings, "the run's CPU frequencies were not sampled");
                return;
        }
        cJSON_AddItemToObject(m, "cpu", host_cpu_freq_json(cpus, n));
        host_warn_cpus(cpus, n, warnings);
}

/* Joules for the measure phase and per request (answered requests, or the SUT's operations
 * are not countable: then per request is null); null with a warning where RAPL is not there. */
static void collect_energy(const struct collect_input *in, cJSON *m, cJSON *warnings) {
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(m, "requests");
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(m, "errors");
        double answered = cJSON_IsNumber(req) ? req->valuedouble - (cJSON_IsNumber(err) ? err->valuedouble : 0) : 0;
        cJSON *e = energy_measure_json(in->rapl, in->baseline, in->series, in->end, answered);
        if (e) {
                cJSON_AddItemToObject(m, "energy", e);
                return;
        }
        cJSON_AddNullToObject(m, "energy");
        json_append_printf(warnings, in->rapl ? "the RAPL energy counters could not be read at the measure's start and end: energy unknown"
                                 : "the host exposes no RAPL energy counters (/sys/class/powercap/intel-rapl:*): energy unknown");
}

/* CPU time on the cell's CPUs that the run's slices did not use: cpu.other_busy_s and its
 * share of their capacity (other-cpu.h), null with a warning where it cannot be told. */
static void collect_other_cpu(const struct collect_input *in, cJSON *m, cJSON *warnings) {
        cJSON *cpu = cJSON_GetObjectItemCaseSensitive(m, "cpu");
        if (!cJSON_IsObject(cpu)) {
                cpu = cJSON_CreateObject();
                cJSON_AddNullToObject(cpu, "governor");
                cJSON_AddNullToObject(cpu, "freq_mhz");
                cJSON_ReplaceItemInObjectCaseSensitive(m, "cpu", cpu);
        }
        const struct collect_baseline *b = in->baseline, *e = in->end;
        struct other_cpu o;
        const char *why = "the measure phase's start and end were not both read";
        bool ok = b && e && other_cpu_compute(&b->cpu, &e->cpu, e->t_ns - b->t_ns, in->def->load.kind != DEFINITION_LOAD_NONE, &o, &why) >= 0;
        add_number_or_null(cpu, "other_busy_s", ok, ok ? o.other_s : 0);
        add_number_or_null(cpu, "other_busy_share", ok, ok ? o.share : 0);
        if (!ok)
                json_append_printf(warnings, "%s: CPU time of other work on the cell's CPUs unknown", why);
}

/* Swap in use on the host during measure (SwapTotal - SwapFree, the larger of start and end):
 * a memory-hungry run's figures then are the disk's. Also said as a warning. */
static void collect_swap(const struct collect_input *in, cJSON *m, cJSON *warnings) {
        const struct collect_baseline *b = in->baseline, *e = in->end;
        bool ok = b && e && b->has_meminfo && e->has_meminfo && b->meminfo.have_swap && e->meminfo.have_swap;
        uint64_t used = 0;
        if (ok)
                used = MAX(b->meminfo.swap_total_bytes - b->meminfo.swap_free_bytes, e->meminfo.swap_total_bytes - e->meminfo.swap_free_bytes);
        add_number_or_null(m, "host_swap_bytes", ok, (double) used);
        if (!ok)
                json_append_printf(warnings, "/proc/meminfo's swap could not be read at the measure's start and end: host_swap_bytes unknown");
        else
                host_warn_swap(&e->meminfo, warnings);
}

/* The design's keys are always there: null where a figure does not apply to this run. */
static void add_nulls(cJSON *m, const char *const *keys, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!cJSON_GetObjectItemCaseSensitive(m, keys[i]))
                        cJSON_AddNullToObject(m, keys[i]);
}

int collect_run(const struct collect_input *in, cJSON **ret_metrics, cJSON *warnings, char *why, size_t why_size) {
        _cleanup_json_ cJSON *m = cJSON_CreateObject();
        _cleanup_(timeline_freep) struct timeline *t = NULL;
        _cleanup_(jvm_gclog_freep) struct jvm_gclog *gc = NULL;
        if (!m)
                return -ENOMEM;
        int r;
        if (in->hosts && (r = collect_hosts_run(in->hosts, in->dir, in->run_id, why, why_size)) < 0)
                return r;
        if (in->def->load.kind == DEFINITION_LOAD_NONE) {
                if ((r = collect_ops(in, m, why, why_size)) < 0)
                        return r;
        } else {
                cJSON_AddNullToObject(m, "ops_per_s");
                if ((r = collect_timeline(in, m, &t, why, why_size)) < 0)
                        return r;
        }
        if (cancelled(in))
                return -ECANCELED;
        if (in->def->load.kind == DEFINITION_LOAD_NONE)
                runs_set_measure_start(in->db, in->run_id, in->measure_start_ns);
        collect_cgroups(in, m, warnings);
        if (in->def->load.kind == DEFINITION_LOAD_INJECTOR && (r = collect_injector_summary(in, m, warnings, why, why_size)) < 0)
                return r;
        else if (in->def->load.kind == DEFINITION_LOAD_EXTERNAL)
                cJSON_AddNullToObject(cJSON_GetObjectItemCaseSensitive(m, "load"), "saturated");
        if (in->def->sut.jvm && (r = collect_jvm(in, m, warnings, &gc, why, why_size)) < 0)
                return r;
        if (cancelled(in))
                return -ECANCELED;
        if (in->series) {
                int64_t start = t && t->header.measure_start_ns > 0 ? t->header.measure_start_ns : in->measure_start_ns;
                r = samples_store(in->db, in->run_id, in->series, start, t, gc);
                if (r < 0)
                        log_full(LOG_WARNING, r, NULL, in->run_id, "run %s: cannot store its 1 s samples", in->run_id);
        }
        collect_cpus(in, m, warnings);
        collect_other_cpu(in, m, warnings);
        collect_energy(in, m, warnings);
        collect_swap(in, m, warnings);
        if (in->profile) {
                cJSON *p = NULL;
                if (profile_collect(in->profile, &p, warnings) >= 0)
                        cJSON_AddItemToObject(m, "profile", p);
        }
        /* capacity: null here, the search's figures are the run's to add (daemon/capacity) */
        static const char *const keys[] = { "throughput_rps", "requests", "errors", "latency_us", "ops_per_s",
                                            "gc", "jit", "jvm", "cgroup", "cpu", "load", "energy", "capacity",
                                            "profile" };
        add_nulls(m, keys, ELEMENTSOF(keys));
        *ret_metrics = TAKE_PTR(m);
        return 0;
}
