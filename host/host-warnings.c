/* host-warnings.c: sentences with evidence about governors, frequencies and swap. */
#include "host/host-warnings.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "host/host-format.h"
#include "basic/json-util.h"

typedef bool (*cpu_pred)(const struct host_cpu_freq *c);
typedef bool (*cpu_same)(const struct host_cpu_freq *a, const struct host_cpu_freq *b);

/* The CPUs of cpus[] that match pred (and, when same is given, are "the same" as cpus[first]). */
static struct cpulist select_cpus(const struct host_cpu_freq *cpus, size_t n, size_t first,
                                  cpu_pred pred, cpu_same same) {
        struct cpulist set = { 0 };
        for (size_t i = first; i < n; i++)
                if (pred(&cpus[i]) && (!same || same(&cpus[first], &cpus[i])))
                        cpulist_set(&set, cpus[i].cpu);
        return set;
}

static bool governor_not_performance(const struct host_cpu_freq *c) {
        return c->governor[0] && strcmp(c->governor, "performance") != 0;
}

static bool governor_changed(const struct host_cpu_freq *c) {
        return c->governor_changed;
}

static bool same_governor(const struct host_cpu_freq *a, const struct host_cpu_freq *b) {
        return strcmp(a->governor, b->governor) == 0;
}

static bool same_governor_change(const struct host_cpu_freq *a, const struct host_cpu_freq *b) {
        return same_governor(a, b) && strcmp(a->governor_last, b->governor_last) == 0;
}

/* One sentence per group of CPUs sharing what same() compares, made by say(). */
static int warn_groups(const struct host_cpu_freq *cpus, size_t n, cpu_pred pred, cpu_same same,
                       void (*say)(cJSON *w, const struct host_cpu_freq *c, const char *which),
                       cJSON *warnings) {
        struct cpulist done = { 0 };
        int count = 0;
        for (size_t i = 0; i < n; i++) {
                if (!pred(&cpus[i]) || cpulist_test(&done, cpus[i].cpu))
                        continue;
                struct cpulist group = select_cpus(cpus, n, i, pred, same);
                cpulist_union(&done, &group);
                char which[HOST_CPUS_TEXT_MAX];
                int r = host_format_cpus(&group, which, sizeof which);
                if (r < 0)
                        return r;
                say(warnings, &cpus[i], which);
                count++;
        }
        return count;
}

static void say_governor(cJSON *w, const struct host_cpu_freq *c, const char *which) {
        json_append_printf(w, "governor is %s on %s", c->governor, which);
}

static void say_governor_changed(cJSON *w, const struct host_cpu_freq *c, const char *which) {
        json_append_printf(w, "governor changed during the run on %s (%s, then %s)", which, c->governor,
                           c->governor_last);
}

int host_warn_governor(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings) {
        int a = warn_groups(cpus, n, governor_not_performance, same_governor, say_governor, warnings);
        if (a < 0)
                return a;
        int b = warn_groups(cpus, n, governor_changed, same_governor_change, say_governor_changed,
                            warnings);
        return b < 0 ? b : a + b;
}

static bool governor_unknown(const struct host_cpu_freq *c) {
        return c->governor[0] == '\0';
}

static bool freq_unknown(const struct host_cpu_freq *c) {
        return c->samples == 0;
}

static bool freq_known(const struct host_cpu_freq *c) {
        return c->samples > 0;
}

/* The first reason given by a CPU of the set. */
static const char *reason_of(const struct host_cpu_freq *cpus, size_t n, const struct cpulist *set) {
        for (size_t i = 0; i < n; i++)
                if (cpulist_test(set, cpus[i].cpu) && cpus[i].reason[0])
                        return cpus[i].reason;
        return "no reading succeeded";
}

static int say_unknown(cJSON *w, const char *what, const struct host_cpu_freq *cpus, size_t n,
                       const struct cpulist *set) {
        char which[HOST_CPUS_TEXT_MAX];
        int r = host_format_cpus(set, which, sizeof which);
        if (r < 0)
                return r;
        json_append_printf(w, "%s unknown on %s: %s", what, which, reason_of(cpus, n, set));
        return 1;
}

