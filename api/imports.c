/* imports.c: POST /v1/imports: stores a bundle (GET /v1/experiments/{id}/bundle of any
 * slicelabd) as it is. All of it is hostile input, checked before anything is stored: the framing
 * and hashes (basic/bundle-format.h), bundle.json, every row by the rules of the daemon's own
 * writes (storage/bundle-check.h; the definition by definition/'s parser, as POST
 * /v1/experiments), every file's name, run and size; a refusal is a 400 naming the entry, the
 * field and the rule (a 409 is a clash: an id another experiment holds, an origin imported in
 * other bytes). The rows go in one transaction (storage/bundle-rows.h), the runs' files to a directory of the
 * state dir (the stage) whose run directories move into runs/ inside that transaction, just
 * before its commit, so that the rows never show without their files; a failed commit moves
 * them back, and the stage is removed on any failure. The import holds a flock() on the stage,
 * so that a daemon starting later finishes the imports a crash cut short and never one still
 * going (api_imports_clean_stages()): a stage whose files were moving is rolled back unless its
 * rows were committed. The experiment keeps its id; its origin (host, id) is recorded with the
 * bundle's SHA-256, so a second import of the same bytes stores nothing and answers 200 with the
 * same Location, and other bytes of that origin are a 409. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/handlers.h"
#include "basic/bundle-format.h"
#include "basic/fault.h"
#include "basic/fileio.h"
#include "basic/json-check.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/utf8.h"
#include "definition/definition.h"
#include "storage/bundle-rows.h"
#include "storage/experiments.h"
#include "storage/imports.h"
#include "storage/run-profile.h"
#include "storage/runs.h"

#define ORIGIN_HOST_MAX 255
#define META_DEPTH_MAX 8
#define META_VALUES_MAX 1024
#define STAGE_NAME_LEN 32
#define STAGE_PREFIX "import-"
/* In a stage whose run directories are moving into runs/: the experiment's id, then the runs',
 * a line each (written as PUBLISH_MARKER ".tmp", then renamed). */
#define PUBLISH_MARKER "publishing"
#define PUBLISH_MARKER_MAX ((size_t) 16 << 20)

/* What bundle.json says. */
struct bundle_meta {
        char host[ORIGIN_HOST_MAX + 1];
        char origin_id[ID_LEN + 1];
        char id[ID_LEN + 1];
        char sha256[BUNDLE_HASH_LEN * 2 + 1];
};

static int invalid(struct error *err, const char *what) {
        return error_set(err, 400, "invalid_bundle", "bundle", "entry bundle.json: %s", what);
}

static int read_meta(const uint8_t *buf, size_t len, struct bundle_meta *m, struct error *err) {
        size_t pos = 0;
        struct bundle_entry e;
        if (bundle_next(buf, len, &pos, &e) <= 0 || strcmp(e.name, "bundle.json") != 0)
                return error_set(err, 400, "invalid_bundle", "bundle", "the first entry is not bundle.json");
        /* What the export writes is 3 deep: cJSON is handed only strict JSON, of that shape. */
        struct json_check_result why;
        if (json_check((const char *) e.data, (size_t) e.len, META_DEPTH_MAX, META_VALUES_MAX, NULL, &why) < 0)
                return why.fault == JSON_CHECK_SYNTAX || why.fault == JSON_CHECK_UTF8
                               ? error_set(err, 400, "invalid_bundle", "bundle", "entry bundle.json: not JSON: %s at byte %zu",
                                           why.what, why.at)
                               : invalid(err, "deeper or larger than a bundle.json is");
        _cleanup_json_ cJSON *meta = cJSON_ParseWithLength((const char *) e.data, e.len);
        const cJSON *origin = cJSON_GetObjectItemCaseSensitive(meta, "origin");
        const cJSON *experiment = cJSON_GetObjectItemCaseSensitive(meta, "experiment");
        const char *host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(origin, "host"));
        const char *origin_id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(origin, "id"));
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(experiment, "id"));
        if (!meta)
                return invalid(err, "not JSON");
        if (!host || !host[0] || strlen(host) > ORIGIN_HOST_MAX)
                return invalid(err, "origin.host must be a string of 1 to 255 bytes");
        if (!utf8_valid(host, strlen(host)))
                return invalid(err, "origin.host is not UTF-8");
        for (const char *p = host; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return invalid(err, "origin.host holds a control character");
        if (!origin_id || !id_valid(origin_id))
                return invalid(err, "origin.id is not an experiment id");
        if (!id || !id_valid(id))
                return invalid(err, "experiment.id is not an experiment id");
        snprintf(m->host, sizeof m->host, "%s", host);
        snprintf(m->origin_id, sizeof m->origin_id, "%s", origin_id);
        snprintf(m->id, sizeof m->id, "%s", id);
        /* The whole bundle's hash, from its end marker: what the imports table keeps. */
        const uint8_t *digest = buf + len - BUNDLE_HASH_LEN;
        for (size_t i = 0; i < BUNDLE_HASH_LEN; i++)
                snprintf(m->sha256 + 2 * i, 3, "%02x", digest[i]);
        return 0;
}

