/* scheduler.c: taking queued runs in order, within --max-parallel and disjoint cpusets. */
#include "daemon/scheduler.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "storage/experiments.h"
#include "daemon/housekeeping.h"
#include "daemon/load-runner.h"
#include "storage/loads.h"
#include "daemon/run-plan.h"
#include "daemon/sequential-stop.h"
#include "definition/definition.h"
#include "basic/id.h"
#include "basic/log.h"
#include "basic/macro.h"

#define ACTIVE_MAX 64
#define HOUSEKEEPING_QUEUE_SCAN 1024     /* experiments read per kick */
#define COLLECT_CONNS_MAX 4

struct scheduler {
        struct run_context ctx;
        unsigned max_parallel;
        struct run *active[ACTIVE_MAX];
        struct db_conn *active_db[ACTIVE_MAX];  /* active[i]'s collection connection, or NULL */
        size_t n_active;
        /* Connections kept for collection, taken before the API serves: a run's worker never
         * waits for a pool that streams hold, and the daemon's fds do not grow with runs. */
        struct db_conn *idle_db[COLLECT_CONNS_MAX];
        size_t n_idle_db;
        bool shutting_down;
        sd_event_source *kick_defer;
        struct cpulist housekeeping;    /* applied to the daemon's threads; empty before the first */
        struct load_runner *loads;      /* loads run for other hosts (issue 25) */
        char waiting_for_load[ID_LEN + 1];      /* the run last said to wait for a load's CPUs */
        /* The CPUs queued runs use, kept between kicks: a kick reads and parses only the
         * experiments queued since (every POST kicks; re-reading the whole queue each time made
         * a POST cost grow with the queue). Runs leaving the queue may shrink the set, so a
         * start or an empty queue makes it stale; until then it is too large, never too small. */
        struct cpulist queued_cpus;
        int64_t queued_seen;            /* experiment_seq up to which queued_cpus holds the runs */
        bool queued_stale;
        scheduler_settled_fn settled;
        void *settled_userdata;
};

static void kick_later(struct scheduler *s);

static void on_load_changed(void *userdata) {
        kick_later(userdata);
}

int scheduler_new(const struct run_context *ctx, unsigned max_parallel, struct scheduler **ret) {
        struct scheduler *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->ctx = *ctx;
        s->queued_stale = true;
        int k = load_runner_new(ctx, on_load_changed, s, &s->loads);
        if (k < 0) {
                free(s);
                return k;
        }
        s->max_parallel = MIN(MAX(max_parallel, 1u), (unsigned) ACTIVE_MAX);
        for (size_t i = 0; ctx->storage && i < MIN((size_t) s->max_parallel, (size_t) COLLECT_CONNS_MAX); i++) {
                int r = storage_acquire(ctx->storage, &s->idle_db[s->n_idle_db]);
                if (r < 0) {
                        scheduler_free(s);
                        return r;
                }
                s->n_idle_db++;
        }
        *ret = s;
        return 0;
}

static void give_back_db(struct scheduler *s, struct db_conn *c) {
        if (c)
                s->idle_db[s->n_idle_db++] = c;
}

size_t scheduler_active(const struct scheduler *s) {
        return s->n_active;
}

/* No run is live at start, but only our own runs' groups are ours to remove: a group whose id
 * this database never saw belongs to someone else (another daemon's root by mistake, a
 * person's experiment) and stays, logged. An unreadable store keeps everything too. */
static bool keep_group(const char *run_id, void *userdata) {
        struct scheduler *s = userdata;
        bool known = false;
        int r = runs_known(s->ctx.db, run_id, &known);
        if (r < 0) {
                log_error_errno(r, "cgroup: cannot tell whether run %s is ours; its group stays", run_id);
                return true;
        }
        if (!known)
                log_warning("cgroup: run-%s under the root is not a run of this daemon's database; left alone", run_id);
        return !known;
}

int scheduler_recover(struct scheduler *s) {
        int64_t n = 0;
        int r = runs_interrupt_unfinished(s->ctx.db, "the daemon stopped while this run was in progress", &n);
        if (r < 0)
                return log_error_errno(r, "cannot mark unfinished runs as interrupted");
        if (n > 0)
                log_warning("%lld run(s) left unfinished by the previous daemon are now interrupted", (long long) n);
        r = cgroup_reconcile(s->ctx.cgroups, keep_group, s);
        if (r < 0)
                return log_error_errno(r, "cannot clean up the slices left by the previous daemon");
        return load_runner_recover(s->loads);
}

