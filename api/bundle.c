/* bundle.c: GET /v1/experiments/{id}/bundle: a finished experiment as one self-describing
 * archive (basic/bundle-format.h): "bundle.json" (format, origin, experiment), the experiment as
 * GET serves it, its report, findings and host facts, its rows in the store (storage/bundle-rows.h:
 * what an import stores) and the files its runs' directories keep (logs, timelines, GC logs,
 * summaries). Streamed: the pool connection is held only while an entry of rows is filled, files
 * are read a chunk at a time, and memory stays within an entry of rows (about 1 MiB). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/handlers.h"
#include "basic/bundle-format.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "storage/bundle-rows.h"
#include "storage/experiments.h"

#define BUNDLE_STREAM_CHUNK (256 * 1024)
#define ROWS_ENTRY_BYTES (1024 * 1024)

enum phase { PHASE_TABLES, PHASE_FILES, PHASE_END, PHASE_DONE };

struct bundle_stream {
        struct api_server *server;
        struct storage *storage;
        char id[ID_LEN + 1];
        const char *state_dir;          /* the daemon's: lives longer than the stream */
        int runs_dir_fd;                /* state_dir/runs, or -1 */
        struct sha256_ctx whole;
        uint64_t entries;
        struct bundle_buf out;          /* bytes ready to send, from out_pos */
        size_t out_pos;
        enum phase phase;
        size_t table;
        int64_t offset;
        unsigned chunk;
        cJSON *runs;                    /* the runs' ids, for their files */
        size_t run;
        char (*files)[API_RUN_FILE_NAME_MAX + 1];
        size_t n_files, file;
        int dir_fd, fd;                 /* the run's directory, the file being sent */
        uint64_t file_left;
        struct sha256_ctx file_hash;
};

static void bundle_stream_free(void *cls) {
        struct bundle_stream *s = cls;
        if (!s)
                return;
        bundle_buf_done(&s->out);
        cJSON_Delete(s->runs);
        free(s->files);
        if (s->fd >= 0)
                close(s->fd);
        if (s->dir_fd >= 0)
                close(s->dir_fd);
        if (s->runs_dir_fd >= 0)
                close(s->runs_dir_fd);
        if (s->server)
                api_stream_end(s->server);
        free(s);
}

/* The bytes the end marker's hash covers (all but the entries' own) pass through here. */
static int emit(struct bundle_stream *s, const void *p, size_t n) {
        sha256_update(&s->whole, n, p);
        return bundle_buf_put(&s->out, p, n);
}

static int emit_head(struct bundle_stream *s, const char *name, uint64_t len) {
        uint8_t head[BUNDLE_ENTRY_HEAD_MAX];
        int n = bundle_put_entry_head(head, name, len);
        if (n < 0)
                return n;
        s->entries++;
        return emit(s, head, (size_t) n);
}

static int emit_hash(struct bundle_stream *s, struct sha256_ctx *ctx) {
        uint8_t digest[BUNDLE_HASH_LEN];
        sha256_digest(ctx, sizeof digest, digest);
        return emit(s, digest, sizeof digest);
}

static int emit_entry(struct bundle_stream *s, const char *name, const void *data, size_t len) {
        struct sha256_ctx ctx;
        sha256_init(&ctx);
        sha256_update(&ctx, len, data);
        int r = emit_head(s, name, len);
        if (r >= 0)
                r = bundle_buf_put(&s->out, data, len);
        return r < 0 ? r : emit_hash(s, &ctx);
}

static int emit_json(struct bundle_stream *s, const char *name, const cJSON *json) {
        _cleanup_free_ char *text = api_json_text(json, NULL);
        if (!text)
                return -ENOMEM;
        return emit_entry(s, name, text, strlen(text));
}

