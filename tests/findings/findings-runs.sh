#!/bin/bash
# findings-runs.sh: findings from real runs of slicelab-sut.jar on 2 CPUs (load on CPU 0):
# (a) the seed's three cells scaled (cpus 1; cpus 0-1 at quota 1.0; the same without container
# support) give a throttling finding for the quota cells and an ergonomics finding naming
# ActiveProcessorCount 1 vs 2 and the GC threads; (b) an A/A experiment gives nothing above
# info and says there is no significant difference; (c) a GC-heavy cell against a light one
# gives a gc finding with the share of the slowest requests overlapping a pause, naming the
# real runs. Findings answer from the store after a daemon restart, with a strong ETag. The
# cell without container support has a difference that names the ergonomics finding as a cause.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-f$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)
READY="\"ready\":{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}"

# wait_experiment: until every run of EXP_ID finished.
wait_experiment() {
        local last
        last=$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/runs" | jq -r '.runs[-1].id')
        wait_for 400 run_finished "$last"
}
# kinds FILTER: the findings' "kind/severity/cells" matching a jq select filter, one per line.
findings_of() { curl -s "$DAEMON_URL/v1/experiments/$1/findings${2:+?baseline=$2}"; }

# --- (a) the seed's cells ---------------------------------------------------------------------
# 3 iterations: with 2 a side, Welch's t at the difference rule's 98.75% has 1 to 2 degrees of
# freedom (t 50.9 to 8.9), too wide for any difference these short runs show.
post_experiment "{\"name\":\"seed-findings\",\"iterations\":3,
  \"sut\":{\"command\":[\"java\",\"-Xmx128m\",\"-jar\",\"$JAR\",\"--port\",\"$PORT\"],\"jvm\":true,$READY},
  \"load\":{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=5000&alloc_kb=16\",\"mode\":\"max\",\"connections\":4,
            \"warmup_s\":2,\"measure_s\":3,\"cpus\":\"0\"},
  \"cells\":[{\"name\":\"cpus-1\",\"cpus\":\"1\"},
             {\"name\":\"cpus-0-1-quota-1\",\"cpus\":\"0-1\",\"cpu_quota\":1.0},
             {\"name\":\"cpus-0-1-quota-1-nocs\",\"cpus\":\"0-1\",\"cpu_quota\":1.0,\"jvm_args\":[\"-XX:-UseContainerSupport\"]}]}"
check_eq "(a) the seed experiment is accepted" 201 "$HTTP_STATUS"
SEED=$EXP_ID
wait_experiment
api GET "/v1/experiments/$SEED/findings"
check_eq "(a) findings answer 200" 200 "$HTTP_STATUS"
check_schema "(a) findings" getExperimentFindings 200
F=$BODY
show() { jq -r '.findings[] | "# [\(.severity)] \(.kind): \(.claim | .[0:300])"' <<<"$1"; }
show "$F"
check_eq "(a) the baseline defaults to the first cell" cpus-1 "$(jq -r .baseline <<<"$F")"
for cell in cpus-0-1-quota-1 cpus-0-1-quota-1-nocs; do
        check "(a) a throttling finding (medium or high) for $cell" json_true \
                "[.findings[] | select(.kind == \"throttling\" and (.cells | index(\"$cell\")) and .severity != \"info\")] | length == 1" "$F"
done
check "(a) no throttling finding for the cpuset cell" json_true '[.findings[] | select(.kind == "throttling" and (.cells | index("cpus-1")))] | length == 0' "$F"
erg=$(jq -r '.findings[] | select(.kind == "ergonomics" and (.cells | index("cpus-0-1-quota-1-nocs"))) | .claim' <<<"$F")
check_match "(a) an ergonomics finding names ActiveProcessorCount 2 vs 1" "ActiveProcessorCount 2 vs 1" "$erg"
check_match "(a) and the GC threads or the collector" "ParallelGCThreads 2 vs [01]|gc [A-Za-z0-9]+ vs [A-Za-z0-9]+" "$erg"
# The nocs cell differs from cpus-1 (2 CPUs at quota 1, throttled, and a JVM sized for 2): its
# difference findings name the ergonomics finding as a cause, by id, in causes and in the claim.
ERG_ID=$(jq -r '[.findings[] | select(.kind == "ergonomics" and (.cells | index("cpus-0-1-quota-1-nocs")))][0].id' <<<"$F")
NOCS_DIFF=$(jq -c '[.findings[] | select(.kind == "difference" and (.cells | index("cpus-0-1-quota-1-nocs")) and .causes != null)]' <<<"$F")
echo "# nocs differences: $(jq -r '.[] | "\(.id) \(.causes) \(.claim)"' <<<"$NOCS_DIFF")"
check "(a) the cell without container support has a difference finding" json_true 'length >= 1' "$NOCS_DIFF"
check "(a) each names the ergonomics finding $ERG_ID as a cause, first" json_true \
        "length >= 1 and all(.causes[0] == \"$ERG_ID\")" "$NOCS_DIFF"
check "(a) and says so in its claim" json_true \
        "all(.claim | contains(\"$ERG_ID (ergonomics)\") and contains(\"can explain it\"))" "$NOCS_DIFF"
check "(a) its claim names the level it decided at" json_true \
        'all(.claim | test("[0-9.]+% interval(, Bonferroni over [0-9] metrics)?: "))' "$NOCS_DIFF"
check "(a) its evidence names runs of both cells' values" json_true \
        '[.findings[] | select(.kind == "ergonomics") | .evidence[] | select(.metric == "jvm.ActiveProcessorCount") | .runs | length] | all(. == 3)' "$F"
check "(a) findings are ordered by severity" json_true \
        '[.findings[].severity | {"high":2,"medium":1,"info":0}[.]] as $s | $s == ($s | sort | reverse)' "$F"
api GET "/v1/experiments/$SEED/report"
check "(a) the report carries the same findings" json_true '.findings | length > 0' "$BODY"
check "(a) no interval of a positive metric in the report has a negative bound" json_true \
        '[.cells[].metrics[] | select(.min > 0 and .ci95 != null) | .ci95.low > 0] | all' "$BODY"
check "(a) and each names its method" json_true '[.cells[].metrics[] | .method] | all(. == "log-t" or . == "t-clamped" or . == "t")' "$BODY"
check_schema "(a) the report" getExperimentReport 200
RUN=$(curl -s "$DAEMON_URL/v1/experiments/$SEED/runs" | jq -r '.runs[0].id')
api GET "/v1/runs/$RUN"
if [ -n "$(ls -d /sys/class/powercap/intel-rapl:* 2>/dev/null)" ]; then
        check "(a) with RAPL: the run's joules and joules per request" json_true '.metrics.energy.joules > 0 and .metrics.energy.joules_per_request > 0' "$BODY"
else
        check_eq "(a) without RAPL (this VM): energy is null" null "$(jq -c .metrics.energy <<<"$BODY")"
        check_match "(a) with a warning saying why" "no RAPL energy counters" "$(jq -r '.warnings | join(" | ")' <<<"$BODY")"
fi
check_schema "(a) a run with energy" getRun 200
check "(a) the run records other work on its cell's CPUs: seconds and a share of their capacity" json_true \
        '.metrics.cpu.other_busy_s >= 0 and .metrics.cpu.other_busy_share >= 0 and .metrics.cpu.other_busy_share <= 1.05' "$BODY"
if [ "$(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo)" = 0 ]; then
        check_eq "(a) the SUT slice's swap: 0 on a host without swap" 0 "$(jq -r .metrics.cgroup.swap_bytes <<<"$BODY")"
        check_eq "(a) and the host's swap in use during measure: 0" 0 "$(jq -r .metrics.host_swap_bytes <<<"$BODY")"
fi
check "(a) the host's swap in use during measure is recorded" json_true '.metrics.host_swap_bytes | type == "number"' "$BODY"
api GET "/v1/experiments/$SEED/findings?baseline=nope"
check_eq "(a) an unknown baseline is a 400 naming it" "400 baseline" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/experiments/aaaaaaaaaaaa/findings"
check_eq "an unknown experiment's findings are a 404" 404 "$HTTP_STATUS"
api GET "/v1/experiments/$SEED/findings?limit=3"
check_eq "an unknown query parameter is a 400" 400 "$HTTP_STATUS"

# --- (b) A/A ------------------------------------------------------------------------------------
post_experiment "{\"name\":\"aa\",\"iterations\":2,
  \"sut\":{\"command\":[\"java\",\"-Xmx128m\",\"-XX:+UseSerialGC\",\"-jar\",\"$JAR\",\"--port\",\"$PORT\"],\"jvm\":true,$READY},
  \"load\":{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=200&alloc_kb=16\",\"rate\":100,\"connections\":16,
            \"warmup_s\":2,\"measure_s\":3,\"cpus\":\"0\"},
  \"cells\":[{\"name\":\"a\",\"cpus\":\"1\"},{\"name\":\"a-again\",\"cpus\":\"1\"}]}"
AA=$EXP_ID
wait_experiment
F=$(findings_of "$AA")
# The rules that say why cells differ must stay quiet. An injector finding, and an interference
# finding about work outside the run's slices, are not about the cells but about the machine (on
# this shared 2-CPU host other work can stall the SUT or the injector, and use the cells' CPUs):
# they are checked to be backed by their evidence, and reported, not counted as false.
machine='.kind == "injector" or (.kind == "interference" and [.evidence[].metric] == ["cpu.other_busy_share"])'
check_eq "(b) A/A: no high or medium finding" "" \
        "$(jq -r ".findings[] | select(.severity != \"info\" and ($machine | not)) | \"\(.kind) \(.severity): \(.claim)\"" <<<"$F")"
AA_RUNS=$(for id in $(curl -s "$DAEMON_URL/v1/experiments/$AA/runs" | jq -r '.runs[].id'); do
        curl -s "$DAEMON_URL/v1/runs/$id"; done | jq -s '{runs: .}')
echo "# other work on the A/A cells' CPUs during measure: $(jq -r '[.runs[] | "\(.cell) \(.id): \(.metrics.cpu.other_busy_share * 1000 | round / 10)% (\(.metrics.cpu.other_busy_s * 1000 | round / 1000) s)"] | join("; ")' <<<"$AA_RUNS") (load average $(cut -d' ' -f1-3 /proc/loadavg))"
check "(b) A/A: every run records its other work" json_true '[.runs[] | .metrics.cpu.other_busy_share | type == "number"] | all' "$AA_RUNS"
other=$(jq -c '[.findings[] | select(.kind == "interference")]' <<<"$F")
if [ "$other" != "[]" ]; then
        echo "# the machine's other work used the A/A cells' CPUs: $(jq -r '.[].claim' <<<"$other")"
        above=$(jq -c '[.runs[] | select(.metrics.cpu.other_busy_share > 0.10) | .id] | sort' <<<"$AA_RUNS")
        check_eq "(b) A/A: an interference finding names exactly the runs whose other work passed 10%" "$above" \
                "$(jq -c '[.[].evidence[].runs[]] | sort' <<<"$other")"
fi
inj=$(jq -c '[.findings[] | select(.kind == "injector")]' <<<"$F")
if [ "$inj" != "[]" ]; then
        echo "# the machine disturbed the A/A runs: $(jq -r '.[].claim' <<<"$inj")"
        check "(b) A/A: an injector finding is backed by its evidence (saturated or lag p99 above 1 ms)" json_true \
                'all(.[]; [.evidence[] | select((.metric == "load.saturated" and .value == 1) or (.metric == "latency_us.lag.p99" and .value > 1000))] | length > 0)' "$inj"
fi
check_match "(b) A/A: says there is no significant difference" "no significant difference" \
        "$(jq -r '.findings[] | select(.kind == "difference") | .claim' <<<"$F")"

# --- (c) GC-heavy against light -------------------------------------------------------------------
post_experiment "{\"name\":\"gc\",\"iterations\":2,
  \"sut\":{\"command\":[\"java\",\"-XX:+UseParallelGC\",\"-jar\",\"$JAR\",\"--port\",\"$PORT\"],\"jvm\":true,$READY},
  \"load\":{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=100&alloc_kb=512\",\"rate\":200,\"connections\":8,
            \"warmup_s\":2,\"measure_s\":4,\"cpus\":\"0\"},
  \"cells\":[{\"name\":\"light\",\"cpus\":\"1\",\"jvm_args\":[\"-Xms768m\",\"-Xmx768m\",\"-Xmn600m\"]},
             {\"name\":\"heavy\",\"cpus\":\"1\",\"jvm_args\":[\"-Xms24m\",\"-Xmx24m\",\"-Xmn6m\"]}]}"
GC=$EXP_ID
wait_experiment
F=$(findings_of "$GC")
show "$F"
gcf=$(jq -c '[.findings[] | select(.kind == "gc" and (.cells | index("heavy")))][0]' <<<"$F")
check_match "(c) a gc finding for the heavy cell, medium or high" '"severity":"(medium|high)"' "$gcf"
check_match "(c) its claim gives the overlap share of the slowest requests, above 0" "[1-9][0-9]*% of the requests at or above p99 in cell heavy" "$(jq -r .claim <<<"$gcf")"
runs=$(curl -s "$DAEMON_URL/v1/experiments/$GC/runs" | jq -c '[.runs[] | select(.cell == "heavy") | .id] | sort')
check_eq "(c) the overlap evidence names the heavy cell's real runs" "$runs" \
        "$(jq -c '[.evidence[] | select(.metric == "tail.gc_overlap_share") | .runs[]] | sort' <<<"$gcf")"

# --- (d) other work on a cell's CPU ------------------------------------------------------------------
# A busy loop outside the daemon's slices, pinned to the cell's CPU through the measure phase:
# it takes about half of that CPU from the SUT, which the run records and the rule names.
timeout 300 taskset -c 1 bash -c 'while :; do :; done' &
HOG=$!
post_experiment "{\"name\":\"other-work\",\"iterations\":1,
  \"sut\":{\"command\":[\"java\",\"-Xmx64m\",\"-XX:+UseSerialGC\",\"-jar\",\"$JAR\",\"--port\",\"$PORT\"],\"jvm\":true,$READY},
  \"load\":{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=200\",\"rate\":100,\"connections\":16,
            \"warmup_s\":1,\"measure_s\":2,\"cpus\":\"0\"},
  \"cells\":[{\"name\":\"shared\",\"cpus\":\"1\"}]}"
OTHER=$EXP_ID
wait_experiment
kill "$HOG"
wait "$HOG" 2>/dev/null
RUN=$(curl -s "$DAEMON_URL/v1/experiments/$OTHER/runs" | jq -r '.runs[0].id')
api GET "/v1/runs/$RUN"
echo "# (d) with a busy loop on the cell's CPU: other work $(jq -r '.metrics.cpu | "\(.other_busy_s) s, share \(.other_busy_share)"' <<<"$BODY")"
check "(d) a busy loop on the cell's CPU is other work: a third of its capacity or more" json_true '.metrics.cpu.other_busy_share >= 0.33' "$BODY"
F=$(findings_of "$OTHER")
check_eq "(d) an interference finding names the run by its other work" "[\"$RUN\"]" \
        "$(jq -c '[.findings[] | select(.kind == "interference") | .evidence[] | select(.metric == "cpu.other_busy_share") | .runs[]]' <<<"$F")"

# --- after a restart, from the store; ETag on finished experiments ----------------------------------
before=$(findings_of "$SEED" | jq -S .)
daemon_stop
daemon_start --cgroup-root "slicelab-f$$" || { not_ok "daemon restarts"; finish; exit 1; }
check_eq "findings are the same after a restart (computed from the store)" "$before" "$(findings_of "$SEED" | jq -S .)"
etag=$(curl -s -D - -o /dev/null "$DAEMON_URL/v1/experiments/$SEED/findings" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" { print $2 }')
check_match "a finished experiment's findings carry a strong ETag" '^"[0-9a-f]{16}"$' "$etag"
check_eq "and answer 304 to If-None-Match" 304 "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$DAEMON_URL/v1/experiments/$SEED/findings")"
finish