/* Zombies of processes that double-forked out of a run were adopted by us (we are a subreaper).
 * Reap those only: not our own direct children (tracked by runs, or the java probe of the API,
 * which shares our session), which each have their own waiter. */
static void reap_adopted(struct scheduler *s) {
        _cleanup_(closedirp) DIR *d = opendir("/proc");
        if (!d)
                return;
        pid_t self = getpid(), our_sid = getsid(0);
        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0)
                        continue;
                char path[64], buf[512];
                snprintf(path, sizeof path, "/proc/%ld/stat", pid);
                _cleanup_fclose_ FILE *f = fopen(path, "re");
                if (!f || !fgets(buf, sizeof buf, f))
                        continue;
                char *rp = strrchr(buf, ')');
                char state;
                int ppid, pgrp, sid;
                if (!rp || sscanf(rp + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4)
                        continue;
                if (state != 'Z' || ppid != self || sid == our_sid)
                        continue;
                bool tracked = false;
                for (size_t i = 0; i < s->n_active; i++) {
                        pid_t pids[2];
                        run_get_pids(s->active[i], pids);
                        tracked = tracked || pids[0] == pid || pids[1] == pid;
                }
                if (!tracked)
                        (void) waitpid((pid_t) pid, NULL, WNOHANG);
        }
}

static int on_kick(sd_event_source *src, void *userdata) {
        struct scheduler *s = userdata;
        s->kick_defer = sd_event_source_disable_unref(s->kick_defer);
        scheduler_kick(s);
        return 0;
}

static void kick_later(struct scheduler *s) {
        if (!s->kick_defer && !s->shutting_down)
                sd_event_add_defer(s->ctx.event, &s->kick_defer, on_kick, s);
}

/* Fail fast: the same failure again and again says the definition or the host is wrong, and the
 * rest of the experiment would only repeat it. */
static void stop_repeated_failures(struct scheduler *s, const struct run *r) {
        int64_t cancelled = 0;
        char why[1024];
        int k = experiments_stop_after_failures(s->ctx.db, run_get_experiment_id(r),
                                                run_get_max_consecutive_failures(r), &cancelled, why, sizeof why);
        if (k < 0)
                log_full(LOG_ERR, k, run_get_experiment_id(r), NULL, "experiment %s: cannot check for repeated failures",
                         run_get_experiment_id(r));
        else if (cancelled > 0)
                log_full(LOG_WARNING, 0, run_get_experiment_id(r), NULL, "experiment %s: %lld queued run(s) %s",
                         run_get_experiment_id(r), (long long) cancelled, why);
}

static void on_run_done(struct run *r, void *userdata) {
        struct scheduler *s = userdata;
        stop_repeated_failures(s, r);
        struct db_conn *db = NULL;
        for (size_t i = 0; i < s->n_active; i++)
                if (s->active[i] == r) {
                        db = s->active_db[i];
                        s->n_active--;
                        s->active[i] = s->active[s->n_active];
                        s->active_db[i] = s->active_db[s->n_active];
                        break;
                }
        run_free(r);    /* its worker, if any, is joined: the connection is free again */
        give_back_db(s, db);
        reap_adopted(s);
        kick_later(s);
}

static void honour_cancels(struct scheduler *s) {
        for (size_t i = 0; i < s->n_active; i++) {
                bool cancelled = false;
                struct run *r = s->active[i];
                if (experiments_cancel_requested(s->ctx.db, run_get_experiment_id(r), &cancelled) >= 0 && cancelled)
                        run_stop(r, RUN_CANCELLED, "cancelled", "the experiment was cancelled while this run was in progress");
        }
}

/* The CPUs a cell of an experiment's stored definition would use. */
static int cell_cpus(const struct definition *d, int64_t cell_idx, const struct cpulist *online, struct cpulist *ret) {
        if (cell_idx < 0 || (size_t) cell_idx >= d->n_cells)
                return -EINVAL;
        struct run_cpus cpus;
        run_plan_cpus(d, (size_t) cell_idx, online, &cpus);
        *ret = cpus.all;
        return 0;
}

static int parse_stored(const char *definition, struct definition **ret) {
        struct error err = { 0 };
        return definition_parse(definition, strlen(definition), NULL, ret, &err);
}

/* The CPUs a queued run would use. */
static int queued_cpus(const struct queued_run *q, struct cpulist *ret) {
        _cleanup_(definition_freep) struct definition *d = NULL;
        struct cpulist online;
        int r = cpulist_read_online(&online);
        if (r < 0 || (r = parse_stored(q->definition, &d)) < 0)
                return r;
        return cell_cpus(d, q->cell_idx, &online, ret);
}

