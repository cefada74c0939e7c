#!/bin/bash
# warmup-auto-runs.sh: load.warmup_s "auto" (issue 36, item 4) with a real JVM: slicelab-sut.jar
# from a cold JVM at a CPU-heavy /work, warmed until the daemon finds it steady (its JIT quiet,
# its latency per second in one segment for 5 s), at most warmup_max_s. The run measured from
# there: its metrics say the warmup it had and that it was steady, the state history says why, the
# steady-state series' measure start is the same instant, every warmup record of the timeline was
# scheduled before it and every measured one after, and the jit finding (compile time in the
# measure window) does not fire; the report's warmup per cell is the run's, steady, and slicelab
# report's warmup column shows its seconds. The definition keeps "auto" and warmup_max_s; "auto"
# without warmup_max_s, or warmup_max_s without "auto", is a 400 naming the field (the definition
# table tests/definition/bad-definitions.tsv holds the other refusals). Then "auto" in each round's
# runs of a stop rule (issue 37): every run has its own warmup and says how it ended, the rule decides.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-wa$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port 1)
MAX=90

READY="{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}"
# cold_jvm LOAD-MEMBERS: the JVM from cold at 100 req/s on cell a, the load's members merged in.
cold_jvm() {
        definition --name "warmup until steady" --jvm --ready "$READY" \
                --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=300\",\"rate\":100,\"measure_s\":4,\"cpus\":\"0\"}" \
                --merge "{\"load\":$1}" --cell a:1 -- java -XX:+UseSerialGC -jar "$JAR" --port "$PORT"
}

post_experiment "$(cold_jvm '{"warmup_s":"auto"}')"
check_eq "\"auto\" without warmup_max_s: a 400 naming it" "400 load.warmup_max_s" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
post_experiment "$(cold_jvm '{"warmup_s":10,"warmup_max_s":60}')"
check_eq "warmup_max_s without \"auto\": a 400 naming it" "400 load.warmup_max_s" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"

post_experiment "$(cold_jvm "{\"warmup_s\":\"auto\",\"warmup_max_s\":$MAX}")"
check_eq "a definition with warmup \"auto\" is accepted" 201 "$HTTP_STATUS"
check_schema "its answer" createExperiment 201
check_eq "its cost counts warmup_max_s whole: a run's phases are warmup_max_s + measure_s" "$((MAX + 4))" \
        "$(jq -r .cost.run_phases_s <<<"$BODY")"
wait_for 300 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"
check_eq "the experiment succeeded" succeeded "$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID" | jq -r .status)"
check_eq "the stored definition keeps \"auto\" and its bound" "auto $MAX" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID" | jq -r '"\(.definition.load.warmup_s) \(.definition.load.warmup_max_s)"')"
RUN=$(first_run "$EXP_ID")
api GET "/v1/runs/$RUN"
check_schema "the run" getRun 200
RUN_BODY=$BODY
echo "# warmup_s $(jq -r .metrics.warmup_s <<<"$RUN_BODY"); $(jq -r .metrics.warmup_auto.message <<<"$RUN_BODY")"
echo "# jit: $(jq -c .metrics.jit <<<"$RUN_BODY"); steady state: $(jq -c '.metrics.steady_state | {class, start_s, measure_start_s}' <<<"$RUN_BODY")"
check_eq "the run was steady before warmup_max_s" true "$(jq -r .metrics.warmup_auto.steady <<<"$RUN_BODY")"
check "its warmup lasted at least the 5 s the checks need, and ended before warmup_max_s" json_true \
        ".metrics.warmup_s >= 5 and .metrics.warmup_s < $MAX" "$RUN_BODY"
check "the steady-state series' measure start is the same instant (within 1 ms)" json_true \
        '(.metrics.steady_state.measure_start_s - .metrics.warmup_s) | fabs < 0.001' "$RUN_BODY"
check_match "the state history says why measuring began" "warmup \"auto\": steady: the JIT compiled [0-9.]+ ms/s over the last 5 s" \
        "$(jq -r '.states[] | select(.state == "measuring") | .message' <<<"$RUN_BODY")"
# The timeline's phases, from the injector's own flags, against the header's measure start.
api GET "/v1/runs/$RUN/timeline?phase=all&limit=100000"
MEASURE_START=$(jq -r .metrics.measure_start_ns <<<"$RUN_BODY")
check_eq "the page's measure start is the run's" "$MEASURE_START" "$(jq -r .measure_start_ns <<<"$BODY")"
check_eq "every warmup record was scheduled before the measure start and every measured one after" 0 \
        "$(jq --argjson m "$MEASURE_START" '[. as $p | range(0; .count) |
            select((($p.flags[.] % 2) == 1) != ($p.scheduled_ns[.] < $m))] | length' <<<"$BODY")"
check "and the measure phase holds about measure_s x rate requests" json_true \
        '[.flags[] | select(. % 2 == 0)] | length >= 300 and length <= 420' "$BODY"
