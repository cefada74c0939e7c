/* calibrate.c: wakeup lateness per candidate spin, and the choice.
 *
 * For a candidate spin S the loop sleeps gap - S, then spins to the due time; a request is late
 * by however much the wakeup's lateness exceeds S. So each candidate is measured as the loop
 * would live it: sleeps of gap - S on an epoll instance (the loop's own way of sleeping, on its
 * CPU), each wakeup's lateness L recorded, and the expected lag is p99 of max(0, L - S). Sleep
 * length matters on VMs: a short sleep may be caught by the hypervisor's halt polling where a
 * long one is not, which is why every candidate is measured rather than one lateness assumed.
 * The smallest candidate that meets the goal wins; if none does, the one with the lowest
 * expected lag (and the result says it was bounded). */
#include "injector/calibrate.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/stats.h"
#include "basic/time-util.h"

#define SAMPLES_MAX 200
#define SAMPLES_MIN 40
#define CANDIDATE_PROBE_NS (40 * NSEC_PER_MSEC)     /* time spent measuring one candidate */
#define GAP_MAX_NS (5 * NSEC_PER_MSEC)              /* longer gaps are measured as 5 ms sleeps */

static const int64_t candidates_us[] = { 20, 50, 100, 150, 200, 300, 400, 600, 800, 1000 };

/* Sleep for ns on epfd (nothing ever ready on it); the lateness of the wakeup. */
static int64_t sleep_late(int epfd, int64_t ns) {
        struct epoll_event ev;
        int64_t target = now_mono_ns() + ns;
        struct timespec ts = timespec_from_ns(ns);
        if (epoll_pwait2(epfd, &ev, 1, &ts, NULL) < 0 && errno == ENOSYS) {
                struct timespec abs = timespec_from_ns(target);
                (void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
        }
        return MAX(now_mono_ns() - target, INT64_C(0));
}

static int compare_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

/* n lateness samples of sleeps of sleep_ns into late[] (sorted). */
static void probe(int epfd, int64_t sleep_ns, int64_t *late, unsigned n) {
        for (unsigned i = 0; i < n; i++)
                late[i] = sleep_late(epfd, sleep_ns);
        qsort(late, n, sizeof *late, compare_i64);
}

static int64_t lag_p99(const int64_t *late, unsigned n, int64_t spin) {
        int64_t lag[SAMPLES_MAX];
        for (unsigned i = 0; i < n; i++)
                lag[i] = MAX(late[i] - spin, INT64_C(0));
        return stats_percentile_sorted_i64(lag, n, 99);   /* still sorted: shifted and clamped */
}

int calibrate_wakeups(int64_t gap_ns, double budget, struct calibration *ret) {
        _cleanup_close_ int epfd = epoll_create1(EPOLL_CLOEXEC);
        if (epfd < 0)
                return negative_errno();
        int64_t gap = MIN(gap_ns, GAP_MAX_NS);
        unsigned n = (unsigned) MAX(MIN(CANDIDATE_PROBE_NS / MAX(gap, INT64_C(1)), SAMPLES_MAX), SAMPLES_MIN);
        struct calibration c = {
                .outcome = CALIBRATE_RAN,
                .gap_ns = gap_ns,
                .budget_spin_ns = MIN((int64_t) (budget * (double) gap_ns), NSEC_PER_MSEC),
                .samples = n,
                .bounded = true,
                .expected_lag_p99_ns = INT64_MAX,
        };
        int64_t late[SAMPLES_MAX];
        probe(epfd, gap, late, n);
        c.late_p50_ns = stats_percentile_sorted_i64(late, n, 50);
        c.late_p99_ns = stats_percentile_sorted_i64(late, n, 99);
        for (size_t i = 0; i < ELEMENTSOF(candidates_us); i++) {
                /* The first candidate is the spin without calibration, or what the budget allows. */
                int64_t spin = i == 0 ? MIN(CALIBRATE_MIN_SPIN_NS, c.budget_spin_ns) : candidates_us[i] * NSEC_PER_USEC;
                if (spin > c.budget_spin_ns)
                        break;
                if (spin >= gap)
                        break;
                probe(epfd, gap - spin, late, n);
                int64_t lag = lag_p99(late, n, spin);
                if (lag < c.expected_lag_p99_ns) {
                        c.spin_ns = spin;
                        c.expected_lag_p99_ns = lag;
                }
                if (lag <= CALIBRATE_LAG_GOAL_NS) {
                        c.spin_ns = spin;
                        c.expected_lag_p99_ns = lag;
                        c.bounded = false;
                        break;
                }
        }
        if (c.expected_lag_p99_ns == INT64_MAX) {   /* gap shorter than any spin: spin it all */
                c.spin_ns = MIN(gap_ns, c.budget_spin_ns);
                c.expected_lag_p99_ns = 0;
        }
        *ret = c;
        return 0;
}

const char *calibrate_outcome_name(enum calibrate_outcome o) {
        static const char *const names[] = {
                [CALIBRATE_RAN] = "ran",
                [CALIBRATE_SPIN_GIVEN] = "spin_given",
                [CALIBRATE_NOT_OPEN_LOOP] = "not_open_loop",
                [CALIBRATE_TICKING] = "ticking",
        };
        return o < ELEMENTSOF(names) ? names[o] : "unknown";
}
