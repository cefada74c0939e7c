/* host-cpufreq.c: cpufreq readings, boost state and the allocation-free frequency sampler. */
#include "host/host-cpufreq.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-sysfs.h"
#include "basic/json-util.h"
#include "basic/macro.h"

#define CPUFREQ_DIR "/sys/devices/system/cpu/cpu%u/cpufreq"

/* Say why a cpufreq file of a CPU could not be read: a missing directory is the common case
 * on VMs and gets its own sentence. Keeps the first reason recorded. */
static void set_reason(char *reason, const char *root, unsigned cpu, const char *file, int err) {
        if (reason[0])
                return;
        if (!host_exists(root, CPUFREQ_DIR, cpu))
                snprintf(reason, HOST_REASON_MAX,
                         "cpufreq not exposed (no /sys/devices/system/cpu/cpu%u/cpufreq)", cpu);
        else
                snprintf(reason, HOST_REASON_MAX, "cannot read cpu%u cpufreq/%s: %s", cpu, file,
                         strerror(-err));
}

/* Frequency file in kHz -> MHz. */
static int read_mhz(const char *root, unsigned cpu, const char *file, double *ret) {
        uint64_t khz;
        int r = host_read_u64(root, &khz, CPUFREQ_DIR "/%s", cpu, file);
        if (r < 0)
                return r;
        *ret = (double) khz / 1000.0;
        return 0;
}

static int read_name(const char *root, unsigned cpu, const char *file, char *buf) {
        int r = host_read_line(root, buf, HOST_CPUFREQ_NAME_MAX, CPUFREQ_DIR "/%s", cpu, file);
        if (r >= 0 && buf[0] == '\0')
                r = -ENODATA;
        if (r < 0)
                buf[0] = '\0';
        return r;
}

int host_cpufreq_read(const char *root, unsigned cpu, struct host_cpufreq *ret) {
        char probe[4096];
        int r = host_path(probe, sizeof probe, root, CPUFREQ_DIR, cpu);
        if (r < 0)
                return r;
        struct host_cpufreq f = { 0 };
        if ((r = read_name(root, cpu, "scaling_governor", f.governor)) < 0)
                set_reason(f.reason, root, cpu, "scaling_governor", r);
        if ((r = read_name(root, cpu, "scaling_driver", f.driver)) < 0)
                set_reason(f.reason, root, cpu, "scaling_driver", r);
        if ((r = read_mhz(root, cpu, "scaling_cur_freq", &f.cur_mhz)) < 0)
                set_reason(f.reason, root, cpu, "scaling_cur_freq", r);
        f.have_cur = r >= 0;
        if ((r = read_mhz(root, cpu, "scaling_min_freq", &f.min_mhz)) < 0)
                set_reason(f.reason, root, cpu, "scaling_min_freq", r);
        f.have_min = r >= 0;
        if ((r = read_mhz(root, cpu, "scaling_max_freq", &f.max_mhz)) < 0)
                set_reason(f.reason, root, cpu, "scaling_max_freq", r);
        f.have_max = r >= 0;
        *ret = f;
        return 0;
}

int host_boost_read(const char *root, struct host_boost *ret) {
        struct host_boost b = { 0 };
        uint64_t v;
        /* acpi-cpufreq and amd-pstate: 1 = boost allowed */
        int r = host_read_u64(root, &v, "/sys/devices/system/cpu/cpufreq/boost");
        if (r >= 0 && v <= 1) {
                *ret = (struct host_boost){ .have = true, .enabled = v == 1, .source = "cpufreq/boost" };
                return 0;
        }
        if (r != -ENOENT) {
                snprintf(b.reason, sizeof b.reason, "cannot read cpufreq/boost: %s",
                         r < 0 ? strerror(-r) : "not 0 or 1");
                *ret = b;
                return 0;
        }
        /* intel_pstate inverts it: no_turbo = 1 means turbo is off */
        r = host_read_u64(root, &v, "/sys/devices/system/cpu/intel_pstate/no_turbo");
        if (r >= 0 && v <= 1) {
                *ret = (struct host_boost){ .have = true, .enabled = v == 0, .source = "intel_pstate/no_turbo" };
                return 0;
        }
        if (r == -ENOENT)
                snprintf(b.reason, sizeof b.reason,
                         "neither /sys/devices/system/cpu/cpufreq/boost nor intel_pstate/no_turbo exists");
        else
                snprintf(b.reason, sizeof b.reason, "cannot read intel_pstate/no_turbo: %s",
                         r < 0 ? strerror(-r) : "not 0 or 1");
        *ret = b;
        return 0;
}

/* ---- sampler ---- */

struct host_freq_sampler {
        size_t n;
        struct host_cpu_freq *cpus;
        int *cur_fd, *gov_fd;   /* -1 where the file could not be opened */
};

struct host_freq_sampler *host_freq_sampler_free(struct host_freq_sampler *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; s->cur_fd && i < s->n; i++)
                if (s->cur_fd[i] >= 0)
                        close(s->cur_fd[i]);
        for (size_t i = 0; s->gov_fd && i < s->n; i++)
                if (s->gov_fd[i] >= 0)
                        close(s->gov_fd[i]);
        free(s->cur_fd);
        free(s->gov_fd);
        free(s->cpus);
        free(s);
        return NULL;
}

DEFINE_POINTER_CLEANUP(struct host_freq_sampler, host_freq_sampler_free)