/* The next entry of rows, or the next table; the pool connection only for this. */
static int produce_rows(struct bundle_stream *s) {
        if (s->table >= bundle_rows_tables()) {
                s->phase = PHASE_FILES;
                return 0;
        }
        struct db_lease lease _cleanup_lease_ = { 0 };
        int r = db_lease_take(s->storage, &lease);
        if (r < 0)
                return r;
        _cleanup_(bundle_buf_done) struct bundle_buf rows = { 0 };
        size_t n;
        r = bundle_rows_chunk(lease.conn, s->table, s->id, &s->offset, ROWS_ENTRY_BYTES, &rows, &n);
        db_lease_release(&lease);
        if (r < 0)
                return r;
        if (n == 0) {
                s->table++;
                s->offset = 0;
                s->chunk = 0;
                return 0;
        }
        char name[BUNDLE_NAME_MAX + 1];
        snprintf(name, sizeof name, "tables/%s/%06u", bundle_rows_table_name(s->table), s->chunk++);
        return emit_entry(s, name, rows.data, rows.len);
}

bool api_run_file_name_valid(const char *n, size_t len) {
        return len > 0 && len <= API_RUN_FILE_NAME_MAX && n[0] != '.' &&
               strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(a, b);
}

/* Opens the next run's directory (beneath runs/, following no symlink: it belongs to the run
 * user) and lists its files in name order; a run without one sends nothing. */