api GET "/v1/experiments/$EXP_ID/findings"
echo "# findings: $(jq -c '[.findings[] | .rule]' <<<"$BODY")"
check_eq "the jit finding does not fire: the JIT was quiet in the measure window" 0 \
        "$(jq '[.findings[] | select(.rule == "jit")] | length' <<<"$BODY")"
# The report shows the warmup: the cell's is its one run's metrics.warmup_s, found steady.
WARMUP=$(jq -r .metrics.warmup_s <<<"$RUN_BODY")
api GET "/v1/experiments/$EXP_ID/report"
check_schema "the report" getExperimentReport 200
echo "# report's warmup: $(jq -c '.cells[0].warmup' <<<"$BODY")"
check "the cell's warmup min_s and max_s are the run's metrics.warmup_s (within 1e-6)" json_true \
        ".cells[0].warmup | ((.min_s - $WARMUP) | fabs) < 1e-6 and ((.max_s - $WARMUP) | fabs) < 1e-6" "$BODY"
check_eq "over its one run, which was found steady" "1 1 0" \
        "$(jq -r '.cells[0].warmup | "\(.runs) \(.auto.steady) \(.auto.not_steady)"' <<<"$BODY")"
OUT=$("$BUILD/client/slicelab" --url "$DAEMON_URL" report "$EXP_ID")
check_eq "slicelab report of it exits 0" 0 "$?"
echo "$OUT" | sed -n '3,4s/^/# /p'
check_match "slicelab report's table has a warmup column" "^cell .* governor +warmup +steady state " "$(sed -n 3p <<<"$OUT")"
check_match "which shows the run's seconds, all its runs steady" "^a .* $(printf %.1f "$WARMUP") s +[0-9-]" \
        "$(grep '^a ' <<<"$OUT")"

# --- "auto" inside each round's runs of a stop rule (issue 37) ------------------------------------
# Each run of each round warms until steady or for warmup_max_s at most (its least, 10 s), and the
# rule compares what the runs measured from there: at a fixed rate the throughput, equivalent
# (within 3%) under a quota the SUT does not need. Level 0.5 bounds the sequence from round 2.
# C1 only (-XX:TieredStopAtLevel=1): a JIT quiet sooner, so that some runs end their warmup early.
post_experiment "$(definition --name "warmup auto under a stop rule" --jvm --ready "$READY" \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=100\",\"rate\":100,\"measure_s\":2,\"cpus\":\"0\",
                 \"warmup_s\":\"auto\",\"warmup_max_s\":10}" \
        --cell a:1 --cell half:1:0.5 \
        --merge '{"iterations":{"min":2,"max":3},"stop":{"metrics":["throughput_rps"],"level":0.5}}' \
        -- java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$JAR" --port "$PORT")"
check_eq "warmup \"auto\" with iterations {min, max} and a stop rule is accepted, a run's phases warmup_max_s + measure_s" \
        "201 12" "$HTTP_STATUS $(jq -r .cost.run_phases_s <<<"$BODY")"
SX=$EXP_ID
wait_for 600 experiment_finished "$SX" || not_finished "$SX"
sequential_of "$SX"
check_schema "the report of warmup \"auto\" under a stop rule" getExperimentReport 200
REPORT=$BODY
check_eq "stop rule: decided, half's throughput equivalent to a's" "decided half a throughput_rps equivalent" \
        "$(sequential_decisions)"
SXRUNS=$(experiment_runs "$SX")
echo "# its runs: $(jq -c '[.[] | [.cell, .iteration, .state, .metrics.warmup_s, .metrics.warmup_auto.steady]]' <<<"$SXRUNS")"
check "stop rule: the rounds it needed, whole, every run succeeded" json_true \
        "length == 2 * $(jq .rounds <<<"$SEQ") and ([.[] | [.cell, .iteration]] | unique | length) == length and all(.state == \"succeeded\")" "$SXRUNS"
# warmup_max_s counts from the schedule's start, as metrics.warmup_s does: a run that reached it
# warmed for all of it (a bound counted from the injector's spawn gave 7.4-9.3 s of a 10 s one);
# one found steady ended before it, give or take the loop's turn between the two events.
check "every run had its own warmup \"auto\": steady within warmup_max_s, or not steady after all of it, warmup_auto saying which" json_true \
        'all(.metrics.warmup_s > 0 and (.metrics.warmup_auto.steady | type) == "boolean"
             and (if .metrics.warmup_auto.steady then .metrics.warmup_s <= 11 else .metrics.warmup_s >= 10 end)
             and (.metrics.warmup_auto.message | test("^warmup \"auto\": (steady|not steady when warmup_max_s)")))' "$SXRUNS"
check "the report's warmup per cell counts each cell's runs, steady or not" json_true \
        "[.cells[].warmup | .runs == $(jq .rounds <<<"$SEQ") and .auto.steady + .auto.not_steady == .runs] == [true, true]" "$REPORT"
finish
