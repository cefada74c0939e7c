/* host-info.c: assembling GET /v1/host from sysfs, procfs, uname and the java probe. */
#include "host/host-info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "host/host-cpufreq.h"
#include "host/host-format.h"
#include "host/host-java.h"
#include "host/host-sysfs.h"
#include "host/host-warnings.h"
#include "basic/json-util.h"
#include "basic/macro.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* key: value, or key: null plus key_reason: reason. */
static void add_reason(cJSON *o, const char *key, const char *reason) {
        char rkey[64];
        snprintf(rkey, sizeof rkey, "%s_reason", key);
        cJSON_AddStringToObject(o, rkey, reason);
}

static void add_string_or_reason(cJSON *o, const char *key, const char *value, const char *reason) {
        json_add_string_or_null(o, key, value);
        if (!value)
                add_reason(o, key, reason);
}

static void add_number_or_reason(cJSON *o, const char *key, bool have, double v, const char *reason) {
        json_add_number_or_null(o, key, have, v);
        if (!have)
                add_reason(o, key, reason);
}

/* ---- topology ---- */

struct cpu_topo {
        unsigned cpu;
        bool have_socket, have_core, have_siblings;
        uint64_t socket, core;
        struct cpulist siblings;
        int node; /* -1 unknown */
        struct host_cpufreq freq;
};

struct numa {
        bool have;
        struct cpulist online;
        char reason[HOST_REASON_MAX];
};

static int read_numa(const char *root, struct numa *ret) {
        int r = host_read_cpulist(root, &ret->online, "/sys/devices/system/node/online");
        ret->have = r >= 0;
        if (r == -ENAMETOOLONG)
                return r;
        if (r == -ENOENT)
                snprintf(ret->reason, sizeof ret->reason, "no /sys/devices/system/node (kernel without NUMA)");
        else if (r < 0)
                snprintf(ret->reason, sizeof ret->reason, "cannot read /sys/devices/system/node/online: %s",
                         strerror(-r));
        return 0;
}

static int node_of(const char *root, const struct numa *numa, unsigned cpu) {
        if (!numa->have)
                return -1;
        for (int node = cpulist_next(&numa->online, -1); node >= 0; node = cpulist_next(&numa->online, node))
                if (host_exists(root, "/sys/devices/system/node/node%d/cpu%u", node, cpu))
                        return node;
        return -1;
}

static int read_cpu(const char *root, const struct numa *numa, unsigned cpu, struct cpu_topo *t) {
        *t = (struct cpu_topo){ .cpu = cpu };
        t->have_socket = host_read_u64(root, &t->socket, CPU_DIR "/cpu%u/topology/physical_package_id", cpu) >= 0;
        t->have_core = host_read_u64(root, &t->core, CPU_DIR "/cpu%u/topology/core_id", cpu) >= 0;
        t->have_siblings =
                host_read_cpulist(root, &t->siblings, CPU_DIR "/cpu%u/topology/thread_siblings_list", cpu) >= 0;
        t->node = node_of(root, numa, cpu);
        return host_cpufreq_read(root, cpu, &t->freq);
}

/* Distinct sockets and (socket, core) pairs, and the widest core, over the CPUs that told. */
static void count_topology(const struct cpu_topo *t, size_t n, int *sockets, int *cores, int *threads) {
        *sockets = *cores = *threads = 0;
        for (size_t i = 0; i < n; i++) {
                bool new_socket = t[i].have_socket, new_core = t[i].have_socket && t[i].have_core;
                for (size_t j = 0; j < i; j++) {
                        bool same_socket = t[j].have_socket && t[j].socket == t[i].socket;
                        if (same_socket)
                                new_socket = false;
                        if (same_socket && t[j].have_core && t[j].core == t[i].core)
                                new_core = false;
                }
                *sockets += new_socket;
                *cores += new_core;
                if (t[i].have_siblings)
                        *threads = MAX(*threads, (int) cpulist_count(&t[i].siblings));
        }
}

static void add_smt(const char *root, cJSON *topo) {
        cJSON *smt = cJSON_AddObjectToObject(topo, "smt");
        uint64_t active;
        char control[32];
        int ra = host_read_u64(root, &active, CPU_DIR "/smt/active");
        int rc = host_read_line(root, control, sizeof control, CPU_DIR "/smt/control");
        if (ra >= 0)
                cJSON_AddBoolToObject(smt, "active", active != 0);
        else
                add_string_or_reason(smt, "active", NULL, "no /sys/devices/system/cpu/smt/active");
        add_string_or_reason(smt, "control", rc >= 0 ? control : NULL, "no /sys/devices/system/cpu/smt/control");
}

