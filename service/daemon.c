/* daemon.c: slicelabd's lifecycle. The main thread owns the sd-event loop and all run state;
 * libmicrohttpd's threads serve the API and wake the loop through an eventfd. */
#include "service/daemon.h"

#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-event.h>

#include "cgroup/cgroup.h"
#include "storage/db.h"
#include "basic/host-limits.h"
#include "service/exposure.h"
#include "service/listen.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "service/notify.h"
#include "storage/runs.h"
#include "daemon/scheduler.h"
#include "definition/definition-policy.h"
#include "api/server.h"
#include "service/root-lock.h"
#include "service/state-dir.h"
#include "peer/peer-client.h"

DEFINE_POINTER_CLEANUP(struct api_server, api_server_stop)

struct run_user {
        bool set;               /* the daemon is root: children drop to uid/gid */
        uid_t uid;
        gid_t gid;
};

struct daemon {
        const struct options *options;
        sd_event *event;
        struct storage *storage;
        struct db_conn *loop_db;        /* the loop's own connection, held for its lifetime */
        struct api_server *api;
        struct api_config api_config;   /* what the API was started with: the bisections' driver's too */
        struct root_lock *root_lock;    /* held from before the first cgroup write to exit */
        struct cgroup_manager *cgroups;
        struct scheduler *scheduler;
        struct run_user run_user;
        struct definition_policy policy;
        struct peer_config peers;       /* --peer-*; the strings are the options' and peer_token's */
        char peer_token[TOKEN_HEX_LEN + 1];
        char injector_path[PATH_MAX];
        char cgroup_root[PATH_MAX];
        int wake_fd;
        char listen_name[128];
        struct tls_pem tls;             /* kept for the server's life */
        bool stopping;
};

static void update_status(struct daemon *d) {
        int64_t queued = 0, active = 0;
        if (runs_count_queue(d->loop_db, &queued, &active) < 0)
                return;
        notify_status("Listening on %s; %lld queued, %lld running", d->listen_name, (long long) queued,
                      (long long) active);
}

/* The API queued or cancelled work. */
static int on_wake(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct daemon *d = userdata;
        uint64_t n;
        if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN)
                return log_error_errno(negative_errno(), "reading the wake eventfd");
        if (d->scheduler)
                scheduler_kick(d->scheduler);
        update_status(d);
        return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct daemon *d = userdata;
        if (d->stopping)
                return 0;
        d->stopping = true;
        log_info("received %s, shutting down", strsignal((int) si->ssi_signo));
        notify_stopping();
        /* Stop accepting first: clients get "connection refused", never a half-served request. */
        api_server_quiesce(d->api);
        if (d->scheduler && scheduler_active(d->scheduler) > 0)
                notify_status("Stopping the run in progress");
        if (d->scheduler)
                scheduler_shutdown(d->scheduler);
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Children run as --run-as (default slicelab): resolved once, before anything is made, so a
 * missing user stops the start with the fix instead of failing every run. */
static int resolve_run_as(const struct options *o, struct run_user *ret) {
        errno = 0;
        struct passwd *pw = getpwnam(o->run_as);
        if (!pw)
                return log_error_errno(errno ? -errno : -ESRCH,
                                       "--run-as %s: no such user (create it: systemd-sysusers, or useradd --system %s)",
                                       o->run_as, o->run_as);
        if (pw->pw_uid == 0 && !o->allow_root_sut)
                return log_error_errno(-EPERM, "--run-as %s is uid 0: the SUT and its load would run as root; "
                                       "add --allow-root-sut to mean it", o->run_as);
        if (geteuid() != 0 && pw->pw_uid != geteuid())
                return log_error_errno(-EPERM, "--run-as %s: only root can start children as another user", o->run_as);
        *ret = (struct run_user){ .set = geteuid() == 0, .uid = pw->pw_uid, .gid = pw->pw_gid };
        if (pw->pw_uid == 0)
                log_warning("--allow-root-sut: the SUT and its load run as %s (uid 0)", o->run_as);
        return 0;
}

