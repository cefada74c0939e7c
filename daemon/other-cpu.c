/* other-cpu.c: busy time on a run's CPUs that its slices did not use (see other-cpu.h). */
#include "daemon/other-cpu.h"

#include <errno.h>

#include "basic/time-util.h"

void other_cpu_take(struct cgroup_run *cg, struct other_cpu_reading *ret) {
        /* the kernel computes the idle time it prints when read: the middle of the read */
        int64_t before = now_mono_ns();
        ret->has_idle = host_read_stat_idle("", &ret->idle) >= 0;
        ret->idle_t_ns = before + (now_mono_ns() - before) / 2;
        ret->has_sut = slice_read_cpu_usage(cg, SLICE_SUT, &ret->sut) >= 0;
        ret->has_load = slice_read_cpu_usage(cg, SLICE_LOAD, &ret->load) >= 0;
}

static uint64_t delta(uint64_t end, uint64_t start) {
        return end > start ? end - start : 0;
}

/* A slice's time on cpus between two readings: per CPU where the kernel keeps it, else its
 * total in the share of its cpuset that lies in cpus. */
static double slice_on(const struct slice_cpu_usage *s, const struct slice_cpu_usage *e, const struct cpulist *cpus) {
        if (e->per_cpu && s->per_cpu) {
                uint64_t sum = 0;
                for (int c = cpulist_next(cpus, -1); c >= 0; c = cpulist_next(cpus, c))
                        sum += delta(e->percpu_ns[c], s->percpu_ns[c]);
                return seconds_from_ns((int64_t) sum);
        }
        unsigned own = cpulist_count(&e->cpus), in = 0;
        for (int c = cpulist_next(&e->cpus, -1); c >= 0; c = cpulist_next(&e->cpus, c))
                in += cpulist_test(cpus, (unsigned) c);
        return own ? seconds_from_ns((int64_t) delta(e->total_ns, s->total_ns)) * in / own : 0;
}

int other_cpu_compute(const struct other_cpu_reading *start, const struct other_cpu_reading *end, int64_t elapsed_ns,
                      bool with_load, struct other_cpu *ret, const char **why) {
        if (!start->has_idle || !end->has_idle) {
                *why = "/proc/stat could not be read at the measure's start and end";
                return -ENODATA;
        }
        if (!start->has_sut || !end->has_sut || (with_load && (!start->has_load || !end->has_load))) {
                *why = "the slices' CPU usage could not be read at the measure's start and end";
                return -ENODATA;
        }
        const struct cpulist *cpus = &end->sut.cpus;
        unsigned n = cpulist_count(cpus);
        int64_t wall_ns = end->idle_t_ns - start->idle_t_ns;
        if (elapsed_ns <= 0 || wall_ns <= 0) {
                *why = "no time passed between the measure's start and end readings";
                return -ENODATA;
        }
        if (n == 0 || !cpulist_is_subset(cpus, &end->idle.cpus)) {
                *why = "the SUT slice's CPUs have no /proc/stat line";
                return -ENODATA;
        }
        uint64_t busy = 0;
        for (int c = cpulist_next(cpus, -1); c >= 0; c = cpulist_next(cpus, c))
                busy += delta((uint64_t) wall_ns, delta(end->idle.idle_ns[c], start->idle.idle_ns[c]));
        double slices = slice_on(&start->sut, &end->sut, cpus) + (with_load ? slice_on(&start->load, &end->load, cpus) : 0);
        double busy_s = seconds_from_ns((int64_t) busy), other = busy_s > slices ? busy_s - slices : 0;
        *ret = (struct other_cpu){
                .n_cpus = n,
                .busy_s = busy_s,
                .slices_s = slices,
                .other_s = other,
                .share = other / (n * seconds_from_ns(elapsed_ns)),
                .per_cpu = end->sut.per_cpu,
        };
        return 0;
}
