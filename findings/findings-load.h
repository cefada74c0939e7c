/* findings-load.h: the input of the findings (findings.h) read from the store, kept apart so that
 * the model and the rules never see storage/. */
#pragma once

#include "findings/findings.h"
#include "storage/db.h"

/* At most this many bytes of the runs' profile.folded files are read for one experiment; runs
 * past it count as unprofiled. */
#define FINDINGS_PROFILES_BYTES_MAX (256u << 20)

/* Everything findings need about experiment id, read from the store (the timelines streamed,
 * never loaded whole) and, with state_dir, the runs' profiles from their run directories.
 * baseline NULL = the first cell. -ENOENT: no such experiment; -EINVAL: no cell named
 * baseline. */
struct findings_loaded;
int findings_load(struct db_conn *c, const char *state_dir, const char *id, const char *baseline,
                  struct findings_loaded **ret);
const struct findings_input *findings_loaded_input(const struct findings_loaded *l);
/* The experiment's status as the store has it. */
const char *findings_loaded_status(const struct findings_loaded *l);
void findings_loaded_free(struct findings_loaded *l);
static inline void findings_loaded_freep(struct findings_loaded **l) {
        if (*l)
                findings_loaded_free(*l);
}
#define _cleanup_findings_ __attribute__((cleanup(findings_loaded_freep)))