static int next_run_dir(struct bundle_stream *s) {
        if (s->dir_fd >= 0)
                close(s->dir_fd);
        s->dir_fd = -1;
        s->n_files = s->file = 0;
        const cJSON *run = cJSON_GetArrayItem(s->runs, (int) s->run);
        if (!run) {
                s->phase = PHASE_END;
                return 0;
        }
        s->run++;
        const char *id = cJSON_GetStringValue(run);
        if (s->runs_dir_fd < 0 || !id || !id_valid(id))
                return 0;
        s->dir_fd = openat(s->runs_dir_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (s->dir_fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        int dup_fd = dup(s->dir_fd);
        DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
        if (!d) {
                if (dup_fd >= 0)
                        close(dup_fd);
                return -errno;
        }
        struct dirent *de;
        while ((de = readdir(d)) && s->n_files < API_RUN_FILES_MAX) {
                if (!api_run_file_name_valid(de->d_name, strlen(de->d_name)))
                        continue;
                /* api_run_file_name_valid() bounded its length */
                memcpy(s->files[s->n_files++], de->d_name, strlen(de->d_name) + 1);
        }
        closedir(d);
        qsort(s->files, s->n_files, sizeof *s->files, name_cmp);
        return 0;
}

/* Starts the next regular file of the run's directory: its entry head, then read_file(). */
static int produce_file(struct bundle_stream *s) {
        if (s->file >= s->n_files)
                return next_run_dir(s);
        const char *name = s->files[s->file++];
        int fd = openat(s->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        struct stat st;
        if (fd < 0)
                return 0;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return 0;
        }
        const cJSON *run = cJSON_GetArrayItem(s->runs, (int) s->run - 1);
        char entry[BUNDLE_NAME_MAX + 1];
        snprintf(entry, sizeof entry, "runs/%s/%s", cJSON_GetStringValue(run), name);
        int r = emit_head(s, entry, (uint64_t) st.st_size);
        if (r < 0) {
                close(fd);
                return r;
        }
        s->fd = fd;
        s->file_left = (uint64_t) st.st_size;
        sha256_init(&s->file_hash);
        return 0;
}

/* A file's bytes straight into the response buffer; its hash once they are all sent. */
static ssize_t read_file(struct bundle_stream *s, char *buf, size_t max) {
        if (s->file_left == 0) {
                close(s->fd);
                s->fd = -1;
                return emit_hash(s, &s->file_hash) < 0 ? -1 : 0;
        }
        ssize_t n = read(s->fd, buf, (size_t) MIN((uint64_t) max, s->file_left));
        if (n <= 0) {
                log_error("bundle of %s: a run's file changed while it was sent", s->id);
                return -1;
        }
        sha256_update(&s->file_hash, (size_t) n, (const uint8_t *) buf);
        s->file_left -= (uint64_t) n;
        return n;
}

static int produce(struct bundle_stream *s) {
        switch (s->phase) {
        case PHASE_TABLES:
                return produce_rows(s);
        case PHASE_FILES:
                return produce_file(s);
        case PHASE_END: {
                uint8_t end[BUNDLE_END_LEN];
                size_t n = bundle_put_end(end, s->entries, &s->whole);
                s->phase = PHASE_DONE;
                return bundle_buf_put(&s->out, end, n);
        }
        default:
                return 0;
        }
}

static ssize_t bundle_stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
        struct bundle_stream *s = cls;
        for (;;) {
                if (s->out_pos < s->out.len) {
                        size_t n = MIN(max, s->out.len - s->out_pos);
                        memcpy(buf, s->out.data + s->out_pos, n);
                        s->out_pos += n;
                        if (s->out_pos == s->out.len)
                                s->out.len = s->out_pos = 0;
                        return (ssize_t) n;
                }
                if (s->fd >= 0) {
                        ssize_t n = read_file(s, buf, max);
                        if (n < 0)
                                return MHD_CONTENT_READER_END_WITH_ERROR;
                        if (n > 0)
                                return n;
                        continue;
                }
                if (s->phase == PHASE_DONE)
                        return MHD_CONTENT_READER_END_OF_STREAM;
                int r = produce(s);
                if (r < 0) {
                        log_error_errno(r, "bundle of experiment %s", s->id);
                        return MHD_CONTENT_READER_END_WITH_ERROR;
                }
        }
}

void api_host_name(char *buf, size_t size) {
        if (gethostname(buf, size - 1) < 0 || !buf[0])
                snprintf(buf, size, "unknown");
        buf[size - 1] = '\0';
}

/* The entries that describe the experiment for a reader without slicelab, made with the
 * request's lease: bundle.json, experiment.json, report.json, findings.json, host.json. */
static int emit_documents(struct bundle_stream *s, struct db_conn *c, cJSON *experiment) {
        char host[256] = "";
        api_host_name(host, sizeof host);
        _cleanup_json_ cJSON *meta = cJSON_CreateObject();
        cJSON_AddStringToObject(meta, "format", "slicelab-bundle");
        cJSON_AddNumberToObject(meta, "version", BUNDLE_VERSION);
        cJSON_AddStringToObject(meta, "slicelab", SLICELAB_VERSION);
        cJSON *origin = cJSON_AddObjectToObject(meta, "origin");
        /* An experiment imported here was exported by another daemon: it keeps its first origin. */
        const cJSON *was = cJSON_GetObjectItemCaseSensitive(experiment, "origin");
        cJSON_AddStringToObject(origin, "host", was ? cJSON_GetStringValue(cJSON_GetObjectItem(was, "host")) : host);
        cJSON_AddStringToObject(origin, "id", was ? cJSON_GetStringValue(cJSON_GetObjectItem(was, "id")) : s->id);
        cJSON *e = cJSON_AddObjectToObject(meta, "experiment");
        cJSON_AddStringToObject(e, "id", s->id);
        cJSON_AddItemToObject(e, "name", cJSON_Duplicate(cJSON_GetObjectItem(experiment, "name"), true));
        cJSON_AddItemToObject(e, "status", cJSON_Duplicate(cJSON_GetObjectItem(experiment, "status"), true));
        int r = emit_json(s, "bundle.json", meta);
        if (r >= 0)
                r = emit_json(s, "experiment.json", experiment);
        cJSON *doc = NULL;
        bool finished;
        if (r >= 0 && (r = api_report_json(c, s->state_dir, s->id, NULL, &doc, &finished)) >= 0) {
                r = emit_json(s, "report.json", doc);
                cJSON_Delete(doc);
        }
        char base[API_CELL_NAME_MAX], status[EXPERIMENT_STATUS_SIZE];
        if (r >= 0 && (r = api_findings_json(c, s->state_dir, s->id, NULL, &doc, base, status)) >= 0) {
                r = emit_json(s, "findings.json", doc);
                cJSON_Delete(doc);
        }
        if (r >= 0 && (r = experiments_host_snapshot_json(c, s->id, &doc)) >= 0 && doc) {
                r = emit_json(s, "host.json", doc);
                cJSON_Delete(doc);
        }
        return r;
}

static int run_ids(struct db_conn *c, const char *id, cJSON **ret) {
        cJSON *page = NULL;
        int64_t next;
        int r = experiments_runs_json(c, id, 0, INT32_MAX, &page, &next);
        if (r < 0)
                return r;
        _cleanup_json_ cJSON *runs = page;
        cJSON *ids = cJSON_CreateArray();
        const cJSON *run;
        cJSON_ArrayForEach(run, runs)
                cJSON_AddItemToArray(ids, cJSON_CreateString(cJSON_GetStringValue(cJSON_GetObjectItem(run, "id"))));
        *ret = ids;
        return 0;
}

static enum MHD_Result reply_bundle(struct api_request *req, struct bundle_stream *s, const char *etag) {
        struct MHD_Response *resp =
                MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BUNDLE_STREAM_CHUNK, bundle_stream_read, s, bundle_stream_free);
        if (!resp) {
                bundle_stream_free(s);
                return MHD_NO;
        }
        char disposition[64];
        snprintf(disposition, sizeof disposition, "attachment; filename=\"%s.slbundle\"", s->id);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, BUNDLE_MEDIA_TYPE);
        MHD_add_response_header(resp, "Content-Disposition", disposition);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "max-age=86400, immutable");
        enum MHD_Result ret = MHD_queue_response(req->connection, 200, resp);
        MHD_destroy_response(resp);
        return ret;
}

