/* cgroup-manager.c: the driver-independent half of daemon/cgroup.h: the manager, runs and their
 * slices (names, rollback, teardown) and reconciliation of groups left by a previous daemon. */
#include <dirent.h>
#include <string.h>

#include "cgroup/cgroup-internal.h"
#include "basic/log.h"

int cgroup_manager_new(const char *root_name, struct cgroup_manager **ret) {
        if (!cg_valid_name(root_name, 64, true))
                return -EINVAL;
        struct cgroup_mode mode;
        int r = cgroup_detect(&mode);
        if (r < 0)
                return log_error_errno(r, "cgroup: no cgroup filesystem at /sys/fs/cgroup");
        _cleanup_free_ struct cgroup_manager *m = calloc(1, sizeof *m);
        if (!m)
                return -ENOMEM;
        m->mode = mode;
        m->driver = mode.version == CGROUP_V2 ? &cg_driver_v2 : &cg_driver_v1;
        r = m->driver->init(m, root_name);
        if (r < 0)
                return r;
        log_info("cgroup: mode %s, driver %s, root %s%s", mode.name, mode.driver, m->root,
                 m->delegated ? " (systemd delegation)" : "");
        *ret = TAKE_PTR(m);
        return 0;
}

void cgroup_manager_free(struct cgroup_manager *m) {
        if (!m)
                return;
        m->driver->fini(m);
        free(m);
}

int cgroup_manager_repair(struct cgroup_manager *m, char *msg, size_t size) {
        msg[0] = '\0';
        return m->driver->repair(m, msg, size);
}

const struct cgroup_mode *cgroup_manager_mode(const struct cgroup_manager *m) {
        return &m->mode;
}

const char *cgroup_manager_root(const struct cgroup_manager *m) {
        return m->root;
}

bool cgroup_manager_delegated(const struct cgroup_manager *m) {
        return m->delegated;
}

/* Is name one item of the comma-separated list? */
static bool controller_in_list(const char *list, const char *name) {
        size_t len = strlen(name);
        for (const char *c = list; c;) {
                if (strncmp(c, name, len) == 0 && (c[len] == ',' || c[len] == '\0'))
                        return true;
                c = strchr(c, ',');
                if (c)
                        c++;
        }
        return false;
}

int cgroup_manager_dir(const struct cgroup_manager *m, const char *controller, const char *cgpath,
                       char *buf, size_t size) {
        if (m->mode.version == CGROUP_V2)
                return cg_path(buf, size, "%s%s", m->mount, cgpath);
        for (size_t i = 0; i < m->n_hier; i++)
                if (controller_in_list(m->hier[i].controllers, controller))
                        return cg_path(buf, size, "%s%s", m->hier[i].mount, cgpath);
        return -ENOENT;
}

/* The union of two slices' cpus/mems, an empty side meaning the whole root, for the run group. */
static void run_group_limits(const struct cgroup_manager *m, const struct slice_limits *a,
                             const struct slice_limits *b, struct slice_limits *ret) {
        *ret = (struct slice_limits){ 0 };
        const struct slice_limits *both[] = { a, b };
        ret->has_mems = true;
        for (size_t i = 0; i < ELEMENTSOF(both); i++) {
                cpulist_union(&ret->cpus, cpulist_count(&both[i]->cpus) ? &both[i]->cpus : &m->root_cpus);
                cpulist_union(&ret->mems, both[i]->has_mems ? &both[i]->mems : &m->root_mems);
        }
}

/* <root>/<prefix>-<id> and the slices of lim that are not NULL. */
static int group_create(struct cgroup_manager *m, const char *prefix, const char *id,
                        const struct slice_limits *const lim[_SLICE_KIND_MAX], struct cgroup_run **ret) {
        if (!cg_valid_name(id, CG_RUN_ID_MAX, false) || !lim[SLICE_LOAD])
                return -EINVAL;
        _cleanup_free_ struct cgroup_run *r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        r->manager = m;
        snprintf(r->id, sizeof r->id, "%s", id);
        int k = cg_path(r->path, sizeof r->path, "%s/%s-%s", m->root, prefix, id);
        for (int i = 0; k >= 0 && i < _SLICE_KIND_MAX; i++)
                if (lim[i])
                        k = cg_path(r->slice[i], sizeof r->slice[i], "%s/%s", r->path, slice_kind_to_string(i));
        if (k < 0)
                return k;

        struct slice_limits parent;
        run_group_limits(m, lim[SLICE_SUT] ? lim[SLICE_SUT] : lim[SLICE_LOAD], lim[SLICE_LOAD], &parent);
        k = m->driver->create(m, r->path, &parent, true);
        if (k == -EEXIST)
                return log_error_errno(k, "cgroup: %s %s: %s exists already", prefix, id, r->path);
        for (int i = 0; k >= 0 && i < _SLICE_KIND_MAX; i++)
                if (lim[i])
                        k = m->driver->create(m, r->slice[i], lim[i], false);
        if (k < 0) {
                log_run(LOG_ERR, NULL, id, "cgroup: creating the slices of %s %s failed: %s", prefix, id, strerror(-k));
                int q = m->driver->remove(m, r->path);
                if (q < 0)
                        log_error_errno(q, "cgroup: rolling back %s", r->path);
                return k;
        }
        *ret = TAKE_PTR(r);
        return 0;
}