static void add_numa(const char *root, const struct numa *numa, cJSON *topo) {
        if (!numa->have) {
                add_string_or_reason(topo, "numa_nodes", NULL, numa->reason);
                return;
        }
        cJSON *nodes = cJSON_AddArrayToObject(topo, "numa_nodes");
        for (int node = cpulist_next(&numa->online, -1); node >= 0; node = cpulist_next(&numa->online, node)) {
                struct cpulist cpus;
                char text[HOST_CPUS_TEXT_MAX];
                int r = host_read_cpulist(root, &cpus, "/sys/devices/system/node/node%d/cpulist", node);
                if (r >= 0)
                        r = cpulist_format(&cpus, text, sizeof text);
                cJSON *o = cJSON_CreateObject();
                cJSON_AddItemToArray(nodes, o);
                cJSON_AddNumberToObject(o, "node", node);
                add_string_or_reason(o, "cpus", r >= 0 ? text : NULL, "cannot read the node's cpulist");
        }
}

static void add_topology(const char *root, const struct cpu_topo *t, size_t n, const struct numa *numa,
                         cJSON *info) {
        cJSON *topo = cJSON_AddObjectToObject(info, "topology");
        int sockets, cores, threads;
        count_topology(t, n, &sockets, &cores, &threads);
        const char *why = "no CPU has readable topology in sysfs";
        add_number_or_reason(topo, "sockets", sockets > 0, sockets, why);
        add_number_or_reason(topo, "cores", cores > 0, cores, why);
        add_number_or_reason(topo, "threads_per_core", threads > 0, threads, why);
        add_smt(root, topo);
        add_numa(root, numa, topo);
}

/* ---- per CPU ---- */

static void add_cpu(cJSON *cpus, const struct cpu_topo *t) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(cpus, o);
        char siblings[HOST_CPUS_TEXT_MAX];
        bool have_siblings = t->have_siblings && cpulist_format(&t->siblings, siblings, sizeof siblings) >= 0;
        const struct host_cpufreq *f = &t->freq;
        const char *why = f->reason[0] ? f->reason : "not reported";
        cJSON_AddNumberToObject(o, "cpu", t->cpu);
        json_add_number_or_null(o, "socket", t->have_socket, (double) t->socket);
        json_add_number_or_null(o, "core", t->have_core, (double) t->core);
        json_add_number_or_null(o, "node", t->node >= 0, t->node);
        json_add_string_or_null(o, "thread_siblings", have_siblings ? siblings : NULL);
        json_add_string_or_null(o, "governor", f->governor[0] ? f->governor : NULL);
        json_add_string_or_null(o, "driver", f->driver[0] ? f->driver : NULL);
        json_add_number_or_null(o, "freq_mhz", f->have_cur, f->cur_mhz);
        json_add_number_or_null(o, "min_mhz", f->have_min, f->min_mhz);
        json_add_number_or_null(o, "max_mhz", f->have_max, f->max_mhz);
        if (f->reason[0])
                cJSON_AddStringToObject(o, "cpufreq_reason", why);
}

static int add_cpufreq(const char *root, const struct cpu_topo *t, size_t n, cJSON *info) {
        cJSON *o = cJSON_AddObjectToObject(info, "cpufreq");
        struct cpulist exposed = { 0 };
        for (size_t i = 0; i < n; i++)
                if (t[i].freq.governor[0] || t[i].freq.have_cur)
                        cpulist_set(&exposed, t[i].cpu);
        char text[HOST_CPUS_TEXT_MAX];
        int r = cpulist_format(&exposed, text, sizeof text);
        if (r < 0)
                return r;
        struct host_boost boost;
        if ((r = host_boost_read(root, &boost)) < 0)
                return r;
        json_add_string_or_null(o, "exposed_cpus", text);
        if (boost.have)
                cJSON_AddBoolToObject(o, "boost", boost.enabled);
        else
                add_string_or_reason(o, "boost", NULL, boost.reason);
        json_add_string_or_null(o, "boost_source", boost.have ? boost.source : NULL);
        return 0;
}

/* ---- the rest of the host ---- */

static void add_thp(const char *root, cJSON *info) {
        cJSON *o = cJSON_AddObjectToObject(info, "thp");
        static const char *const files[] = { "enabled", "defrag" };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char line[256], value[32], reason[HOST_REASON_MAX];
                int r = host_read_line(root, line, sizeof line, "/sys/kernel/mm/transparent_hugepage/%s", files[i]);
                if (r >= 0)
                        r = host_parse_bracketed(line, value, sizeof value);
                snprintf(reason, sizeof reason, "cannot read /sys/kernel/mm/transparent_hugepage/%s: %s", files[i],
                         r < 0 ? strerror(-r) : "");
                add_string_or_reason(o, files[i], r >= 0 ? value : NULL, reason);
        }
}

static void add_kernel(const char *root, cJSON *info) {
        cJSON *o = cJSON_AddObjectToObject(info, "kernel");
        /* procfs rather than uname() so a fixture tree can stand in for the host */
        char release[256], version[512];
        int rr = host_read_line(root, release, sizeof release, "/proc/sys/kernel/osrelease");
        int rv = host_read_line(root, version, sizeof version, "/proc/sys/kernel/version");
        struct utsname u;
        add_string_or_reason(o, "release", rr >= 0 ? release : NULL, "cannot read /proc/sys/kernel/osrelease");
        add_string_or_reason(o, "version", rv >= 0 ? version : NULL, "cannot read /proc/sys/kernel/version");
        add_string_or_reason(o, "machine", uname(&u) >= 0 ? u.machine : NULL, "uname() failed");
}

