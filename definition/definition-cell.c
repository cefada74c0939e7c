/* definition-cell.c: what a cell of a definition runs with: the SUT's argv (the cell's jvm_args
 * in), its environment (sut.env under the cell's env), its memory limit and whether it is
 * profiled. */
#include <stdio.h>
#include <string.h>

#include "definition/definition-internal.h"

bool definition_cell_profiled(const struct definition *d, size_t cell) {
        return d->profile.cpu && !d->cells[cell].unprofiled;
}

int definition_cell_argv(const struct definition *d, size_t cell, char ***ret) {
        const struct definition_cell *c = &d->cells[cell];
        bool frame_pointer = d->sut.jvm && definition_cell_profiled(d, cell);
        size_t extra = d->sut.jvm ? c->n_jvm_args : 0, k = 0;
        _cleanup_(definition_strv_freep) char **argv =
                calloc(d->sut.n_command + extra + frame_pointer + 1, sizeof(char *));

        if (!argv)
                return -ENOMEM;
        for (size_t i = 0; i < d->sut.n_command; i++) {
                if (!(argv[k++] = strdup(d->sut.command[i])))
                        return -ENOMEM;
                /* before the cell's jvm_args, so that an explicit -XX:-PreserveFramePointer wins */
                if (i == 0 && frame_pointer && !(argv[k++] = strdup(DEFINITION_PROFILE_JVM_ARG)))
                        return -ENOMEM;
                for (size_t j = 0; i == 0 && j < extra; j++)
                        if (!(argv[k++] = strdup(c->jvm_args[j])))
                                return -ENOMEM;
        }
        *ret = TAKE_PTR(argv);
        return 0;
}

static int env_entry(char **ret, const struct definition_kv *e, size_t i) {
        return asprintf(ret, "%s=%s", e->keys[i], e->values[i]) < 0 ? -ENOMEM : 0;
}

int definition_cell_env(const struct definition *d, size_t cell, char ***ret) {
        const struct definition_kv *a = &d->sut.env, *b = &d->cells[cell].env;
        _cleanup_(definition_strv_freep) char **env = calloc(a->n + b->n + 1, sizeof(char *));
        size_t i = 0, j = 0, k = 0;

        if (!env)
                return -ENOMEM;
        /* both are sorted: merge, the cell's value winning on equal keys */
        while (i < a->n || j < b->n) {
                int cmp = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->keys[i], b->keys[j]);
                int r = cmp < 0 ? env_entry(&env[k], a, i++) : env_entry(&env[k], b, j++);
                if (r < 0) {
                        env[k] = NULL;
                        return r;
                }
                k++;
                if (cmp == 0)
                        i++;
        }
        *ret = TAKE_PTR(env);
        return 0;
}

uint64_t definition_cell_memory_max(const struct definition *d, size_t cell) {
        return d->cells[cell].memory_max ? d->cells[cell].memory_max : d->sut.memory_max;
}
