/* definition-plan.c: what a definition means for its runs: the run plan (cells x iterations in
 * order) and the effective argv, environment and memory limit of a cell. */
#include <stdio.h>
#include <string.h>

#include "basic/random.h"
#include "definition/definition-internal.h"

void definition_strv_free(char **l) {
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
}

/* Uniform in [0, range) without modulo bias. */
static uint64_t random_below(uint64_t *state, uint64_t range) {
        uint64_t limit = UINT64_MAX - UINT64_MAX % range, x;
        do
                x = splitmix64(state);
        while (x >= limit);
        return x % range;
}

int definition_plan_runs(const struct definition *d, uint64_t seed, struct planned_run **ret,
                         size_t *n) {
        size_t cells = d->n_cells, total = cells * d->iterations, k = 0;
        struct planned_run *runs;

        if (total == 0)
                return -EINVAL;
        runs = calloc(total, sizeof *runs);
        if (!runs)
                return -ENOMEM;
        if (d->order == DEFINITION_ORDER_SEQUENTIAL) {
                for (size_t c = 0; c < cells; c++)
                        for (unsigned it = 0; it < d->iterations; it++)
                                runs[k++] = (struct planned_run){ .cell = c, .iteration = it };
        } else {
                /* interleaved: round after round of every cell; random shuffles each round */
                uint64_t state = seed;
                for (unsigned it = 0; it < d->iterations; it++) {
                        struct planned_run *round = runs + k;
                        for (size_t c = 0; c < cells; c++)
                                runs[k++] = (struct planned_run){ .cell = c, .iteration = it };
                        if (d->order != DEFINITION_ORDER_RANDOM)
                                continue;
                        for (size_t i = cells - 1; i > 0; i--) {
                                size_t j = (size_t) random_below(&state, i + 1);
                                struct planned_run t = round[i];
                                round[i] = round[j];
                                round[j] = t;
                        }
                }
        }
        *ret = runs;
        *n = total;
        return 0;
}

int definition_cell_argv(const struct definition *d, size_t cell, char ***ret) {
        const struct definition_cell *c = &d->cells[cell];
        size_t extra = d->sut.jvm ? c->n_jvm_args : 0, k = 0;
        _cleanup_(definition_strv_freep) char **argv = calloc(d->sut.n_command + extra + 1, sizeof(char *));

        if (!argv)
                return -ENOMEM;
        for (size_t i = 0; i < d->sut.n_command; i++) {
                if (!(argv[k++] = strdup(d->sut.command[i])))
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
