/* energy.c: joules over the measure phase from wrapping RAPL counters (see energy.h). */
#include "daemon/energy.h"

#include <string.h>

/* Sum of one domain's deltas over the readings in time order, one wrap undone per step. */
static uint64_t domain_uj(const struct host_rapl *rapl, size_t d, const struct collect_baseline *start,
                          const struct samples *series, const struct collect_baseline *end) {
        uint64_t sum = 0, prev = start->energy_uj[d];
        uint64_t range = rapl->d[d].max_range_uj;
        for (size_t i = 0; series && i < series->n; i++) {
                const struct sample_point *p = &series->points[i];
                if (!p->has_energy || p->t_ns <= start->t_ns || p->t_ns >= end->t_ns)
                        continue;
                sum += host_rapl_delta(prev, p->energy_uj[d], range);
                prev = p->energy_uj[d];
        }
        return sum + host_rapl_delta(prev, end->energy_uj[d], range);
}

cJSON *energy_measure_json(const struct host_rapl *rapl, const struct collect_baseline *start,
                           const struct samples *series, const struct collect_baseline *end, double requests) {
        if (!rapl || !start || !end || !start->has_energy || !end->has_energy)
                return NULL;
        cJSON *o = cJSON_CreateObject();
        cJSON *domains = cJSON_CreateObject();
        double total = 0;
        for (size_t d = 0; d < rapl->n; d++) {
                double j = (double) domain_uj(rapl, d, start, series, end) / 1e6;
                if (rapl->d[d].package)
                        total += j;
                if (!cJSON_GetObjectItemCaseSensitive(domains, rapl->d[d].name))
                        cJSON_AddNumberToObject(domains, rapl->d[d].name, j);
        }
        cJSON_AddNumberToObject(o, "joules", total);
        if (requests > 0)
                cJSON_AddNumberToObject(o, "joules_per_request", total / requests);
        else
                cJSON_AddNullToObject(o, "joules_per_request");
        cJSON_AddItemToObject(o, "domains", domains);
        return o;
}
