/* collect-hosts.c: the load hosts' timelines fetched, merged and summarised (see
 * collect-hosts.h). */
#include "daemon/collect-hosts.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/error.h"
#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "basic/timeline-merge.h"
#include "peer/peer-client.h"

static void host_file(const struct collect_hosts *h, size_t i, char *buf, size_t size) {
        snprintf(buf, size, "load-host-%zu%s.bin", i, h->suffix ? h->suffix : "");
}

/* dir/<name><suffix><ext>: the run's file, or a capacity step's. */
static void run_file_path(const struct collect_hosts *h, const char *dir, const char *name, const char *ext, char *buf,
                          size_t size) {
        snprintf(buf, size, "%s/%s%s%s", dir, name, h->suffix ? h->suffix : "", ext);
}

int collect_hosts_fetch(const struct collect_hosts *h, const char *dir, bool must, bool *fetched, char *why,
                        size_t why_size) {
        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0) {
                snprintf(why, why_size, "cannot open the run directory: %s", strerror(errno));
                return must ? negative_errno() : 0;
        }
        for (size_t i = 0; i < h->n; i++) {
                const struct collect_host *c = &h->hosts[i];
                char name[96];
                struct error err = { 0 };
                host_file(h, i, name, sizeof name);
                fetched[i] = false;
                if (!c->load_id || !c->finished)
                        continue;
                if (peer_load_fetch_timeline(h->peers, c->host, c->load_id, dir_fd, name, &err) < 0) {
                        if (!must)
                                continue;
                        snprintf(why, why_size, "load host %s (load.hosts[%zu]): cannot fetch its timeline: %s", c->host, i,
                                 err.message);
                        return -ENOTCONN;
                }
                fetched[i] = true;
        }
        return 0;
}

static int open_host_timeline(const struct collect_hosts *h, const char *dir, size_t i, int *ret) {
        char name[96], path[PATH_MAX + 96];
        host_file(h, i, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct timeline_header th;
        if (fd < 0)
                return negative_errno();
        if (read_full(fd, &th, sizeof th, 0) != (ssize_t) sizeof th || memcmp(th.magic, TIMELINE_MAGIC, 4) != 0 ||
            th.version != TIMELINE_VERSION || th.record_size != sizeof(struct timeline_record))
                return -EBADMSG;
        *ret = TAKE_FD(fd);
        return 0;
}

/* The fetched timelines, each shifted by its clock's offset and marked with its host, into
 * timeline<suffix>.bin, whose header is the instant the schedules started on this daemon's clock. */
static int merge_timelines(const struct collect_hosts *h, const char *dir, const char *run_id, const bool *fetched,
                           char *why, size_t why_size) {
        _cleanup_free_ struct timeline_merge_input *in = calloc(h->n, sizeof *in);
        unsigned n = 0;
        int r = 0;
        if (!in)
                return -ENOMEM;
        for (size_t i = 0; i < h->n && r >= 0; i++) {
                if (!fetched[i])
                        continue;
                r = open_host_timeline(h, dir, i, &in[n].fd);
                if (r < 0) {
                        snprintf(why, why_size, "load host %s (load.hosts[%zu]) sent no slicelab timeline: %s", h->hosts[i].host,
                                 i, r == -EBADMSG ? "bad header" : strerror(-r));
                        r = -ENOTCONN;
                        break;
                }
                in[n].offset = sizeof(struct timeline_header);
                in[n].shift_ns = h->hosts[i].offset_ns;
                in[n++].flags = timeline_host_flags((unsigned) i);
        }
        char tmp[PATH_MAX + 64], path[PATH_MAX + 64];
        run_file_path(h, dir, "timeline", ".bin.merging", tmp, sizeof tmp);
        run_file_path(h, dir, "timeline", ".bin", path, sizeof path);
        int out = r >= 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640) : -1;
        if (r >= 0 && out < 0)
                r = negative_errno();
        struct timeline_header th = timeline_header_make(h->start_ns, h->start_ns + (int64_t) h->warmup_s * NSEC_PER_SEC);
        uint64_t records = 0;
        if (r >= 0)
                r = write_full(out, &th, sizeof th);
        if (r >= 0)
                r = timeline_merge(out, in, n, &records);
        if (out >= 0 && close(out) < 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlink(tmp);
        for (unsigned i = 0; i < n; i++)
                close(in[i].fd);
        if (r >= 0)
                log_full(LOG_INFO, 0, NULL, run_id, "run %s: merged %llu records of %u load hosts", run_id,
                         (unsigned long long) records, n);
        return r;
}

/* The merged run's summary<suffix>.json, as collection reads an injector's: saturated when a host was,
 * late requests by cause summed over the hosts (stall_max_ms the largest). */
static int write_summary(const struct collect_hosts *h, const char *dir) {
        static const char *const sums[] = { "requests", "server", "stalled", "injector", "stalls", "stalls_ms" };
        _cleanup_json_ cJSON *s = cJSON_CreateObject();
        cJSON *late = cJSON_CreateObject();
        bool saturated = false, all_late = true;
        double v[ELEMENTSOF(sums)] = { 0 }, threshold = 0, stall_max = 0;
        for (size_t i = 0; i < h->n; i++) {
                const cJSON *sum = h->hosts[i].summary;
                saturated |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "saturated"));
                const cJSON *l = cJSON_GetObjectItemCaseSensitive(sum, "late");
                const cJSON *t = cJSON_GetObjectItemCaseSensitive(l, "threshold_us");
                const cJSON *m = cJSON_GetObjectItemCaseSensitive(l, "stall_max_ms");
                all_late &= cJSON_IsNumber(t) && cJSON_IsNumber(m);
                for (size_t k = 0; all_late && k < ELEMENTSOF(sums); k++) {
                        const cJSON *x = cJSON_GetObjectItemCaseSensitive(l, sums[k]);
                        all_late &= cJSON_IsNumber(x);
                        v[k] += all_late ? x->valuedouble : 0;
                }
                if (all_late) {
                        threshold = t->valuedouble;
                        stall_max = MAX(stall_max, m->valuedouble);
                }
        }
        if (!s || !late || !cJSON_AddBoolToObject(s, "saturated", saturated)) {
                cJSON_Delete(late);
                return -ENOMEM;
        }
        if (all_late) {
                cJSON_AddNumberToObject(late, "threshold_us", threshold);
                for (size_t k = 0; k < ELEMENTSOF(sums); k++)
                        cJSON_AddNumberToObject(late, sums[k], v[k]);
                cJSON_AddNumberToObject(late, "stall_max_ms", stall_max);
                cJSON_AddItemToObject(s, "late", late);
        } else
                cJSON_Delete(late);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(s);
        char path[PATH_MAX + 64];
        run_file_path(h, dir, "summary", ".json", path, sizeof path);
        return text ? write_file_atomic(path, text, strlen(text), 0640) : -ENOMEM;
}

int collect_hosts_run(const struct collect_hosts *h, const char *dir, const char *run_id, char *why, size_t why_size) {
        _cleanup_free_ bool *fetched = calloc(h->n, sizeof *fetched);
        if (!fetched)
                return -ENOMEM;
        int r = collect_hosts_fetch(h, dir, true, fetched, why, why_size);
        if (r < 0)
                return r;
        r = merge_timelines(h, dir, run_id, fetched, why, why_size);
        if (r >= 0)
                r = write_summary(h, dir);
        if (r < 0 && r != -ENOTCONN)
                snprintf(why, why_size, "cannot merge the load hosts' timelines: %s", strerror(-r));
        return r;
}
