/* imports.c: the imports table (see imports.h). */
#include "storage/imports.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "basic/time-util.h"
#include "storage/row-json.h"

int imports_find(struct db_conn *c, const char *origin_host, const char *origin_id, char ret_id[ID_LEN + 1],
                 char ret_sha256[IMPORT_SHA256_HEX_LEN + 1]) {
        static const char sql[] = "SELECT experiment_id, bundle_sha256 FROM imports WHERE origin_host = ?1 AND origin_id = ?2";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, origin_host, &s);
        if (r >= 0)
                r = db_bind_text(s, 2, origin_id);
        if (r >= 0)
                r = db_step(s);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        const char *id = (const char *) sqlite3_column_text(s, 0), *sha = (const char *) sqlite3_column_text(s, 1);
        if (!id || strlen(id) != ID_LEN || !sha || strlen(sha) != IMPORT_SHA256_HEX_LEN)
                return -ENODATA;
        memcpy(ret_id, id, ID_LEN + 1);
        if (ret_sha256)
                memcpy(ret_sha256, sha, IMPORT_SHA256_HEX_LEN + 1);
        return 0;
}

int imports_known(struct db_conn *c, const char *experiment_id, bool *ret) {
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, "SELECT 1 FROM imports WHERE experiment_id = ?1", experiment_id, &s);
        if (r < 0 && r != -ENOENT)
                return r;
        *ret = r == 0;
        return 0;
}

int imports_record(struct db_conn *c, const char *experiment_id, const struct import_origin *o) {
        static const char sql[] =
                "INSERT INTO imports(experiment_id, origin_host, origin_id, bundle_sha256, imported_wall_ns)"
                " VALUES (?, ?, ?, ?, ?)";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_stmt_text(c, sql, experiment_id, &s);
        if (r >= 0)
                r = db_bind_text(s, 2, o->host);
        if (r >= 0)
                r = db_bind_text(s, 3, o->id);
        if (r >= 0)
                r = db_bind_text(s, 4, o->bundle_sha256);
        if (r < 0)
                return r;
        sqlite3_bind_int64(s, 5, now_wall_ns());
        return db_step(s);
}

int imports_add_origin(struct db_conn *c, const char *experiment_id, cJSON *o) {
        static const char sql[] = "SELECT origin_host, origin_id, imported_wall_ns FROM imports WHERE experiment_id = ?";
        sqlite3_stmt *s _cleanup_stmt_ = NULL;
        int r = db_row_text(c, sql, experiment_id, &s);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        cJSON *origin = cJSON_AddObjectToObject(o, "origin");
        row_add_text(origin, "host", s, 0);
        row_add_text(origin, "id", s, 1);
        row_add_time(origin, "imported_at", s, 2);
        return 0;
}