static void add_memory(const struct host_meminfo *m, bool have, cJSON *info) {
        cJSON *o = cJSON_AddObjectToObject(info, "memory");
        const char *why = "cannot read /proc/meminfo";
        bool swap = have && m->have_swap;
        add_number_or_reason(o, "total_bytes", have && m->have_total, (double) m->total_bytes, why);
        add_number_or_reason(o, "swap_total_bytes", swap, (double) m->swap_total_bytes, why);
        add_number_or_reason(o, "swap_used_bytes", swap, (double) (m->swap_total_bytes - m->swap_free_bytes), why);
}

static void add_java(const struct host_info_options *opts, cJSON *info) {
        if (opts && opts->skip_java) {
                add_string_or_reason(info, "java", NULL, "not probed");
                return;
        }
        struct host_java j;
        int r = host_java_get(&j);
        if (r == -ENOENT && !j.path[0]) {
                add_string_or_reason(info, "java", NULL, "no java on PATH");
                return;
        }
        if (r < 0 && !j.path[0]) {
                char reason[HOST_REASON_MAX];
                snprintf(reason, sizeof reason, "cannot look for java: %s", strerror(-r));
                add_string_or_reason(info, "java", NULL, reason);
                return;
        }
        cJSON *o = cJSON_AddObjectToObject(info, "java");
        char reason[HOST_REASON_MAX];
        snprintf(reason, sizeof reason, "`java -version` failed: %s",
                 r == -EBADMSG ? "no version in its output" : strerror(-r));
        json_add_string_or_null(o, "path", j.path);
        add_string_or_reason(o, "version", r >= 0 ? j.version : NULL, reason);
        json_add_string_or_null(o, "description", r >= 0 ? j.description : NULL);
}

/* Governor, unknown cpufreq and swap warnings from this one reading. Frequency spread is left
 * to runs: an idle CPU's current frequency says little. */
static int add_warnings(const struct cpu_topo *t, size_t n, const struct host_meminfo *m, bool have_mem,
                        cJSON *info) {
        cJSON *w = cJSON_AddArrayToObject(info, "warnings");
        _cleanup_free_ struct host_cpu_freq *ev = calloc(n, sizeof *ev);
        if (!ev)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                ev[i].cpu = t[i].cpu;
                memcpy(ev[i].governor, t[i].freq.governor, sizeof ev[i].governor);
                memcpy(ev[i].reason, t[i].freq.reason, sizeof ev[i].reason);
                if (t[i].freq.have_cur) {
                        ev[i].samples = 1;
                        ev[i].mean_mhz = ev[i].min_mhz = ev[i].max_mhz = t[i].freq.cur_mhz;
                }
        }
        int r = host_warn_governor(ev, n, w);
        if (r >= 0)
                r = host_warn_cpufreq_unknown(ev, n, w);
        if (r >= 0 && have_mem)
                r = host_warn_swap(m, w);
        return r < 0 ? r : 0;
}

int host_info_json(const char *root, const struct host_info_options *opts, cJSON **ret) {
        struct cpulist online;
        int r = host_read_cpulist(root, &online, CPU_DIR "/online");
        if (r < 0)
                return r; /* without the CPU list there is nothing sensible to say */
        size_t n = cpulist_count(&online);
        _cleanup_free_ struct cpu_topo *topo = calloc(MAX(n, (size_t) 1), sizeof *topo);
        if (!topo)
                return -ENOMEM;
        struct numa numa = { 0 };
        if ((r = read_numa(root, &numa)) < 0)
                return r;
        size_t i = 0;
        for (int cpu = cpulist_next(&online, -1); cpu >= 0; cpu = cpulist_next(&online, cpu), i++)
                if ((r = read_cpu(root, &numa, (unsigned) cpu, &topo[i])) < 0)
                        return r;

        char text[HOST_CPUS_TEXT_MAX];
        if ((r = cpulist_format(&online, text, sizeof text)) < 0)
                return r;
        _cleanup_json_ cJSON *info = cJSON_CreateObject();
        json_add_string_or_null(info, "cpus_online", text);
        cJSON_AddNumberToObject(info, "cpu_count", (double) n);
        add_topology(root, topo, n, &numa, info);
        cJSON *cpus = cJSON_AddArrayToObject(info, "cpus");
        for (i = 0; i < n; i++)
                add_cpu(cpus, &topo[i]);

        struct host_meminfo mem = { 0 };
        bool have_mem = host_read_meminfo(root, &mem) >= 0;
        char model[256];
        bool have_model = host_read_cpu_model(root, model, sizeof model) >= 0;
        if ((r = add_cpufreq(root, topo, n, info)) < 0)
                return r;
        add_thp(root, info);
        add_kernel(root, info);
        add_string_or_reason(info, "cpu_model", have_model ? model : NULL, "no \"model name\" in /proc/cpuinfo");
        add_memory(&mem, have_mem, info);
        add_java(opts, info);
        if ((r = add_warnings(topo, n, &mem, have_mem, info)) < 0)
                return r;
        *ret = TAKE_PTR(info);
        return 0;
}