int host_warn_cpufreq_unknown(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings) {
        struct cpulist gov = select_cpus(cpus, n, 0, governor_unknown, NULL);
        struct cpulist freq = select_cpus(cpus, n, 0, freq_unknown, NULL);
        bool any_gov = cpulist_count(&gov) > 0, any_freq = cpulist_count(&freq) > 0;
        if (any_gov && memcmp(&gov, &freq, sizeof gov) == 0)
                return say_unknown(warnings, "governor and frequency", cpus, n, &gov);
        int count = 0, r;
        if (any_gov) {
                if ((r = say_unknown(warnings, "governor", cpus, n, &gov)) < 0)
                        return r;
                count += r;
        }
        if (any_freq) {
                if ((r = say_unknown(warnings, "frequency", cpus, n, &freq)) < 0)
                        return r;
                count += r;
        }
        return count;
}

/* (hi - lo) / lo in percent. */
static double percent_above(double hi, double lo) {
        return (hi - lo) / lo * 100;
}

int host_warn_freq_spread(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings) {
        const struct host_cpu_freq *lo = NULL, *hi = NULL;
        for (size_t i = 0; i < n; i++) {
                if (!freq_known(&cpus[i]))
                        continue;
                if (!lo || cpus[i].mean_mhz < lo->mean_mhz)
                        lo = &cpus[i];
                if (!hi || cpus[i].mean_mhz > hi->mean_mhz)
                        hi = &cpus[i];
        }
        if (!lo || lo->mean_mhz <= 0 || hi->mean_mhz - lo->mean_mhz <= HOST_FREQ_TOLERANCE * lo->mean_mhz)
                return 0;
        json_append_printf(warnings,
                           "frequencies differ by %.0f%% between the run's CPUs: mean %.0f MHz "
                           "on cpu %u, %.0f MHz on cpu %u",
                           percent_above(hi->mean_mhz, lo->mean_mhz), hi->mean_mhz, hi->cpu,
                           lo->mean_mhz, lo->cpu);
        return 1;
}

static bool freq_moved(const struct host_cpu_freq *c) {
        return freq_known(c) && c->min_mhz > 0 && c->max_mhz - c->min_mhz > HOST_FREQ_TOLERANCE * c->min_mhz;
}

int host_warn_freq_moved(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings) {
        const struct host_cpu_freq *worst = NULL;
        for (size_t i = 0; i < n; i++)
                if (freq_moved(&cpus[i]) &&
                    (!worst || percent_above(cpus[i].max_mhz, cpus[i].min_mhz) >
                                       percent_above(worst->max_mhz, worst->min_mhz)))
                        worst = &cpus[i];
        if (!worst)
                return 0;
        struct cpulist set = select_cpus(cpus, n, 0, freq_moved, NULL);
        char which[HOST_CPUS_TEXT_MAX];
        int r = host_format_cpus(&set, which, sizeof which);
        if (r < 0)
                return r;
        json_append_printf(warnings,
                           "frequency moved by more than %.0f%% during measure on %s (cpu %u: %.0f to "
                           "%.0f MHz, mean %.0f MHz)",
                           HOST_FREQ_TOLERANCE * 100, which, worst->cpu, worst->min_mhz,
                           worst->max_mhz, worst->mean_mhz);
        return 1;
}

int host_warn_swap(const struct host_meminfo *m, cJSON *warnings) {
        if (!m->have_swap || m->swap_total_bytes == m->swap_free_bytes)
                return 0;
        double mib = 1024.0 * 1024.0;
        json_append_printf(warnings, "swap in use: %.1f MiB of %.1f MiB",
                           (double) (m->swap_total_bytes - m->swap_free_bytes) / mib,
                           (double) m->swap_total_bytes / mib);
        return 1;
}

int host_warn_cpus(const struct host_cpu_freq *cpus, size_t n, cJSON *warnings) {
        int (*const steps[])(const struct host_cpu_freq *, size_t, cJSON *) = {
                host_warn_governor, host_warn_cpufreq_unknown, host_warn_freq_spread, host_warn_freq_moved,
        };
        int count = 0;
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                int r = steps[i](cpus, n, warnings);
                if (r < 0)
                        return r;
                count += r;
        }
        return count;
}