int cgroup_run_create(struct cgroup_manager *m, const char *run_id, const struct slice_limits *sut,
                      const struct slice_limits *load, struct cgroup_run **ret) {
        if (!sut || !load)
                return -EINVAL;
        return group_create(m, "run", run_id, (const struct slice_limits *const[_SLICE_KIND_MAX]){ sut, load }, ret);
}

int cgroup_load_create(struct cgroup_manager *m, const char *load_id, const struct slice_limits *limits,
                       struct cgroup_run **ret) {
        if (!limits)
                return -EINVAL;
        return group_create(m, "load", load_id, (const struct slice_limits *const[_SLICE_KIND_MAX]){ NULL, limits }, ret);
}

int cgroup_run_destroy(struct cgroup_run *r) {
        int k = r->manager->driver->remove(r->manager, r->path);
        if (k < 0)
                log_run(LOG_ERR, NULL, r->id, "cgroup: removing %s failed: %s", r->path, strerror(-k));
        return k;
}

void cgroup_run_free(struct cgroup_run *r) {
        free(r);
}

const char *cgroup_run_id(const struct cgroup_run *r) {
        return r->id;
}

const char *slice_cgroup_path(const struct cgroup_run *r, enum slice_kind kind) {
        return (unsigned) kind < _SLICE_KIND_MAX ? r->slice[kind] : NULL;
}

int slice_read_stats(const struct cgroup_run *r, enum slice_kind kind, struct slice_stats *ret) {
        if ((unsigned) kind >= _SLICE_KIND_MAX)
                return -EINVAL;
        return r->manager->driver->read_stats(r->manager, r->slice[kind], ret);
}

int slice_read_cpu_usage(const struct cgroup_run *r, enum slice_kind kind, struct slice_cpu_usage *ret) {
        if ((unsigned) kind >= _SLICE_KIND_MAX)
                return -EINVAL;
        return r->manager->driver->read_cpu_usage(r->manager, r->slice[kind], ret);
}

int slice_kill(struct cgroup_run *r, enum slice_kind kind) {
        if ((unsigned) kind >= _SLICE_KIND_MAX)
                return -EINVAL;
        return r->manager->driver->kill(r->manager, r->slice[kind]);
}

/* Names of run groups under the root, from every hierarchy (a half-made group may exist in
 * some only), without duplicates. */
struct name_set {
        char (*names)[CG_RUN_ID_MAX + 1];
        size_t n, cap;
};

static int name_set_add(struct name_set *s, const char *id) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->names[i], id) == 0)
                        return 0;
        if (s->n == s->cap) {
                size_t ncap = s->cap ? s->cap * 2 : 16;
                void *n = realloc(s->names, ncap * sizeof *s->names);
                if (!n)
                        return -ENOMEM;
                s->names = n;
                s->cap = ncap;
        }
        snprintf(s->names[s->n++], sizeof s->names[0], "%s", id);
        return 0;
}

static int collect_groups(const char *dir, const char *prefix, struct name_set *s) {
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();
        int r = 0;
        size_t n = strlen(prefix);
        struct dirent *de;
        while (r >= 0 && (de = readdir(d)))
                if (de->d_type == DT_DIR && strncmp(de->d_name, prefix, n) == 0 && de->d_name[n] == '-' &&
                    cg_valid_name(de->d_name + n + 1, CG_RUN_ID_MAX, false))
                        r = name_set_add(s, de->d_name + n + 1);
        closedir(d);
        return r;
}

static int reconcile(struct cgroup_manager *m, const char *prefix,
                     bool (*keep)(const char *run_id, void *userdata), void *userdata) {
        char dirs[CG_V1_MAX_HIER][PATH_MAX];
        size_t n = m->driver->dirs(m, m->root, dirs, ELEMENTSOF(dirs));
        struct name_set s = { 0 };
        int r = 0;
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = collect_groups(dirs[i], prefix, &s);
        if (r < 0) {
                free(s.names);
                return log_error_errno(r, "cgroup: listing %s", m->root);
        }
        int removed = 0;
        for (size_t i = 0; i < s.n; i++) {
                if (keep(s.names[i], userdata))
                        continue;
                char path[PATH_MAX];
                int k = cg_path(path, sizeof path, "%s/%s-%s", m->root, prefix, s.names[i]);
                if (k >= 0)
                        k = m->driver->remove(m, path);
                if (k < 0) {
                        log_run(LOG_ERR, NULL, s.names[i], "cgroup: could not remove left-over %s: %s",
                                path, strerror(-k));
                        r = k;
                        continue;
                }
                log_run(LOG_NOTICE, NULL, s.names[i], "cgroup: removed %s left by %s %s",
                        path, prefix, s.names[i]);
                removed++;
        }
        free(s.names);
        return r < 0 ? r : removed;
}

int cgroup_reconcile(struct cgroup_manager *m,
                     bool (*keep)(const char *run_id, void *userdata), void *userdata) {
        return reconcile(m, "run", keep, userdata);
}

int cgroup_reconcile_loads(struct cgroup_manager *m,
                           bool (*keep)(const char *load_id, void *userdata), void *userdata) {
        return reconcile(m, "load", keep, userdata);
}
