/* imports.h: where imported experiments came from (the imports table): the origin daemon's host
 * and the experiment's id there, and the bundle's hash. */
#pragma once

#include <stdbool.h>

#include "basic/id.h"
#include "storage/db.h"

struct cJSON;

struct import_origin {
        const char *host;
        const char *id;
        const char *bundle_sha256;      /* hex */
};

#define IMPORT_SHA256_HEX_LEN 64

/* The local id of the experiment imported from that origin and the hex SHA-256 of the bundle it
 * came in (ret_sha256 may be NULL); -ENOENT when none was. */
int imports_find(struct db_conn *c, const char *origin_host, const char *origin_id, char ret_id[ID_LEN + 1],
                 char ret_sha256[IMPORT_SHA256_HEX_LEN + 1]);
/* Whether experiment_id was imported (its import committed): *ret. */
int imports_known(struct db_conn *c, const char *experiment_id, bool *ret);
/* Inside the import's transaction, after its rows: the label index and the counts by state learn
 * of them too. */
int imports_record(struct db_conn *c, const char *experiment_id, const struct import_origin *o);
/* Adds "origin": {"host","id","imported_at"} to o when the experiment was imported. */
int imports_add_origin(struct db_conn *c, const char *experiment_id, struct cJSON *o);
