/* definition-split.c: a load spread over hosts (load.hosts): each host's rate, uniform phase and
 * Poisson seed, so that the hosts together send the definition's schedule.
 *
 * Rates: host i sends rate x share_i / sum of shares. Poisson: every host draws its own
 * exponential gaps from a seed of its own (splitmix64 of the run's seed), and a superposition of
 * independent Poisson processes is the Poisson process of the summed rate.
 * Uniform: the union of n evenly spaced streams is evenly spaced, at 1/rate, exactly when the
 * streams' periods measured in those slots (q_i = sum / share_i) are integers that fill the
 * slots without collision. When they are integers and, in ascending order, each divides the
 * next (equal shares; 2:1:1; 4:2:1:1, ...), taking hosts from the shortest period and giving
 * each the first free slot as its phase fills them all (the free slots left by harmonic
 * periods are whole residue classes), so the union is exact: equal shares give host i the
 * phase i / rate, i.e. i/(n x its own rate). Otherwise no phases can make it even (the periods
 * do not tile); each host then starts i/n of its own period late, which keeps the hosts'
 * arrivals from coinciding at the start and leaves the total rate exact, and the caller is told
 * the union is not evenly spaced. */
#include <math.h>
#include <stdlib.h>

#include "basic/random.h"
#include "basic/time-util.h"
#include "definition/definition-internal.h"

/* slots of the exact tiling: beyond this the shares are too fine for a bitmap to be worth it */
#define SPLIT_SLOTS_MAX (1u << 20)

static int cmp_period(const void *a, const void *b) {
        const uint64_t *x = a, *y = b; /* {period, index} pairs */
        if (x[0] != y[0])
                return x[0] < y[0] ? -1 : 1;
        return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Integer periods in slots, sorted with their host index, when they are harmonic; else false. */
static bool harmonic_periods(const struct definition_load *l, double sum, uint64_t (*order)[2]) {
        for (size_t i = 0; i < l->n_hosts; i++) {
                double q = sum / l->hosts[i].share, r = round(q);
                if (r < 1 || r > SPLIT_SLOTS_MAX || fabs(q - r) > 1e-9 * q)
                        return false;
                order[i][0] = (uint64_t) r;
                order[i][1] = i;
        }
        qsort(order, l->n_hosts, sizeof *order, cmp_period);
        for (size_t i = 1; i < l->n_hosts; i++)
                if (order[i][0] % order[i - 1][0] != 0)
                        return false;
        return true;
}

/* Each host the first free slot, from the shortest period; false when a host finds none before
 * its period ends (the shares' slots overlap). */
static int tile(const struct definition_load *l, uint64_t (*order)[2], struct definition_host_load *ret,
                bool *ret_even) {
        uint64_t slots = order[l->n_hosts - 1][0];
        _cleanup_free_ bool *used = calloc(slots, sizeof *used);
        if (!used)
                return -ENOMEM;
        double slot_ns = (double) NSEC_PER_SEC / l->rate;
        for (size_t k = 0; k < l->n_hosts; k++) {
                uint64_t q = order[k][0], f = 0;
                while (f < q && used[f])
                        f++;
                if (f == q) {
                        *ret_even = false;
                        return 0;
                }
                for (uint64_t s = f; s < slots; s += q)
                        used[s] = true;
                ret[order[k][1]].phase_ns = (int64_t) llround((double) f * slot_ns);
        }
        *ret_even = true;
        return 0;
}

int definition_load_split(const struct definition_load *l, uint64_t seed, struct definition_host_load *ret,
                          bool *ret_even) {
        size_t n = l->n_hosts;
        double sum = 0;
        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                sum += l->hosts[i].share;

        _cleanup_free_ struct definition_host_load *split = calloc(n, sizeof *split);
        _cleanup_free_ uint64_t(*order)[2] = calloc(n, sizeof *order);
        if (!split || !order)
                return -ENOMEM;
        uint64_t state = seed;
        for (size_t i = 0; i < n; i++) {
                split[i].rate = l->mode == DEFINITION_MODE_RATE ? l->rate * l->hosts[i].share / sum : 0;
                /* exact in JSON (a double) and never 0, which some generators treat apart */
                split[i].seed = (splitmix64(&state) & DEFINITION_SEED_MAX) | 1;
        }
        bool even = l->mode != DEFINITION_MODE_RATE || l->arrival != DEFINITION_ARRIVAL_UNIFORM || n == 1;
        if (!even && harmonic_periods(l, sum, order)) {
                int r = tile(l, order, split, &even);
                if (r < 0)
                        return r;
        }
        if (!even)
                for (size_t i = 0; i < n; i++)
                        split[i].phase_ns = (int64_t) ((double) NSEC_PER_SEC / split[i].rate * (double) i / (double) n);
        for (size_t i = 0; i < n; i++)
                ret[i] = split[i];
        *ret_even = even;
        return 0;
}
