/* loop-thread.c: a worker thread reporting to the loop through an eventfd (see loop-thread.h). */
#include "daemon/loop-thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/time-util.h"

struct loop_thread {
        pthread_t thread;
        bool started, joined;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        unsigned pending;               /* under lock: events not yet reported */
        bool returned;                  /* under lock: main() is over */
        int efd;
        sd_event_source *source;
        loop_thread_main_fn main;
        loop_thread_report_fn report;
        void *userdata;
};

static void wake_loop(struct loop_thread *t) {
        uint64_t one = 1;
        /* An eventfd write of 8 bytes only fails on overflow, which these writes cannot reach. */
        (void) !write(t->efd, &one, sizeof one);
}

static void *thread_main(void *arg) {
        struct loop_thread *t = arg;
        t->main(t, t->userdata);
        pthread_mutex_lock(&t->lock);
        t->returned = true;
        pthread_mutex_unlock(&t->lock);
        wake_loop(t);
        return NULL;
}

void loop_thread_join(struct loop_thread *t) {
        if (t->started && !t->joined) {
                pthread_join(t->thread, NULL);
                t->joined = true;
        }
        t->source = sd_event_source_disable_unref(t->source);
}

static int on_wakeup(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct loop_thread *t = userdata;
        uint64_t n;
        (void) !read(fd, &n, sizeof n);
        pthread_mutex_lock(&t->lock);
        unsigned events = t->pending;
        bool returned = t->returned;
        t->pending = 0;
        pthread_mutex_unlock(&t->lock);
        if (returned)
                loop_thread_join(t);
        if (events || returned)
                t->report(t, events, returned, t->userdata);
        return 0;
}

int loop_thread_new(sd_event *e, loop_thread_report_fn report, void *userdata, struct loop_thread **ret) {
        struct loop_thread *t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        *t = (struct loop_thread){ .efd = -1, .report = report, .userdata = userdata };
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&t->cond, &ca);
        pthread_condattr_destroy(&ca);
        pthread_mutex_init(&t->lock, NULL);
        t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        int r = t->efd < 0 ? negative_errno() : sd_event_add_io(e, &t->source, t->efd, EPOLLIN, on_wakeup, t);
        if (r < 0) {
                loop_thread_free(t);
                return r;
        }
        *ret = t;
        return 0;
}

int loop_thread_start(struct loop_thread *t, loop_thread_main_fn main) {
        if (t->started)
                return -EBUSY;
        t->main = main;
        int r = -pthread_create(&t->thread, NULL, thread_main, t);
        if (r < 0)
                return r;
        t->started = true;
        return 0;
}

void loop_thread_post(struct loop_thread *t, unsigned event) {
        pthread_mutex_lock(&t->lock);
        t->pending |= 1u << event;
        pthread_mutex_unlock(&t->lock);
        wake_loop(t);
}

void loop_thread_set(struct loop_thread *t, bool *flag) {
        pthread_mutex_lock(&t->lock);
        *flag = true;
        pthread_cond_broadcast(&t->cond);
        pthread_mutex_unlock(&t->lock);
}

bool loop_thread_get(struct loop_thread *t, const bool *flag) {
        pthread_mutex_lock(&t->lock);
        bool v = *flag;
        pthread_mutex_unlock(&t->lock);
        return v;
}

bool loop_thread_take(struct loop_thread *t, bool *flag) {
        pthread_mutex_lock(&t->lock);
        bool v = *flag;
        *flag = false;
        pthread_mutex_unlock(&t->lock);
        return v;
}

bool loop_thread_wait(struct loop_thread *t, const bool *flag, int64_t until_ns) {
        struct timespec until = timespec_from_ns(until_ns);
        pthread_mutex_lock(&t->lock);
        while (!*flag && (until_ns < 0 ? pthread_cond_wait(&t->cond, &t->lock) : pthread_cond_timedwait(&t->cond, &t->lock, &until)) == 0)
                ;
        bool v = *flag;
        pthread_mutex_unlock(&t->lock);
        return v;
}

struct loop_thread *loop_thread_free(struct loop_thread *t) {
        if (!t)
                return NULL;
        loop_thread_join(t);
        if (t->efd >= 0)
                close(t->efd);
        pthread_cond_destroy(&t->cond);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
}
