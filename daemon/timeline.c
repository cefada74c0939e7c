/* timeline.c: loading a timeline and computing its latency figures. */
#include "daemon/timeline.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/latency.h"
#include "basic/macro.h"
#include "basic/radix-sort.h"
#include "basic/time-util.h"

/* Exactly size bytes, or -EBADMSG: the file is shorter than its header says. */
static int read_all(int fd, void *buf, size_t size) {
        ssize_t n = read_full(fd, buf, size, -1);
        if (n < 0)
                return (int) n;
        return (size_t) n == size ? 0 : -EBADMSG;
}

static bool sorted_by_scheduled(const struct timeline_record *r, size_t n) {
        for (size_t i = 1; i < n; i++)
                if (r[i].scheduled_ns < r[i - 1].scheduled_ns)
                        return false;
        return true;
}

/* slicelab-inject writes in schedule order (nothing to do); other tools in completion order. */
static int sort_by_scheduled(struct timeline_record *records, size_t n) {
        if (sorted_by_scheduled(records, n))
                return 0;
        return radix_sort_by_i64(records, n, sizeof *records, offsetof(struct timeline_record, scheduled_ns));
}

int timeline_load(const char *path, struct timeline **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        return timeline_load_fd(fd, ret);
}

int timeline_load_fd(int fd, struct timeline **ret) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || (size_t) st.st_size < sizeof(struct timeline_header))
                return -EBADMSG;
        size_t body = (size_t) st.st_size - sizeof(struct timeline_header);
        if (body % sizeof(struct timeline_record) != 0)
                return -EBADMSG;
        size_t n = body / sizeof(struct timeline_record);
        if (n > TIMELINE_MAX_RECORDS)
                return -EFBIG;
        _cleanup_free_ struct timeline *t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        int r = read_all(fd, &t->header, sizeof t->header);
        if (r < 0)
                return r;
        if (memcmp(t->header.magic, TIMELINE_MAGIC, 4) != 0 || t->header.version != TIMELINE_VERSION ||
            t->header.record_size != sizeof(struct timeline_record))
                return -EBADMSG;
        t->records = malloc(MAX(n, (size_t) 1) * sizeof *t->records);
        if (!t->records)
                return -ENOMEM;
        r = read_all(fd, t->records, n * sizeof *t->records);
        if (r < 0) {
                free(t->records);
                return r;
        }
        t->n = n;
        /* The store and the API serve it in schedule order. */
        r = sort_by_scheduled(t->records, n);
        if (r < 0) {
                free(t->records);
                return r;
        }
        *ret = TAKE_PTR(t);
        return 0;
}

void timeline_free(struct timeline *t) {
        if (!t)
                return;
        free(t->records);
        free(t);
}

/* One latency's percentiles in us (ns precision), each null when no request counts. */
static cJSON *percentiles_us(const struct latency_stats *ls, enum latency_kind k) {
        cJSON *o = cJSON_CreateObject();
        for (int p = 0; o && p < _PCT_MAX; p++) {
                if (ls->n[k] == 0)
                        cJSON_AddNullToObject(o, percentile_names[p]);
                else
                        cJSON_AddNumberToObject(o, percentile_names[p], (double) ls->pct[k][p] / 1000.0);
        }
        return o;
}

static int add_latency(const struct timeline *t, cJSON *metrics) {
        const struct timeline_source src = { .records = t->records, .count = t->n };
        struct latency_stats ls;
        int r = latency_stats_compute(&src, &ls);
        if (r < 0)
                return r;
        cJSON *lat = cJSON_AddObjectToObject(metrics, "latency_us");
        if (!lat)
                return -ENOMEM;
        for (int k = 0; k < _LATENCY_MAX; k++) {
                cJSON *o = percentiles_us(&ls, (enum latency_kind) k);
                if (!o)
                        return -ENOMEM;
                cJSON_AddItemToObject(lat, latency_kind_names[k], o);
        }
        return 0;
}

int timeline_metrics(const struct timeline *t, int64_t measure_ns, cJSON *metrics) {
        uint64_t by_kind[_TIMELINE_ERR_MAX + 1] = { 0 }, http_errors = 0;
        size_t completed = 0;
        for (size_t i = 0; i < t->n; i++) {
                const struct timeline_record *rec = &t->records[i];
                if (rec->flags & TIMELINE_WARMUP)
                        continue;
                if (rec->status == 0) {
                        by_kind[MIN((unsigned) rec->error, (unsigned) _TIMELINE_ERR_MAX)]++;
                        continue;
                }
                if (rec->status >= 400)
                        http_errors++;
                completed++;
        }
        uint64_t transport = 0;
        cJSON *kinds = cJSON_CreateObject();
        for (unsigned k = 1; k <= _TIMELINE_ERR_MAX; k++) {
                transport += by_kind[k];
                if (by_kind[k])
                        cJSON_AddNumberToObject(kinds, timeline_error_name(k), (double) by_kind[k]);
        }
        if (http_errors)
                cJSON_AddNumberToObject(kinds, "http_status", (double) http_errors);
        cJSON_AddNumberToObject(metrics, "throughput_rps", measure_ns > 0 ? (double) completed / seconds_from_ns(measure_ns) : 0);
        cJSON_AddNumberToObject(metrics, "requests", (double) (completed + transport));
        cJSON_AddNumberToObject(metrics, "errors", (double) (transport + http_errors));
        cJSON_AddItemToObject(metrics, "errors_by_kind", kinds);
        return add_latency(t, metrics);
}

void timeline_answered(const struct timeline *t, size_t *ret_measured, size_t *ret_answered) {
        size_t measured = 0, answered = 0;
        for (size_t i = 0; i < t->n; i++) {
                if (t->records[i].flags & TIMELINE_WARMUP)
                        continue;
                measured++;
                answered += t->records[i].status != 0;
        }
        *ret_measured = measured;
        *ret_answered = answered;
}