/* --allow-exec entries compared as the kernel will run them: symlinks resolved; --peer-allow's
 * patterns decide which load hosts a definition may name. */
static int make_policy(const struct options *o, struct definition_policy *p) {
        *p = (struct definition_policy){ .allow_jvm_option = o->allow_jvm_option,
                                         .n_allow_jvm_option = o->n_allow_jvm_option,
                                         .peer_allow = o->peer_allow,
                                         .n_peer_allow = o->n_peer_allow };
        if (o->n_allow_exec == 0)
                return 0;
        p->allow_exec = calloc(o->n_allow_exec + 1, sizeof *p->allow_exec);
        if (!p->allow_exec)
                return log_error_errno(-ENOMEM, "out of memory");
        for (size_t i = 0; i < o->n_allow_exec; i++) {
                p->allow_exec[i] = realpath(o->allow_exec[i], NULL);
                if (!p->allow_exec[i])
                        return log_error_errno(negative_errno(), "--allow-exec %s", o->allow_exec[i]);
                p->n_allow_exec++;
                if (access(p->allow_exec[i], X_OK) < 0)
                        return log_error_errno(negative_errno(), "--allow-exec %s is not executable", o->allow_exec[i]);
        }
        return 0;
}

static void policy_done(struct definition_policy *p) {
        for (size_t i = 0; i < p->n_allow_exec; i++)
                free(p->allow_exec[i]);
        free(p->allow_exec);
        *p = (struct definition_policy){ 0 };
}

/* --peer-*: the token is read once, here, and lives in the daemon until it exits. */
static int make_peers(struct daemon *d) {
        const struct options *o = d->options;
        d->peers = (struct peer_config){ .url_template = o->peer_url_template, .allow = o->peer_allow };
        if (o->peer_token_file) {
                int r = state_dir_peer_token(o->peer_token_file, d->peer_token);
                if (r < 0)
                        return r;
                d->peers.token = d->peer_token;
        }
        if (peer_global_init() < 0)
                return log_error_errno(-EIO, "cannot initialise libcurl for peers");
        if (o->n_peer_allow > 0)
                log_info("peers: %zu --peer-allow pattern(s), URL template %s, %s", o->n_peer_allow,
                         o->peer_url_template ? o->peer_url_template : "(none: loads are taken, not sent)",
                         o->peer_token_file ? "a token to send" : "no token to send");
        return 0;
}

static int open_storage(struct daemon *d) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/slicelab.db", d->options->state_dir);
        int r = state_dir_private(path);
        if (r < 0)
                return r;
        struct error err = { 0 };
        r = storage_open(path, &d->storage, &err);
        if (r < 0) {
                log_error("%s", err.message);
                return r;
        }
        return storage_acquire(d->storage, &d->loop_db);
}

/* slicelab-inject sits beside slicelabd when installed, or in the build tree's injector/. */
static int find_injector(char *buf, size_t size) {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n < 0)
                return negative_errno();
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
                *slash = '\0';
        const char *candidates[] = { "slicelab-inject", "injector/slicelab-inject", "../bin/slicelab-inject" };
        for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
                if (snprintf(buf, size, "%s/%s", self, candidates[i]) < (int) size && access(buf, X_OK) == 0)
                        return 0;
        }
        snprintf(buf, size, "slicelab-inject"); /* then PATH decides */
        return 0;
}