/* Fold the cells of the experiments queued since the last look into s->queued_cpus (all of them
 * when stale; a scan that fills HOUSEKEEPING_QUEUE_SCAN goes on after its last experiment at the
 * next kick). Read per experiment, not per run: a POST's kick reads its one new experiment
 * however long the queue, and an experiment of more runs than a scan holds cannot stop the scan
 * from moving on (it did, and every kick read the same 4096 runs again). */
static void update_queued_cpus(struct scheduler *s, const struct cpulist *online) {
        if (s->queued_stale) {
                s->queued_cpus = (struct cpulist){ 0 };
                s->queued_seen = 0;
        }
        struct queued_cells *q = NULL;
        size_t n = 0;
        if (runs_queued_cells(s->ctx.db, s->queued_seen, HOUSEKEEPING_QUEUE_SCAN, &q, &n) < 0)
                return;
        s->queued_stale = false;
        for (size_t i = 0; i < n; i++) {
                _cleanup_(definition_freep) struct definition *d = NULL;
                if (q[i].cells == 0 || parse_stored(q[i].definition, &d) < 0)
                        continue;
                for (int64_t k = 0; k < 64; k++) {
                        struct cpulist cpus;
                        if ((q[i].cells & (UINT64_C(1) << k)) && cell_cpus(d, k, online, &cpus) >= 0)
                                cpulist_union(&s->queued_cpus, &cpus);
                }
        }
        if (n > 0)
                s->queued_seen = q[n - 1].experiment_seq;
        queued_cells_free(q, n);
}

/* Every CPU a running or queued run uses (a queue longer than the scan is counted in part). */
static void used_cpus(struct scheduler *s, const struct cpulist *online, struct cpulist *ret) {
        load_runner_cpus(s->loads, ret);
        for (size_t i = 0; i < s->n_active; i++)
                cpulist_union(ret, run_get_cpus(s->active[i]));
        update_queued_cpus(s, online);
        cpulist_union(ret, &s->queued_cpus);
}

/* The daemon's threads off the CPUs runs measure on: --housekeeping-cpus, or what runs leave. */
static void update_housekeeping(struct scheduler *s) {
        struct cpulist online, hk;
        bool none_left = false;
        if (cpulist_read_online(&online) < 0)
                return;
        if (s->ctx.housekeeping)
                hk = *s->ctx.housekeeping;
        else {
                struct cpulist used;
                used_cpus(s, &online, &used);
                housekeeping_choose(&online, &used, &hk, &none_left);
        }
        char list[256] = "";
        (void) cpulist_format(&hk, list, sizeof list);
        if (memcmp(&hk, &s->housekeeping, sizeof hk) != 0) {
                int r = housekeeping_apply(&hk);
                if (r < 0)
                        log_warning_errno(r, "cannot confine the daemon's threads to CPUs %s", list);
                else
                        log_info("the daemon's threads run on CPUs %s%s", list,
                                 none_left ? " (all: the runs leave none over)" : "");
                s->housekeeping = hk;
        }
        for (size_t i = 0; i < s->n_active; i++) {
                char message[512];
                if (none_left)
                        snprintf(message, sizeof message,
                                 "no CPU is left over for the daemon's own threads (API, event loop): they run on all "
                                 "online CPUs (%s), this run's included; leave one free or set --housekeeping-cpus", list);
                else if (cpulist_intersects(&hk, run_get_cpus(s->active[i])))
                        snprintf(message, sizeof message,
                                 "the daemon's own threads run on CPUs %s (--housekeeping-cpus), some of this run's", list);
                else
                        continue;
                run_warn_housekeeping(s->active[i], message);
        }
}

/* The CPUs of the runs in progress. */
static void active_cpus(const struct scheduler *s, struct cpulist *ret) {
        *ret = (struct cpulist){ 0 };
        for (size_t i = 0; i < s->n_active; i++)
                cpulist_union(ret, run_get_cpus(s->active[i]));
}

/* Peer loads hold their CPUs until they end: those running, and those queued since the loads
 * were last started (the store's word, read just before the run would start). */
static bool clear_of_loads(const struct scheduler *s, const struct cpulist *cpus) {
        struct cpulist held, queued;
        load_runner_cpus(s->loads, &held);
        if (loads_holding_cpus(s->ctx.db, &queued) < 0)
                return false;
        return !cpulist_intersects(cpus, &held) && !cpulist_intersects(cpus, &queued);
}

