/* capacity-search.c: bisection in log-rate for the highest rate that meets the SLAs (see
 * capacity-search.h). */
#include "basic/capacity-search.h"

#include <math.h>

#include "basic/macro.h"

static const char *const outcome_names[_CAPACITY_OUTCOME_MAX] = {
        [CAPACITY_SEARCHING] = "searching",
        [CAPACITY_FOUND] = "found",
        [CAPACITY_RATE_MAX_MET] = "rate_max_met",
        [CAPACITY_RATE_MIN_MISSED] = "rate_min_missed",
        [CAPACITY_SUT_DIED] = "sut_died",
};

const char *capacity_outcome_to_string(enum capacity_outcome o) {
        return (unsigned) o < _CAPACITY_OUTCOME_MAX ? outcome_names[o] : NULL;
}

void capacity_search_init(struct capacity_search *s, double rate_min, double rate_max, double precision) {
        *s = (struct capacity_search){
                .rate_min = rate_min, .rate_max = rate_max, .precision = precision,
                .lo = rate_min, .hi = rate_max,
        };
}

/* Narrow enough: the next bisection would not tell rates apart by more than the precision. */
static bool narrow(const struct capacity_search *s) {
        return s->hi <= s->lo * (1.0 + s->precision);
}

bool capacity_search_next(const struct capacity_search *s, double *ret_rate) {
        if (s->outcome != CAPACITY_SEARCHING)
                return false;
        if (!narrow(s))
                *ret_rate = sqrt(s->lo * s->hi);
        else if (!s->lo_met)
                *ret_rate = s->rate_min;        /* every step missed: does rate_min meet? */
        else
                *ret_rate = s->rate_max;        /* every step met (else search ended): does rate_max? */
        return true;
}

void capacity_search_record(struct capacity_search *s, double rate, bool met) {
        if (s->outcome != CAPACITY_SEARCHING)
                return;
        s->steps++;
        if (met) {
                s->lo = rate;
                s->lo_met = true;
        } else {
                s->hi = rate;
                s->hi_missed = true;
        }
        if (!narrow(s))
                return;
        if (!s->lo_met && rate == s->rate_min && !met)
                s->outcome = CAPACITY_RATE_MIN_MISSED;
        else if (s->lo_met && s->lo == s->rate_max)
                s->outcome = CAPACITY_RATE_MAX_MET;
        else if (s->lo_met && s->hi_missed)
                s->outcome = CAPACITY_FOUND;
        /* else an untested end remains: capacity_search_next() answers it */
        if (s->outcome == CAPACITY_FOUND || s->outcome == CAPACITY_RATE_MAX_MET)
                s->max_rps = s->lo;
}

unsigned capacity_search_max_steps(double rate_min, double rate_max, double precision) {
        /* Simulate the worst case: the bisections never end on a tested end, then one end. */
        struct capacity_search s;
        unsigned bisections = 0;
        capacity_search_init(&s, rate_min, rate_max, precision);
        while (!narrow(&s) && bisections < 64) {
                s.hi = sqrt(s.lo * s.hi);       /* every halving shrinks the log-width alike */
                bisections++;
        }
        /* both ends untested only when no bisection ran: then both may need a step */
        return bisections ? bisections + 1 : 2;
}