static int start_runs(struct daemon *d) {
        int r = cgroup_manager_new(d->options->cgroup_root, &d->cgroups);
        if (r < 0)
                return log_error_errno(r, "cannot prepare the cgroup root '%s'", d->options->cgroup_root);
        struct run_context ctx = {
                .event = d->event,
                .db = d->loop_db,
                .storage = d->storage,
                .cgroups = d->cgroups,
                .state_dir = d->options->state_dir,
                .injector_path = d->injector_path,
        };
        ctx.set_user = d->run_user.set;
        ctx.uid = d->run_user.uid;
        ctx.gid = d->run_user.gid;
        ctx.policy = &d->policy;
        ctx.housekeeping = d->options->has_housekeeping ? &d->options->housekeeping : NULL;
        ctx.peers = &d->peers;
        ctx.perf = d->options->perf;
        find_injector(d->injector_path, sizeof d->injector_path);
        /* Processes that double-fork out of a run are re-parented to us, not to init. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                return log_error_errno(negative_errno(), "PR_SET_CHILD_SUBREAPER");
        r = scheduler_new(&ctx, d->options->max_parallel, &d->scheduler);
        if (r < 0)
                return r;
        return scheduler_recover(d->scheduler);
}

static int start_api(struct daemon *d, int listen_fd, bool local, const char *token) {
        /* A results-only daemon drives no cgroups: GET /v1/host says so. */
        static const struct cgroup_mode no_cgroups = { .name = "none" };
        const struct cgroup_mode *mode = d->cgroups ? cgroup_manager_mode(d->cgroups) : &no_cgroups;
        char *root = d->cgroup_root;
        if (d->cgroups &&
            cgroup_manager_dir(d->cgroups, "cpu", cgroup_manager_root(d->cgroups), root, sizeof d->cgroup_root) < 0)
                snprintf(root, sizeof d->cgroup_root, "%s", cgroup_manager_root(d->cgroups));
        struct host_limits host;
        int r = host_limits_read(&host);
        if (r < 0)
                return log_error_errno(r, "cannot read this host's CPUs, memory nodes and memory");
        d->api_config = (struct api_config){
                .storage = d->storage,
                .listen_fd = listen_fd,
                .wake_fd = d->wake_fd,
                .token = token,
                .reads_need_auth = !local,
                .cgroup_mode = mode->name,
                .cgroup_driver = mode->driver,
                .cgroup_root = root,
                .host = host,
                .state_dir = d->options->state_dir,
                .threads = 2,
                .max_streams = d->options->max_streams,
                .queue_max = d->options->queue_max,
                .listen_name = d->listen_name,
                .tls_cert_pem = d->tls.cert,
                .tls_key_pem = d->tls.key,
                .policy = &d->policy,
                .results_only = d->options->results_only,
                .import_max = d->options->import_max,
                .peers = &d->peers,
                .perf = d->options->perf,
        };
        exposure_warn(d->listen_name, local, d->tls.cert != NULL);
        return api_server_start(&d->api_config, &d->api);
}

/* After each scheduling pass: bisections whose step ended go on, on the loop's connection. */
static int on_settled(void *userdata) {
        struct daemon *d = userdata;
        return d->api ? api_bisections_advance(d->loop_db, &d->api_config) : 0;
}

static int setup_loop(struct daemon *d, sd_event_source **wake, sd_event_source **term,
                      sd_event_source **intr, sd_event_source **watchdog) {
        int r = sd_event_default(&d->event);
        if (r < 0)
                return log_error_errno(r, "cannot create the event loop");
        r = sd_event_add_io(d->event, wake, d->wake_fd, EPOLLIN, on_wake, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, term, SIGTERM, on_signal, d);
        if (r >= 0)
                r = sd_event_add_signal(d->event, intr, SIGINT, on_signal, d);
        if (r < 0)
                return log_error_errno(r, "cannot set up the event loop");
        return notify_watchdog_start(d->event, watchdog);
}

static void teardown(struct daemon *d) {
        api_server_stop(d->api);
        d->api = NULL;
        tls_pem_done(&d->tls);
        scheduler_free(d->scheduler);
        d->scheduler = NULL;
        cgroup_manager_free(d->cgroups);
        d->cgroups = NULL;
        root_lock_release(d->root_lock);
        d->root_lock = NULL;
        if (d->loop_db)
                storage_release(d->storage, d->loop_db);
        storage_close(d->storage);
        policy_done(&d->policy);
        explicit_bzero(d->peer_token, sizeof d->peer_token);
        if (d->wake_fd >= 0)
                close(d->wake_fd);
        sd_event_unref(d->event);
}