enum MHD_Result api_get_bundle(struct api_request *req) {
        const char *id = req->path_params[0];
        cJSON *raw = NULL;
        bool finished;
        int r = api_experiment_json(req->lease.conn, id, &raw, &finished);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        _cleanup_json_ cJSON *experiment = raw;
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(experiment, "status"));
        if (!finished)
                return api_reply_errorf(req, 409, "not_finished", NULL,
                                        "experiment %s is %s: only a finished experiment has a bundle", id, status ? status : "?");
        /* A finished experiment's rows no longer change: its id and end name the bundle. */
        char etag[96];
        const char *finished_at = cJSON_GetStringValue(cJSON_GetObjectItem(experiment, "finished_at"));
        snprintf(etag, sizeof etag, "\"bundle-%d-%s-%s\"", BUNDLE_VERSION, id, finished_at ? finished_at : "");
        if (api_if_none_match(req, etag))
                return api_reply_not_modified(req, etag);
        unsigned max;
        if (!api_stream_begin(req->server, &max))
                return api_reply_errorf(req, 503, "too_many_streams", NULL,
                                        "%u streams are open, the most this daemon serves at once; retry later", max);
        struct bundle_stream *s = calloc(1, sizeof *s);
        if (!s) {
                api_stream_end(req->server);
                return api_reply_errno(req, -ENOMEM, "bundle");
        }
        s->server = req->server;
        s->storage = req->config->storage;
        s->state_dir = req->config->state_dir;
        s->fd = s->dir_fd = -1;
        snprintf(s->id, sizeof s->id, "%s", id);
        char path[4096];
        snprintf(path, sizeof path, "%s/runs", req->config->state_dir);
        s->runs_dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        s->files = calloc(API_RUN_FILES_MAX, sizeof *s->files);
        sha256_init(&s->whole);
        uint8_t header[BUNDLE_HEADER_LEN];
        r = s->files ? emit(s, header, bundle_put_header(header)) : -ENOMEM;
        if (r >= 0)
                r = emit_documents(s, req->lease.conn, experiment);
        if (r >= 0)
                r = run_ids(req->lease.conn, id, &s->runs);
        if (r < 0) {
                bundle_stream_free(s);
                char what[64];
                snprintf(what, sizeof what, "experiment %s", id);
                return api_reply_errno(req, r, what);
        }
        db_lease_release(&req->lease);
        return reply_bundle(req, s, etag);
}
