/* rule-injector.c: runs in which the injector did not keep its schedule (saturated, or lag p99
 * above 1 ms): that cell's results describe the injector as much as the server, so the
 * finding is high and names the cause its evidence supports: every connection busy (most late
 * requests were late from an ideal injector too, load.late; for runs without that account, rate
 * x worst latency from submit above the connections), the injector's CPUs exhausted (its slice
 * used 90% of them, or was throttled) or shared with the SUT, the injector not running (most of
 * its own late requests waited through a stall of 1 ms or more, load.late.stalled: a stolen
 * vCPU, another task on its CPUs), else its own pace or late wakeups. A run whose load came from
 * load hosts names the host that fell behind most. */
#include "findings/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/cpulist.h"
#include "basic/latency.h"
#include "basic/macro.h"

#define LAG_P99_MAX_US (LATENCY_LATE_NS / 1000.0)
#define CPU_EXHAUSTED 0.9

static double def_number(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool def_cpus(const cJSON *o, struct cpulist *ret) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "cpus"));
        return s && cpulist_parse(s, ret) >= 0;
}

/* The injector's own account of its late requests (load.late, from replaying the timeline
 * with an ideal injector): 1 when most were the server's, 0 when most were its own, -1 when the
 * run has none (older runs, the closed loop, a summary without it). */
static int late_mostly_server(const struct findings_run *run, double *ret_late, double *ret_server) {
        double late, server;
        if (!findings_metric(run, "load.late.requests", &late) || !findings_metric(run, "load.late.server", &server) ||
            late <= 0)
                return -1;
        *ret_late = late;
        *ret_server = server;
        return server * 2 > late;
}

/* A run whose load came from load hosts (metrics.load.hosts): the host that fell behind most,
 * a saturated one first, then the largest lag p99, with its own account of its late requests.
 * The coordinator's load slice ran nothing, so its CPU figures say nothing of the injectors. */
static bool host_cause(const struct findings_run *run, char *buf, size_t size) {
        const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run->metrics, "load"), "hosts");
        const cJSON *h, *worst = NULL;
        double worst_lag = -1;
        bool worst_sat = false;
        if (!cJSON_IsArray(hosts))
                return false;
        cJSON_ArrayForEach(h, hosts) {
                bool sat = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "saturated"));
                double lag = def_number(h, "lag_p99_us");
                lag = isfinite(lag) ? lag : 0;
                if (!worst || (sat && !worst_sat) || (sat == worst_sat && lag > worst_lag)) {
                        worst = h;
                        worst_lag = lag;
                        worst_sat = sat;
                }
        }
        const char *name = worst ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(worst, "host")) : NULL;
        if (!name) {
                snprintf(buf, size, "the load hosts' injectors (none reported its figures)");
                return true;
        }
        const cJSON *late = cJSON_GetObjectItemCaseSensitive(worst, "late");
        double requests = def_number(late, "requests"), server = def_number(late, "server"),
               stalled = def_number(late, "stalled"), own = def_number(late, "injector");
        if (isfinite(requests) && requests > 0 && isfinite(server) && isfinite(stalled) && isfinite(own))
                snprintf(buf, size, "load host %s fell behind most (%slag p99 %.2f ms): of its %.0f late requests %.0f were the server's (no connection free), %.0f waited through a stall of its injector and %.0f were its own pace; see that host's CPUs and connections",
                         name, worst_sat ? "saturated, " : "", worst_lag / 1000, requests, server, stalled, own);
        else
                snprintf(buf, size, "load host %s fell behind most (%slag p99 %.2f ms); see that host's CPUs and connections", name,
                         worst_sat ? "saturated, " : "", worst_lag / 1000);
        return true;
}