/* What imports a crash cut short left in the state dir, settled with the store before the API
 * serves; a failure to look costs only space. */
static void clean_import_stages(const char *state_dir, struct db_conn *c) {
        int r = api_imports_clean_stages(state_dir, c);
        if (r < 0)
                log_warning_errno(r, "%s: cannot look for the stages of imports cut short", state_dir);
        else if (r > 0)
                log_info("%s: removed the stages of %d import%s cut short", state_dir, r, r == 1 ? "" : "s");
}

int daemon_run(const struct options *o) {
        struct daemon d = { .options = o, .wake_fd = -1 };
        _cleanup_(sd_event_source_unrefp) sd_event_source *wake = NULL, *term = NULL, *intr = NULL, *watchdog = NULL;
        char token[TOKEN_HEX_LEN + 1];
        int listen_fd = -1, r;
        bool local;

        log_info("slicelabd %s starting (state dir %s)", SLICELAB_VERSION, o->state_dir);
        log_debug("settings: listen %s, config %s, cgroup root %s, max parallel %u, run as %s", o->listen,
                  o->config ? o->config : "(none)", o->cgroup_root, o->max_parallel, o->run_as);
        /* First of all: a daemon that loses this must leave the holder's cgroups alone. A
         * results-only daemon runs nothing: no lock, no run user, no cgroups, no scheduler. */
        r = o->results_only ? 0 : root_lock_take(NULL, o->cgroup_root, &d.root_lock);
        if (r >= 0 && o->results_only)
                d.run_user = (struct run_user){ .uid = geteuid(), .gid = getegid() };
        else if (r >= 0)
                r = resolve_run_as(o, &d.run_user);
        if (r >= 0)
                r = make_policy(o, &d.policy);
        if (r >= 0)
                r = make_peers(&d);
        /* Another user's SUT must traverse to its run directory, and nothing more. */
        if (r >= 0)
                r = state_dir_prepare(o->state_dir, d.run_user.uid != geteuid());
        if (r >= 0)
                r = state_dir_token(o->state_dir, token);
        if (r >= 0)
                r = open_storage(&d);
        if (r >= 0)
                clean_import_stages(o->state_dir, d.loop_db);
        if (r >= 0) {
                d.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
                if (d.wake_fd < 0)
                        r = log_error_errno(negative_errno(), "eventfd");
        }
        if (r >= 0)
                r = setup_loop(&d, &wake, &term, &intr, &watchdog);
        if (r >= 0 && !o->results_only)
                r = start_runs(&d);
        struct listen_socket_perms perms;
        if (r >= 0)
                r = exposure_socket_perms(o, &perms);
        if (r >= 0)
                r = exposure_tls_load(o, &d.tls);
        if (r >= 0)
                r = listen_open(o->listen, &perms, &listen_fd, d.listen_name, sizeof d.listen_name, &local);
        if (r >= 0) {
                r = start_api(&d, listen_fd, local, token);
                if (r < 0)
                        close(listen_fd);
        }
        if (r < 0) {
                wake = sd_event_source_unref(wake);
                term = sd_event_source_unref(term);
                intr = sd_event_source_unref(intr);
                watchdog = sd_event_source_unref(watchdog);
                teardown(&d);
                return 1;
        }

        /* libmicrohttpd listens once MHD_start_daemon returns: only now are we ready. */
        log_info("listening on %s%s", d.listen_name, o->results_only ? " (results only: no experiment runs here)" : "");
        notify_ready("Listening on %s", d.listen_name);
        if (d.scheduler) {
                scheduler_on_settled(d.scheduler, on_settled, &d);
                scheduler_kick(d.scheduler); /* work queued before this start, bisections under way */
        }
        r = sd_event_loop(d.event);
        if (r < 0)
                log_error_errno(r, "event loop failed");

        wake = sd_event_source_unref(wake);
        term = sd_event_source_unref(term);
        intr = sd_event_source_unref(intr);
        watchdog = sd_event_source_unref(watchdog);
        teardown(&d);
        log_info("stopped");
        return r < 0 ? 1 : 0;
}