/* Opens a cpufreq file; a file that is simply not there is not an error (fd -1, reason set). */
static int open_cpufreq(const char *root, struct host_cpu_freq *c, const char *file, int *ret_fd) {
        char path[4096];
        int r = host_path(path, sizeof path, root, CPUFREQ_DIR "/%s", c->cpu, file);
        if (r < 0)
                return r;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = negative_errno();
                if (r == -EMFILE || r == -ENFILE || r == -ENOMEM)
                        return r;
                set_reason(c->reason, root, c->cpu, file, r);
        }
        *ret_fd = fd;
        return 0;
}

int host_freq_sampler_new(const char *root, const struct cpulist *cpus, struct host_freq_sampler **ret) {
        size_t n = cpulist_count(cpus);
        if (n == 0)
                return -EINVAL;
        _cleanup_(host_freq_sampler_freep) struct host_freq_sampler *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->cpus = calloc(n, sizeof *s->cpus);
        s->cur_fd = malloc(n * sizeof(int));
        s->gov_fd = malloc(n * sizeof(int));
        if (!s->cpus || !s->cur_fd || !s->gov_fd)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                s->cur_fd[i] = s->gov_fd[i] = -1;
        s->n = n;
        size_t i = 0;
        for (int cpu = cpulist_next(cpus, -1); cpu >= 0; cpu = cpulist_next(cpus, cpu), i++) {
                s->cpus[i].cpu = (unsigned) cpu;
                int r = open_cpufreq(root, &s->cpus[i], "scaling_cur_freq", &s->cur_fd[i]);
                if (r < 0)
                        return r;
                r = open_cpufreq(root, &s->cpus[i], "scaling_governor", &s->gov_fd[i]);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

void host_freq_sampler_reset(struct host_freq_sampler *s) {
        for (size_t i = 0; i < s->n; i++) {
                struct host_cpu_freq *c = &s->cpus[i];
                c->governor[0] = c->governor_last[0] = '\0';
                c->governor_changed = false;
                c->samples = c->errors = 0;
                c->mean_mhz = c->min_mhz = c->max_mhz = 0;
        }
}

/* pread the whole (short) file into buf, newline stripped. */
static int pread_line(int fd, char *buf, size_t size) {
        ssize_t k = pread(fd, buf, size - 1, 0);
        if (k < 0)
                return negative_errno();
        if (k == 0)
                return -ENODATA;
        buf[k] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

static void sample_freq(struct host_cpu_freq *c, int fd) {
        char buf[32];
        uint64_t khz;
        if (pread_line(fd, buf, sizeof buf) < 0 || host_parse_u64(buf, &khz) < 0) {
                c->errors++;
                return;
        }
        double mhz = (double) khz / 1000.0;
        c->samples++;
        if (c->samples == 1) {
                c->mean_mhz = c->min_mhz = c->max_mhz = mhz;
                return;
        }
        /* running mean: no sum that could lose precision over a long run */
        c->mean_mhz += (mhz - c->mean_mhz) / (double) c->samples;
        c->min_mhz = MIN(c->min_mhz, mhz);
        c->max_mhz = MAX(c->max_mhz, mhz);
}

static void sample_governor(struct host_cpu_freq *c, int fd) {
        char buf[HOST_CPUFREQ_NAME_MAX];
        if (pread_line(fd, buf, sizeof buf) < 0 || buf[0] == '\0') {
                c->errors++;
                return;
        }
        if (c->governor[0] == '\0') {
                memcpy(c->governor, buf, sizeof buf);
                return;
        }
        if (strcmp(c->governor, buf) != 0) {
                c->governor_changed = true;
                memcpy(c->governor_last, buf, sizeof buf);
        }
}

void host_freq_sampler_sample(struct host_freq_sampler *s) {
        for (size_t i = 0; i < s->n; i++) {
                if (s->gov_fd[i] >= 0)
                        sample_governor(&s->cpus[i], s->gov_fd[i]);
                if (s->cur_fd[i] >= 0)
                        sample_freq(&s->cpus[i], s->cur_fd[i]);
        }
}

const struct host_cpu_freq *host_freq_sampler_cpus(const struct host_freq_sampler *s, size_t *ret_n) {
        *ret_n = s->n;
        return s->cpus;
}

static double round_tenth(double v) {
        return round(v * 10) / 10;
}

static void add_freq(cJSON *freq, const char *key, const struct host_cpu_freq *c) {
        if (c->samples == 0) {
                cJSON_AddNullToObject(freq, key);
                return;
        }
        cJSON *o = cJSON_AddObjectToObject(freq, key);
        cJSON_AddNumberToObject(o, "mean", round_tenth(c->mean_mhz));
        cJSON_AddNumberToObject(o, "min", round_tenth(c->min_mhz));
        cJSON_AddNumberToObject(o, "max", round_tenth(c->max_mhz));
}

cJSON *host_cpu_freq_json(const struct host_cpu_freq *cpus, size_t n) {
        cJSON *o = cJSON_CreateObject();
        cJSON *gov = cJSON_AddObjectToObject(o, "governor");
        cJSON *freq = cJSON_AddObjectToObject(o, "freq_mhz");
        for (size_t i = 0; i < n; i++) {
                char key[16];
                snprintf(key, sizeof key, "%u", cpus[i].cpu);
                json_add_string_or_null(gov, key, cpus[i].governor[0] ? cpus[i].governor : NULL);
                add_freq(freq, key, &cpus[i]);
        }
        return o;
}