/* The cause, as a sentence, from the strongest evidence first. */
static void cause_of(const struct findings_input *in, const struct findings_cell *cell, const struct findings_run *run,
                     char *buf, size_t size) {
        const cJSON *load = cJSON_GetObjectItemCaseSensitive(in->definition, "load");
        double rate = def_number(load, "rate"), conns = def_number(load, "connections");
        double measure_s = def_number(load, "measure_s"), worst_us, used_s, throttled, late = 0, server = 0;
        int account = late_mostly_server(run, &late, &server);
        if (account == 1) {
                snprintf(buf, size, "every connection was busy: %.0f of its %.0f late requests would have been late from an ideal injector too, as no connection was free while the server answered (use more connections than rate x worst latency, or a lower rate)",
                         server, late);
                return;
        }
        if (account < 0 && isfinite(rate) && isfinite(conns) && findings_metric(run, "latency_us.submit.max", &worst_us)) {
                double need = ceil(rate * worst_us / 1e6);
                if (need > conns) {
                        snprintf(buf, size, "every connection was busy: %.0f req/s x %.1f ms worst latency needs %.0f connections, it had %.0f (use at least rate x worst latency)",
                                 rate, worst_us / 1000, need, conns);
                        return;
                }
        }
        if (host_cause(run, buf, size))
                return;
        struct cpulist lc, sc;
        bool have_lc = def_cpus(load, &lc);
        if (findings_metric(run, "load.nr_throttled", &throttled) && throttled > 0) {
                snprintf(buf, size, "the injector's slice was throttled %.0f times: its CPU was exhausted", throttled);
                return;
        }
        if (have_lc && isfinite(measure_s) && measure_s > 0 && findings_metric(run, "load.cpu_usage_s", &used_s) &&
            used_s >= CPU_EXHAUSTED * measure_s * cpulist_count(&lc)) {
                snprintf(buf, size, "the injector's CPU was exhausted: %.1f s of CPU in %.0f s on %u CPUs", used_s, measure_s,
                         cpulist_count(&lc));
                return;
        }
        if (!have_lc || !def_cpus(cell->def, &sc) || cpulist_intersects(&lc, &sc)) {
                snprintf(buf, size, "the injector shared CPUs with the SUT%s", have_lc ? "" : " (load.cpus not set)");
                return;
        }
        double stalled = 0;
        if (account == 0 && findings_metric(run, "load.late.stalled", &stalled) && stalled * 2 > late - server)
                snprintf(buf, size, "the injector was not running: %.0f of its %.0f late requests were due while it neither sent nor received anything for 1 ms or more, though a connection was free (a stolen vCPU, another task on its CPUs, a page fault or blocking I/O)",
                         stalled, late);
        else if (account == 0)
                snprintf(buf, size, "the injector itself: %.0f of its %.0f late requests had a free connection when due and it had CPU to spare, so it woke late or could not keep the rate's pace (timer slack, too few threads)",
                         late - server - stalled, late);
        else
                snprintf(buf, size, "late wakeups: connections were free and the injector had CPU to spare, so its timers fired late (another task on its CPUs, or timer slack)");
}

void findings_rule_injector(const struct findings_input *in, cJSON *out) {
        for (size_t ci = 0; ci < in->n_cells; ci++) {
                const struct findings_cell *cell = &in->cells[ci];
                for (size_t i = 0; i < cell->n_runs; i++) {
                        const struct findings_run *run = &cell->runs[i];
                        double lag = NAN;
                        const cJSON *sat = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run->metrics, "load"), "saturated");
                        bool saturated = cJSON_IsTrue(sat);
                        bool lagging = findings_metric(run, "latency_us.lag.p99", &lag) && lag > LAG_P99_MAX_US;
                        if (!saturated && !lagging)
                                continue;
                        char cause[400], claim[800];
                        cause_of(in, cell, run, cause, sizeof cause);
                        snprintf(claim, sizeof claim,
                                 "in cell %s run %s (iteration %u) the injector fell behind its schedule (%slag p99 %.2f ms): %s; this cell's results are suspect",
                                 cell->name, run->id, run->iteration, saturated ? "saturated, " : "", isfinite(lag) ? lag / 1000 : 0, cause);
                        cJSON *f = findings_append(out, "injector", FINDING_HIGH, isfinite(lag) ? lag : 0, claim,
                                                   "fix the cause and run the cell again: more connections, more or dedicated CPUs for load.cpus, a lower rate");
                        findings_add_cell(f, cell->name);
                        const char *ids[] = { run->id };
                        findings_add_evidence_runs(f, "latency_us.lag.p99", cell->name, lag, NAN, ids, 1);
                        findings_add_evidence_runs(f, "load.saturated", cell->name, saturated ? 1 : 0, NAN, ids, 1);
                        static const char *const accounts[] = { "load.late.server", "load.late.stalled" };
                        for (size_t k = 0; k < ELEMENTSOF(accounts); k++) {
                                double v;
                                if (findings_metric(run, accounts[k], &v))
                                        findings_add_evidence_runs(f, accounts[k], cell->name, v, NAN, ids, 1);
                        }
                }
        }
}
