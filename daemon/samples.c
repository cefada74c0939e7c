/* samples.c: the 1 s series of a run. */
#include "daemon/samples.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "storage/db.h"
#include "host/host-cpufreq.h"
#include "basic/json-util.h"
#include "jvm/jvm-gclog.h"
#include "jvm/jvm-hsperf.h"
#include "basic/macro.h"
#include "basic/radix-sort.h"
#include "storage/samples-store.h"
#include "basic/stats.h"
#include "basic/time-util.h"
#include "daemon/timeline.h"

static bool mean_freq(const struct cpulist *cpus, double *ret) {
        double sum = 0;
        unsigned n = 0;
        for (int i = cpulist_next(cpus, -1); i >= 0; i = cpulist_next(cpus, i)) {
                struct host_cpufreq f;
                if (host_cpufreq_read("", (unsigned) i, &f) >= 0 && f.have_cur) {
                        sum += f.cur_mhz;
                        n++;
                }
        }
        if (n == 0)
                return false;
        *ret = sum / n;
        return true;
}

void samples_take(struct samples *s, struct cgroup_run *cg, pid_t sut_pid, bool jvm, const struct cpulist *cpus) {
        if (s->n == s->cap) {
                if (s->cap >= SAMPLES_MAX)
                        return;
                size_t cap = s->cap ? s->cap * 2 : 256;
                struct sample_point *p = realloc(s->points, cap * sizeof *p);
                if (!p)
                        return;
                s->points = p;
                s->cap = cap;
        }
        struct sample_point *p = &s->points[s->n++];
        *p = (struct sample_point){ .t_ns = now_mono_ns() };
        p->has_sut = slice_read_stats(cg, SLICE_SUT, &p->sut) >= 0;
        p->has_load = slice_read_stats(cg, SLICE_LOAD, &p->load) >= 0;
        struct jvm_hsperf_sample h;
        if (jvm && sut_pid > 0 && jvm_hsperf_sample_pid(sut_pid, &h) >= 0)
                p->has_compile = jvm_hsperf_compile_time_ns(&h, &p->compile_ns) >= 0;
        p->has_freq = mean_freq(cpus, &p->freq_mhz);
        p->has_energy = s->rapl && host_rapl_read(s->rapl, p->energy_uj) >= 0;
}

void samples_done(struct samples *s) {
        free(s->points);
        *s = (struct samples){ .rapl = s->rapl };
}

/* ---- per interval ------------------------------------------------------------------------ */

static void add_num(cJSON *o, const char *name, bool has, double v) {
        if (has)
                cJSON_AddNumberToObject(o, name, v);
        else
                cJSON_AddNullToObject(o, name);
}

/* Requests scheduled in [from, to) and the p99 of their latency from scheduled: the timeline is
 * sorted by scheduled time, so an interval is a contiguous range. */
static void timeline_interval(const struct timeline *t, size_t *pos, int64_t from, int64_t to, int64_t *scratch,
                              cJSON *o) {
        size_t n = 0;
        while (*pos < t->n && t->records[*pos].scheduled_ns < from)
                (*pos)++;
        for (; *pos < t->n && t->records[*pos].scheduled_ns < to; (*pos)++) {
                const struct timeline_record *r = &t->records[*pos];
                int64_t v; /* a latency past int64 is no clock's: left out rather than wrapped */
                if (r->status != 0 && !__builtin_sub_overflow(r->done_ns, r->scheduled_ns, &v))
                        scratch[n++] = v;
        }
        cJSON_AddNumberToObject(o, "requests", (double) n);
        if (n > 0 && radix_sort_i64(scratch, n) >= 0)
                cJSON_AddNumberToObject(o, "p99_us", (double) stats_percentile_sorted_i64(scratch, n, 99) / 1000.0);
        else
                cJSON_AddNullToObject(o, "p99_us");
}

static double gc_pause_ms(const struct jvm_gclog *gc, int64_t from, int64_t to) {
        double ms = 0;
        for (size_t i = 0; i < gc->n_events; i++) {
                const struct jvm_gc_event *e = &gc->events[i];
                if (e->kind == JVM_GC_PAUSE && e->start_ns >= from && e->start_ns < to)
                        ms += (double) e->duration_ns / 1e6;
        }
        return ms;
}

static cJSON *interval_json(const struct sample_point *a, const struct sample_point *b, int64_t measure_start_ns) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t_ms", (double) ((a->t_ns - measure_start_ns) / 1000000));
        bool sut = a->has_sut && b->has_sut, load = a->has_load && b->has_load;
        add_num(o, "cpu_usage_s", sut && b->sut.has_cpu_usage, seconds_from_ns(b->sut.cpu_usage_ns - a->sut.cpu_usage_ns));
        add_num(o, "nr_periods", sut && b->sut.has_throttling, (double) (b->sut.nr_periods - a->sut.nr_periods));
        add_num(o, "nr_throttled", sut && b->sut.has_throttling, (double) (b->sut.nr_throttled - a->sut.nr_throttled));
        add_num(o, "throttled_s", sut && b->sut.has_throttling, seconds_from_ns(b->sut.throttled_ns - a->sut.throttled_ns));
        add_num(o, "memory_bytes", b->has_sut && b->sut.has_memory_current, (double) b->sut.memory_current_bytes);
        add_num(o, "load_cpu_usage_s", load && b->load.has_cpu_usage, seconds_from_ns(b->load.cpu_usage_ns - a->load.cpu_usage_ns));
        add_num(o, "compile_ms", a->has_compile && b->has_compile, (double) (b->compile_ns - a->compile_ns) / 1e6);
        add_num(o, "freq_mhz", b->has_freq, b->freq_mhz);
        return o;
}

int samples_store(struct db_conn *c, const char *run_id, const struct samples *s, int64_t measure_start_ns,
                  const struct timeline *t, const struct jvm_gclog *gc) {
        if (s->n < 2)
                return 0;
        size_t n = s->n - 1;
        _cleanup_free_ int64_t *scratch = t ? malloc(MAX(t->n, (size_t) 1) * sizeof(int64_t)) : NULL;
        _cleanup_free_ int64_t *t_ms = malloc(n * sizeof *t_ms);
        char **rows = calloc(n, sizeof *rows);
        int r = (t && !scratch) || !t_ms || !rows ? -ENOMEM : 0;
        size_t pos = 0;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const struct sample_point *a = &s->points[i], *b = &s->points[i + 1];
                _cleanup_json_ cJSON *o = interval_json(a, b, measure_start_ns);
                if (t)
                        timeline_interval(t, &pos, a->t_ns, b->t_ns, scratch, o);
                add_num(o, "gc_ms", gc != NULL, gc ? gc_pause_ms(gc, a->t_ns, b->t_ns) : 0);
                t_ms[i] = (a->t_ns - measure_start_ns) / 1000000;
                if (!(rows[i] = cJSON_PrintUnformatted(o)))
                        r = -ENOMEM;
        }
        if (r >= 0)
                r = samples_save(c, run_id, t_ms, rows, n);
        for (size_t i = 0; rows && i < n; i++)
                free(rows[i]);
        free(rows);
        return r;
}
