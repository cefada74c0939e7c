/* load.c: which load a run has, the calls through its table, and the load of a run without one
 * (see load.h). */
#include "daemon/load.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>

#include "daemon/child.h"
#include "definition/definition.h"

/* The one place that knows the kinds. */
static const struct load_ops *pick(const struct definition_load *l) {
        if (l->kind == DEFINITION_LOAD_NONE)
                return &load_none_ops;
        /* a search's steps run here or on load.hosts (capacity-steps.c asks load-hosts.h) */
        if (l->kind == DEFINITION_LOAD_INJECTOR && l->mode == DEFINITION_MODE_CAPACITY)
                return &load_capacity_ops;
        if (l->n_hosts > 0)
                return &load_hosts_ops;
        return &load_local_ops;
}

int load_new(const struct load_run *run, struct load **ret) {
        const struct load_ops *ops = pick(&run->def->load);
        struct load *l = NULL;
        int k = ops->new(run, &l);
        if (k < 0)
                return k;
        l->ops = ops;
        l->run = run;
        *ret = l;
        return 0;
}

struct load *load_free(struct load *l) {
        if (l)
                l->ops->free(l);
        return NULL;
}

int load_prepare(struct load *l, char *why, size_t why_size) {
        if (l->ops->prepare)
                return l->ops->prepare(l, why, why_size);
        l->run->events->prepared(l->run->userdata);
        return 0;
}

int load_start(struct load *l, char *why, size_t why_size) {
        return l->ops->start(l, why, why_size);
}

void load_stop(struct load *l) {
        if (l && l->ops->stop)
                l->ops->stop(l);
}

bool load_busy(const struct load *l) {
        return l && l->ops->busy && l->ops->busy(l);
}

void load_wait(struct load *l) {
        if (load_busy(l))
                l->ops->wait(l);
}

void load_reap(struct load *l) {
        if (l && l->ops->reap)
                l->ops->reap(l);
}

bool load_sut_exited(struct load *l) {
        return l->ops->sut_exited && l->ops->sut_exited(l);
}

bool load_describe(const struct load *l, char *buf, size_t size) {
        if (!l->ops->describe)
                return false;
        l->ops->describe(l, buf, size);
        return true;
}

static const struct child *child_of(const struct load *l) {
        return l && l->ops->child ? l->ops->child(l) : NULL;
}

pid_t load_pid(const struct load *l) {
        const struct child *c = child_of(l);
        return c && c->running ? c->pid : 0;
}

cJSON *load_exit_json(const struct load *l) {
        const struct child *c = child_of(l);
        return c ? child_exit_json(c) : cJSON_CreateNull();
}

void load_collect(struct load *l, struct collect_input *in) {
        if (l->ops->collect)
                l->ops->collect(l, in);
}

void load_metrics(const struct load *l, cJSON *metrics) {
        if (l->ops->metrics)
                l->ops->metrics(l, metrics);
}

bool load_has_slice(const struct load *l) {
        return l->ops->slice;
}

/* ---- no load: the SUT runs until it exits, its last stdout line the result ----------------- */

static int none_new(const struct load_run *run, struct load **ret) {
        *ret = calloc(1, sizeof **ret);
        return *ret ? 0 : -ENOMEM;
}

static int none_start(struct load *l, char *why, size_t why_size) {
        l->run->events->measure(l->run->userdata, "the SUT runs until it exits; its last stdout line is the result");
        l->run->events->started(l->run->userdata);
        return 0;
}

static bool none_sut_exited(struct load *l) {
        l->run->events->finished(l->run->userdata, 0, NULL, NULL);
        return true;
}

static void none_free(struct load *l) {
        free(l);
}

const struct load_ops load_none_ops = {
        .name = "none",
        .new = none_new,
        .start = none_start,
        .sut_exited = none_sut_exited,
        .free = none_free,
};