/* Said once per run: a run held back by another host's load is not a run that is stuck. */
static void note_waiting(struct scheduler *s, const struct queued_run *q) {
        struct cpulist cpus;
        if (strcmp(s->waiting_for_load, q->id) == 0 || queued_cpus(q, &cpus) < 0 || clear_of_loads(s, &cpus))
                return;
        snprintf(s->waiting_for_load, sizeof s->waiting_for_load, "%s", q->id);
        log_full(LOG_INFO, 0, q->experiment_id, q->id, "run %s waits: a load run for another host holds some of its CPUs",
                 q->id);
}

static bool fits_beside_active(const struct scheduler *s, const struct queued_run *q) {
        struct cpulist cpus, held;
        if (s->n_active == 0 && load_runner_active(s->loads) == 0 && loads_holding_cpus(s->ctx.db, &held) >= 0 &&
            cpulist_count(&held) == 0)
                return true;
        if (queued_cpus(q, &cpus) < 0 || !clear_of_loads(s, &cpus))
                return false;
        for (size_t i = 0; i < s->n_active; i++)
                if (cpulist_intersects(&cpus, run_get_cpus(s->active[i])))
                        return false;
        return true;
}

static void start_due(struct scheduler *s) {
        while (s->n_active < s->max_parallel) {
                struct queued_run *q = NULL;
                size_t n = 0;
                if (runs_next_queued(s->ctx.db, 0, 1, &q, &n) < 0 || n == 0) {
                        s->queued_stale = s->queued_stale || n == 0;
                        queued_runs_free(q, n);
                        return;
                }
                int gate = sequential_gate(s->ctx.db, &q[0]);
                if (gate < 0)
                        /* the stop rule unread: the run starts as under a fixed count */
                        log_full(LOG_ERR, gate, q[0].experiment_id, q[0].id, "run %s: cannot read its experiment's rounds",
                                 q[0].id);
                if (gate == SEQUENTIAL_GATE_WAIT) {
                        queued_runs_free(q, n);
                        return;
                }
                if (gate == SEQUENTIAL_GATE_DROPPED) {
                        queued_runs_free(q, n);
                        s->queued_stale = true;
                        continue;
                }
                /* Only the head of the queue may start: runs keep their order (interleaving is
                 * part of the experiment's design), so a head that overlaps waits. */
                if (!fits_beside_active(s, &q[0])) {
                        note_waiting(s, &q[0]);
                        queued_runs_free(q, n);
                        return;
                }
                struct run *r = NULL;
                struct run_context ctx = s->ctx;
                ctx.collect_db = s->n_idle_db > 0 ? s->idle_db[--s->n_idle_db] : NULL;
                int k = run_start(&ctx, &q[0], on_run_done, s, &r);
                queued_runs_free(q, n);
                if (k < 0) {
                        give_back_db(s, ctx.collect_db);
                        log_error_errno(k, "cannot start a run");
                        return;
                }
                s->active_db[s->n_active] = ctx.collect_db;
                s->active[s->n_active++] = r;
                s->queued_stale = true; /* the run left the queue */
        }
}

void scheduler_kick(struct scheduler *s) {
        if (s->shutting_down)
                return;
        honour_cancels(s);
        struct cpulist busy;
        active_cpus(s, &busy);
        load_runner_kick(s->loads, &busy);
        start_due(s);
        update_housekeeping(s);
        if (s->settled && s->settled(s->settled_userdata) > 0)
                kick_later(s);
}

void scheduler_on_settled(struct scheduler *s, scheduler_settled_fn fn, void *userdata) {
        s->settled = fn;
        s->settled_userdata = userdata;
}

void scheduler_shutdown(struct scheduler *s) {
        s->shutting_down = true;
        s->kick_defer = sd_event_source_disable_unref(s->kick_defer);
        while (s->n_active > 0) {
                struct run *r = s->active[--s->n_active];
                run_stop(r, RUN_INTERRUPTED, "daemon_shutdown", "the daemon was stopped while this run was in progress");
                run_free(r);
                give_back_db(s, s->active_db[s->n_active]);
        }
        load_runner_shutdown(s->loads);
        reap_adopted(s);
}

void scheduler_free(struct scheduler *s) {
        if (!s)
                return;
        scheduler_shutdown(s);
        load_runner_free(s->loads);
        while (s->n_idle_db > 0)
                storage_release(s->ctx.storage, s->idle_db[--s->n_idle_db]);
        free(s);
}