/* ---- the runs' files, staged in the state dir until the rows are committed ---------------- */

/* Removes stage/<run>/<file>, stage/<run>, the marker and stage: what stage_file() and
 * publish() make, nothing deeper. */
static void stage_remove(int state_fd, const char *stage) {
        int fd = openat(state_fd, stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        struct dirent *de;
        while (d && (de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                if (strncmp(de->d_name, PUBLISH_MARKER, strlen(PUBLISH_MARKER)) == 0) {
                        unlinkat(fd, de->d_name, 0);
                        continue;
                }
                int run_fd = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                DIR *rd = run_fd >= 0 ? fdopendir(run_fd) : NULL;
                struct dirent *fe;
                while (rd && (fe = readdir(rd)))
                        if (fe->d_name[0] != '.')
                                unlinkat(run_fd, fe->d_name, 0);
                if (rd)
                        closedir(rd);
                else if (run_fd >= 0)
                        close(run_fd);
                unlinkat(fd, de->d_name, AT_REMOVEDIR);
        }
        if (d)
                closedir(d);
        else
                close(fd);
        unlinkat(state_fd, stage, AT_REMOVEDIR);
}

static int write_all(int fd, const uint8_t *p, uint64_t len) {
        while (len > 0) {
                ssize_t n = write(fd, p, (size_t) MIN(len, (uint64_t) (1 << 30)));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? negative_errno() : -EIO;
                p += n;
                len -= (uint64_t) n;
        }
        return 0;
}

/* A stage's name as store() makes it: import-<id>. */
static bool stage_name_valid(const char *name) {
        return strncmp(name, STAGE_PREFIX, strlen(STAGE_PREFIX)) == 0 && strlen(name) == strlen(STAGE_PREFIX) + ID_LEN &&
               id_valid(name + strlen(STAGE_PREFIX));
}

/* A stage's marker, parsed: the experiment's id and its runs' (ids[0] is the experiment's). */
static int marker_read(int stage_fd, char (**ret)[ID_LEN + 1], size_t *ret_n) {
        _cleanup_close_ int fd = openat(stage_fd, PUBLISH_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = read_fd_bounded(fd, PUBLISH_MARKER_MAX, &text, &len);
        if (r < 0)
                return r;
        if (len == 0 || len % (ID_LEN + 1) != 0)
                return -EBADMSG;
        size_t n = len / (ID_LEN + 1);
        _cleanup_free_ char (*ids)[ID_LEN + 1] = calloc(n, sizeof *ids);
        if (!ids)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *line = text + i * (ID_LEN + 1);
                memcpy(ids[i], line, ID_LEN);
                if (line[ID_LEN] != '\n' || !id_valid(ids[i]))
                        return -EBADMSG;
        }
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

/* runs/<run> back to stage/<run>: a run directory an import moved before a commit that did not
 * happen. Never one that is not the stage's: one the stage still has did not move, and one of a
 * run the store knows is another's. */
static int move_back(int state_fd, int stage_fd, const char *stage, const char *run, struct db_conn *c) {
        bool known;
        char from[ID_LEN + 8], to[STAGE_NAME_LEN + ID_LEN + 2];
        if (faccessat(stage_fd, run, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return 0;
        int r = runs_known(c, run, &known);
        if (r < 0 || known)
                return r;
        snprintf(from, sizeof from, "runs/%s", run);
        snprintf(to, sizeof to, "%s/%s", stage, run);
        if (renameat2(state_fd, from, state_fd, to, RENAME_NOREPLACE) < 0 && errno != ENOENT)
                return negative_errno();
        return 0;
}

/* A stage whose files were moving when the daemon stopped: rolled back (its run directories
 * back in the stage, to be removed with it) unless the import's rows were committed, which
 * happens only once they all moved. 0 when the stage can go, or a negative errno (left). */
static int stage_settle(int state_fd, int stage_fd, const char *state_dir, const char *stage, struct db_conn *c) {
        _cleanup_free_ char (*ids)[ID_LEN + 1] = NULL;
        size_t n;
        bool committed;
        int r = marker_read(stage_fd, &ids, &n);
        if (r == -ENOENT)
                return 0;      /* cut short before any move: nothing of it is anywhere else */
        if (r < 0)
                return log_warning_errno(r, "%s/%s: cannot read which import's files were moving", state_dir, stage);
        if (!c)
                return log_warning_errno(-ENOTCONN, "%s/%s: no store to ask whether import of %s was committed", state_dir,
                                         stage, ids[0]);
        if ((r = imports_known(c, ids[0], &committed)) < 0)
                return log_warning_errno(r, "%s/%s: cannot ask the store about experiment %s", state_dir, stage, ids[0]);
        if (committed) {
                log_info("%s/%s: the import of experiment %s was committed with its files in place; its stage is removed",
                         state_dir, stage, ids[0]);
                return 0;
        }
        for (size_t i = 1; i < n; i++)
                if ((r = move_back(state_fd, stage_fd, stage, ids[i], c)) < 0)
                        return log_warning_errno(r, "%s/%s: cannot move the files of run %s back out of runs/", state_dir,
                                                 stage, ids[i]);
        log_info("%s/%s: the import of experiment %s was cut short before its commit; its files are moved back and removed",
                 state_dir, stage, ids[0]);
        return 0;
}

int api_imports_clean_stages(const char *state_dir, struct db_conn *c) {
        _cleanup_close_ int state_fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (state_fd < 0)
                return negative_errno();
        int fd = fcntl(state_fd, F_DUPFD_CLOEXEC, 3);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                int r = negative_errno();
                if (fd >= 0)
                        close(fd);
                return r;
        }
        int removed = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                /* Our names only, and a real directory: a link of that name is not followed. */
                if (!stage_name_valid(de->d_name) || fstatat(state_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISDIR(st.st_mode))
                        continue;
                /* An import of another daemon on this state dir holds its stage's lock. */
                _cleanup_close_ int lock = openat(state_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0)
                        continue;
                if (stage_settle(state_fd, lock, state_dir, de->d_name, c) < 0)
                        continue;
                stage_remove(state_fd, de->d_name);
                if (faccessat(state_fd, de->d_name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                        log_warning("%s/%s: the stage of an import cut short holds more than an import makes; left in place",
                                    state_dir, de->d_name);
                else
                        removed++;
        }
        closedir(d);
        return removed;
}

/* The run's index in the bundle's runs, or -1. */
static ssize_t run_of_bundle(const struct bundle_rows_owner *o, const char *run_id) {
        for (size_t i = 0; i < o->n_runs; i++)
                if (strcmp(o->run_ids[i], run_id) == 0)
                        return (ssize_t) i;
        return -1;
}

/* "runs/<run id>/<file>" of a run the rows brought (they come first) into stage/<run id>/<file>;
 * files[] counts each run's. */
static int stage_file(int state_fd, const char *stage, const struct bundle_entry *e, const struct bundle_rows_owner *o,
                      unsigned *files, struct error *err) {
        const char *run = e->name + strlen("runs/");
        const char *slash = strchr(run, '/');
        if (!slash || slash - run != ID_LEN || !api_run_file_name_valid(slash + 1, strlen(slash + 1)))
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: not runs/<run id>/<file name>", e->name);
        char run_id[ID_LEN + 1], path[STAGE_NAME_LEN + ID_LEN + 80];
        memcpy(run_id, run, ID_LEN);
        run_id[ID_LEN] = '\0';
        if (!id_valid(run_id))
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: not runs/<run id>/<file name>", e->name);
        /* A file of a run the rows did not bring would land in another run's directory. */
        ssize_t run_index = run_of_bundle(o, run_id);
        if (run_index < 0)
                return error_set(err, 400, "invalid_bundle", "bundle",
                                 "entry %s: no run %s in the bundle's rows (which come before the files)", e->name, run_id);
        if (++files[run_index] > API_RUN_FILES_MAX)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: more than the %d files a run's directory sends",
                                 e->name, API_RUN_FILES_MAX);
        /* The readers take at most what collection writes. */
        if (strcmp(slash + 1, "profile.folded") == 0 && e->len > RUN_PROFILE_BYTES_MAX)
                return error_set(err, 400, "invalid_bundle", "bundle", "entry %s: %" PRIu64 " bytes, more than the %u of a profile",
                                 e->name, e->len, RUN_PROFILE_BYTES_MAX);
        snprintf(path, sizeof path, "%s/%s", stage, run_id);
        if (mkdirat(state_fd, path, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        snprintf(path, sizeof path, "%s/%s/%s", stage, run_id, slash + 1);
        _cleanup_close_ int fd = openat(state_fd, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return errno == EEXIST ? error_set(err, 400, "invalid_bundle", "bundle", "entry %s: twice in the bundle", e->name)
                                       : negative_errno();
        return write_all(fd, e->data, e->len);
}

/* The marker of a stage whose run directories are about to move (the experiment, then the runs
 * with files), durable before the first move. */
static int publish_marker(int stage_fd, const struct bundle_rows_owner *o, const bool *has_files) {
        size_t n = 1;
        for (size_t i = 0; i < o->n_runs; i++)
                n += has_files[i];
        _cleanup_free_ char *text = malloc(n * (ID_LEN + 1) + 1);
        if (!text)
                return -ENOMEM;
        char *p = text;
        p += sprintf(p, "%s\n", o->experiment_id);
        for (size_t i = 0; i < o->n_runs; i++)
                if (has_files[i])
                        p += sprintf(p, "%s\n", o->run_ids[i]);
        _cleanup_close_ int fd =
                openat(stage_fd, PUBLISH_MARKER ".tmp", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return negative_errno();
        int r = write_full(fd, text, (size_t) (p - text));
        if (r < 0)
                return r;
        if (fsync(fd) < 0 || renameat(stage_fd, PUBLISH_MARKER ".tmp", stage_fd, PUBLISH_MARKER) < 0 || fsync(stage_fd) < 0)
                return negative_errno();
        return 0;
}

static void unpublish(int state_fd, const char *stage, const struct bundle_rows_owner *o, const bool *moved) {
        for (size_t i = 0; i < o->n_runs; i++) {
                char from[ID_LEN + 8], to[STAGE_NAME_LEN + ID_LEN + 2];
                if (!moved[i])
                        continue;
                snprintf(from, sizeof from, "runs/%s", o->run_ids[i]);
                snprintf(to, sizeof to, "%s/%s", stage, o->run_ids[i]);
                if (renameat2(state_fd, from, state_fd, to, RENAME_NOREPLACE) < 0)
                        log_warning_errno(negative_errno(), "import of %s: cannot move the files of run %s back out of runs/",
                                          o->experiment_id, o->run_ids[i]);
        }
}

/* The runs' directories move into runs/ inside the import's transaction, before its commit, so
 * that the rows never show without their files. The marker first: it tells a daemon starting
 * after a crash between the moves and the commit what to move back (stage_settle()). moved[i]:
 * o's run i moved, for unpublish() when the commit fails; on a failure here nothing stays moved. */
static int publish(int state_fd, int stage_fd, const char *stage, const struct bundle_rows_owner *o, bool *moved,
                   struct error *err) {
        _cleanup_free_ bool *has_files = calloc(MAX(o->n_runs, (size_t) 1), sizeof *has_files);
        if (!has_files)
                return -ENOMEM;
        bool any = false;
        for (size_t i = 0; i < o->n_runs; i++) {
                struct stat st;
                has_files[i] = fstatat(stage_fd, o->run_ids[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
                any |= has_files[i];
        }
        if (!any)
                return 0;
        int r = publish_marker(stage_fd, o, has_files);
        if (r < 0)
                return r;
        if (mkdirat(state_fd, "runs", 0755) < 0 && errno != EEXIST)
                return negative_errno();
        for (size_t i = 0; i < o->n_runs; i++) {
                char from[STAGE_NAME_LEN + ID_LEN + 2], to[ID_LEN + 8];
                if (!has_files[i])
                        continue;
                snprintf(from, sizeof from, "%s/%s", stage, o->run_ids[i]);
                snprintf(to, sizeof to, "runs/%s", o->run_ids[i]);
                /* A directory of that name with no run of the store behind it is not replaced. */
                if (renameat2(state_fd, from, state_fd, to, RENAME_NOREPLACE) < 0) {
                        r = negative_errno();
                        unpublish(state_fd, stage, o, moved);
                        return error_set(err, 500, "internal", NULL, "import of %s: cannot move the files of run %s into runs/: %s",
                                         o->experiment_id, o->run_ids[i], strerror(-r));
                }
                moved[i] = true;
        }
        _cleanup_close_ int runs_fd = openat(state_fd, "runs", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (runs_fd < 0 || fsync(runs_fd) < 0) {
                r = negative_errno();
                unpublish(state_fd, stage, o, moved);
                return r;
        }
        return 0;
}

/* ---- the import ------------------------------------------------------------------------------ */

static bool known_document(const char *name) {
        static const char *const names[] = { "bundle.json", "experiment.json", "report.json", "findings.json", "host.json" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcmp(name, names[i]) == 0)
                        return true;
        return false;
}

/* Every entry: rows into the transaction, files into the stage. */
static int store_entries(struct db_conn *c, const uint8_t *buf, size_t len, int state_fd, const char *stage,
                         struct bundle_rows_owner *o, struct error *err) {
        size_t pos = 0;
        struct bundle_entry e;
        _cleanup_free_ unsigned *files = NULL;  /* per run, from the first file on: the rows are in */
        int r;
        while ((r = bundle_next(buf, len, &pos, &e)) > 0) {
                if (strncmp(e.name, "tables/", 7) == 0)
                        r = files ? error_set(err, 400, "invalid_bundle", "bundle", "entry %s: after the runs' files: the rows come first",
                                              e.name)
                                  : bundle_rows_load(c, e.name, e.data, (size_t) e.len, o, err);
                else if (strncmp(e.name, "runs/", 5) == 0) {
                        if (!files && !(files = calloc(MAX(o->n_runs, (size_t) 1), sizeof *files)))
                                return -ENOMEM;
                        r = stage_file(state_fd, stage, &e, o, files, err);
                } else if (!known_document(e.name))
                        r = error_set(err, 400, "invalid_bundle", "bundle", "entry %s: not an entry of format version %d",
                                      e.name, BUNDLE_VERSION);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return bundle_rows_check(c, o, err);
}

/* What the bundle's definition says its rows are: it is parsed as POST /v1/experiments parses one,
 * without this host's limits (it ran on another). */
static int import_definition(const char *json, size_t len, struct bundle_rows_definition *ret, struct error *err) {
        _cleanup_(definition_freep) struct definition *d = NULL;
        int r = definition_parse(json, len, NULL, &d, err);
        if (r < 0)
                return r;
        struct bundle_rows_definition def = {
                .name = strdup(d->name),
                .order = definition_names_order(d->order),
                .has_seed = d->has_seed,
                .seed = d->seed,
                .cell_names = calloc(d->n_cells, sizeof(char *)),
                .n_cells = d->n_cells,
                .iterations = d->iterations,
                .min_rounds = d->stop.enabled ? d->stop.min_rounds : 0,
        };
        bool ok = def.name && def.cell_names;
        for (size_t i = 0; ok && i < d->n_cells; i++)
                ok = (def.cell_names[i] = strdup(d->cells[i].name)) != NULL;
        if (!ok) {
                bundle_rows_definition_done(&def);
                return -ENOMEM;
        }
        *ret = def;
        return 0;
}

static int store(struct api_request *req, const uint8_t *buf, size_t len, const struct bundle_meta *m,
                 struct error *err) {
        _cleanup_close_ int state_fd = open(req->config->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (state_fd < 0)
                return negative_errno();
        char stage[STAGE_NAME_LEN];
        char random_id[ID_LEN + 1];
        int r = id_generate(random_id);
        if (r < 0)
                return r;
        snprintf(stage, sizeof stage, STAGE_PREFIX "%s", random_id);
        if (mkdirat(state_fd, stage, 0700) < 0)
                return negative_errno();
        _cleanup_close_ int stage_lock = openat(state_fd, stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (stage_lock < 0 || flock(stage_lock, LOCK_EX) < 0) {
                r = negative_errno();
                stage_remove(state_fd, stage);
                return r;
        }
        _cleanup_(bundle_rows_owner_done) struct bundle_rows_owner owner = { 0 };
        snprintf(owner.experiment_id, sizeof owner.experiment_id, "%s", m->id);
        owner.read_definition = import_definition;
        struct db_lease lease _cleanup_lease_ = { 0 };
        struct db_txn txn _cleanup_txn_ = { 0 };
        const struct import_origin origin = { .host = m->host, .id = m->origin_id, .bundle_sha256 = m->sha256 };
        r = db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = db_txn_begin(lease.conn, &txn);
        if (r >= 0)
                r = store_entries(lease.conn, buf, len, state_fd, stage, &owner, err);
        if (r >= 0)
                /* The bundle's rows carry no label index and no run counts: an import is found
                 * by ?label= and counted as a local experiment is. */
                r = experiments_adopt_inserted(lease.conn, m->id);
        if (r >= 0)
                r = imports_record(lease.conn, m->id, &origin);
        _cleanup_free_ bool *moved = r >= 0 ? calloc(MAX(owner.n_runs, (size_t) 1), sizeof *moved) : NULL;
        if (r >= 0 && !moved)
                r = -ENOMEM;
        if (r >= 0)
                r = publish(state_fd, stage_lock, stage, &owner, moved, err);
        if (r >= 0) {
                fault_point("import-before-commit");
                r = db_txn_commit(&txn);
                if (r < 0)
                        unpublish(state_fd, stage, &owner, moved);
                else
                        fault_point("import-after-commit");
        }
        stage_remove(state_fd, stage);
        return r;
}

/* The experiment is here already: imported from the same origin in the same bytes, or exported
 * by this daemon. Other bytes of an origin imported before are a 409: the store keeps the first. */
static int already_here(struct db_conn *c, const struct bundle_meta *m, char ret_id[ID_LEN + 1], struct error *err) {
        char sha256[IMPORT_SHA256_HEX_LEN + 1];
        int r = imports_find(c, m->host, m->origin_id, ret_id, sha256);
        if (r == 0 && strcmp(sha256, m->sha256) != 0)
                return error_set(err, 409, "conflict", "bundle",
                                 "experiment %s of %s is stored here (as %s) from a bundle of other bytes (sha256 %s); this one "
                                 "(sha256 %s) is not stored", m->origin_id, m->host, ret_id, sha256, m->sha256);
        if (r != -ENOENT)
                return r < 0 ? r : 1;
        _cleanup_json_ cJSON *exp = NULL;
        r = experiments_get_json(c, m->id, &exp);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        char host[256];
        api_host_name(host, sizeof host);
        if (strcmp(m->origin_id, m->id) == 0 && strcmp(m->host, host) == 0 && !cJSON_GetObjectItem(exp, "origin")) {
                memcpy(ret_id, m->id, ID_LEN + 1);
                return 1;
        }
        return error_set(err, 409, "conflict", "bundle",
                         "experiment id %s is taken here by another experiment; the bundle (from %s, experiment %s) is not stored",
                         m->id, m->host, m->origin_id);
}

static enum MHD_Result reply_imported(struct api_request *req, unsigned status, const char *id) {
        struct db_lease lease _cleanup_lease_ = { 0 };
        cJSON *exp = NULL;
        bool finished;
        int r = db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = api_experiment_json(lease.conn, id, &exp, &finished);
        if (r < 0)
                return api_reply_errno(req, r, "experiment");
        char location[64];
        snprintf(location, sizeof location, "/v1/experiments/%s", id);
        const char *const headers[] = { "Location", location, NULL };
        return api_reply_json_headers(req, status, exp, headers);
}

struct mapping {
        void *p;
        size_t len;
};

static void mapping_done(struct mapping *m) {
        if (m->p && m->p != MAP_FAILED)
                munmap(m->p, m->len);
}

enum MHD_Result api_post_import(struct api_request *req) {
        struct error err = { 0 };
        if (req->body_fd < 0 || req->body_len == 0)
                return api_reply_errorf(req, 400, "invalid_bundle", "bundle", "the request has no bundle");
        _cleanup_(mapping_done) struct mapping map = { .len = req->body_len };
        map.p = mmap(NULL, map.len, PROT_READ, MAP_PRIVATE, req->body_fd, 0);
        if (map.p == MAP_FAILED)
                return api_reply_errno(req, negative_errno(), "bundle");
        const uint8_t *buf = map.p;
        struct bundle_meta m;
        if (bundle_check(buf, map.len, &err) < 0 || read_meta(buf, map.len, &m, &err) < 0)
                return api_reply_error(req, &err);

        char existing[ID_LEN + 1];
        struct db_lease lease _cleanup_lease_ = { 0 };
        int r = db_lease_take(req->config->storage, &lease);
        if (r >= 0)
                r = already_here(lease.conn, &m, existing, &err);
        db_lease_release(&lease);
        if (r < 0)
                return err.status ? api_reply_error(req, &err) : api_reply_errno(req, r, "import");
        if (r > 0)
                return reply_imported(req, 200, existing);
        r = store(req, buf, map.len, &m, &err);
        if (r < 0 && (r == -EEXIST || err.status == 409)) {
                /* Two imports of one bundle at once: the one that lost the race answers as a
                 * second import does. */
                struct error again = { 0 };
                int k = db_lease_take(req->config->storage, &lease);
                if (k >= 0)
                        k = already_here(lease.conn, &m, existing, &again);
                db_lease_release(&lease);
                if (k > 0)
                        return reply_imported(req, 200, existing);
                if (k < 0 && again.status) /* the winner's bundle was other bytes */
                        return api_reply_error(req, &again);
        }
        if (r < 0)
                return err.status ? api_reply_error(req, &err) : api_reply_errno(req, r, "import");
        log_info("imported experiment %s from %s (%s there)", m.id, m.host, m.origin_id);
        return reply_imported(req, 201, m.id);
}
