#!/bin/bash
# capacity.sh: load.mode "capacity" with real runs of slicelab-sut (cpu_us=500) on one CPU, free
# and under a 0.5 quota, SLA p99 <= 20 ms from scheduled, beside each cell's closed-loop maximum
# (mode max) measured here: the step at max_rps served its rate (throughput within 5%) and met the
# SLA, one within 2 x precision above it missed, and max_rps is at most that maximum x 1.25 (the
# two runs are minutes apart on a shared machine: seen 1.06 with another test running beside
# them, so the margin is for the machine, and the bound for a search that believed a rate the
# server cannot serve); the quota cell's capacity is below the free cell's; the steps are listed
# with their rates and verdicts (at most 8), each with its own timeline (?step=N); the report
# aggregates capacity per cell. Then iterations chosen by the data on capacity.max_rps (issue 37):
# a stop rule decides a tenth of a CPU different after two rounds of searches, its ratio the runs'
# recomputed, the third round dropped; on latency it is a 400 (a capacity run's latency is its last
# step's). Then the stop conditions: rate_max met, rate_min missed, and the
# SUT dying mid-search. Assertions are relative to what this test measured: the machine is shared.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-cap$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)
URL="http://127.0.0.1:$PORT/work?cpu_us=500"
# sut NAME [definition options]: slicelab-sut.jar on $PORT, ready when it answers /health.
sut() {
        definition --name "$1" --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" "${@:2}" \
                -- java -Xmx128m -XX:+UseSerialGC -jar "$JAR" --port "$PORT"
}
CELLS=(--cell free:1 --cell quota:1:0.5)
SLA='"sla":[{"percentile":99,"max_ms":20}]'
PRECISION=0.05

runs_of() { curl -s "$DAEMON_URL/v1/experiments/$1/runs" | jq -r '.runs[].id'; }
metric() { run_field "$1" "$2"; }

# --- the closed-loop maximum and the capacity of each cell ------------------------------------
post_experiment "$(sut "closed-loop max" "${CELLS[@]}" --merge '{"order":"sequential"}' \
        --load "{\"target\":\"$URL\",\"mode\":\"max\",\"connections\":16,\"warmup_s\":3,\"measure_s\":3,\"cpus\":\"0\"}")"
MAXEXP=$EXP_ID
post_experiment "$(sut "capacity p99 20ms" "${CELLS[@]}" \
        --load "{\"target\":\"$URL\",\"mode\":\"capacity\",$SLA,\"rate_min\":20,\"rate_max\":2000,\"warmup_s\":5,
                 \"step\":{\"warmup_s\":1,\"measure_s\":2},\"precision\":$PRECISION,\"connections\":64,\"timeout_ms\":2000,\"cpus\":\"0\"}" \
        --merge '{"order":"sequential","checks":[{"metric":"capacity.max_rps","cell":"quota","ratio_to":"free","max":1}]}')"
check_eq "a capacity experiment is accepted" 201 "$HTTP_STATUS"
CAPEXP=$EXP_ID
check_eq "its definition is stored with the search's fields" \
  '{"mode":"capacity","sla":[{"percentile":99,"max_ms":20}],"rate_min":20,"rate_max":2000,"warmup_s":5,"step":{"warmup_s":1,"measure_s":2},"precision":0.05}' \
  "$(curl -s "$DAEMON_URL/v1/experiments/$CAPEXP" | jq -c '.definition.load | {mode, sla, rate_min, rate_max, warmup_s, step, precision}')"
wait_for 900 experiment_finished "$MAXEXP" || not_finished "$MAXEXP"
wait_for 900 experiment_finished "$CAPEXP" || not_finished "$CAPEXP"
read -r MAXFREE MAXQUOTA <<<"$(for r in $(runs_of "$MAXEXP"); do metric "$r" .metrics.throughput_rps; done | tr '\n' ' ')"
read -r CAPFREE_RUN CAPQUOTA_RUN <<<"$(runs_of "$CAPEXP" | tr '\n' ' ')"
echo "# closed-loop maximum: free $MAXFREE req/s, quota $MAXQUOTA req/s"
check_eq "both capacity runs succeed" "succeeded succeeded" "$(run_outcome "$CAPFREE_RUN") $(run_outcome "$CAPQUOTA_RUN")"

for cell in free quota; do
        if [ $cell = free ]; then RUN=$CAPFREE_RUN MAX=$MAXFREE; else RUN=$CAPQUOTA_RUN MAX=$MAXQUOTA; fi
        api GET "/v1/runs/$RUN"
        check_schema "$cell: the run" getRun 200
        CAP=$(jq -c .metrics.capacity <<<"$BODY")
        echo "# $cell: capacity $CAP"
        check_eq "$cell: the search found the capacity" found "$(jq -r .outcome <<<"$CAP")"
        check "$cell: max_rps is at most the closed-loop maximum x 1.25 ($MAX req/s)" \
                json_true ".max_rps > 0 and .max_rps <= $MAX * 1.25" "$CAP"
        check "$cell: per_sla has the one SLA at max_rps, critical_rps its geometric mean" \
                json_true '.per_sla == [{"percentile":99,"max_ms":20,"rps":.max_rps}] and ((.critical_rps - .max_rps) | fabs) < 1e-9' "$CAP"
        api GET "/v1/runs/$RUN/steps"
        check_schema "$cell: the steps" getRunSteps 200
        STEPS=$BODY
        echo "# $cell: steps $(jq -c '[.steps[] | [.rate, .sla[0].latency_ms, .verdict]]' <<<"$STEPS")"
        check "$cell: at most 8 steps, as many as the metrics say" \
                json_true "(.steps | length) <= 8 and (.steps | length) == $(jq .steps <<<"$CAP")" "$STEPS"
        check "$cell: every step has its rate, its p99 from scheduled and its verdict" \
                json_true '.steps | all(.rate > 0 and (.sla[0].latency_ms | type) == "number" and (.verdict == "met" or .verdict == "missed") and .met == (.verdict == "met"))' "$STEPS"
        check "$cell: the step at max_rps met the SLA" \
                json_true "[.steps[] | select(.rate == $(jq .max_rps <<<"$CAP"))] | length > 0 and all(.met and .sla[0].latency_ms <= 20)" "$STEPS"
        check "$cell: the step at max_rps served its rate (throughput within 5%)" \
                json_true "[.steps[] | select(.rate == $(jq .max_rps <<<"$CAP"))] | length > 0 and all(.throughput_rps >= .rate * 0.95)" "$STEPS"
        check "$cell: a step within 2 x precision above max_rps missed it" \
                json_true "[.steps[] | select(.rate > $(jq .max_rps <<<"$CAP") and .rate <= $(jq .max_rps <<<"$CAP") * (1 + 2 * $PRECISION) and (.met | not))] | length > 0" "$STEPS"
        api GET "/v1/runs/$RUN/timeline?step=0&limit=100000"
        check_schema "$cell: step 0's timeline" getRunTimeline 200
        check "$cell: step 0's timeline holds its requests (rate x 2 s)" \
                json_true ".count >= $(jq '.steps[0].rate' <<<"$STEPS") * 2 * 0.9" "$BODY"
        api GET "/v1/runs/$RUN/timeline?step=9"
        check_eq "$cell: ?step past the search's bound is a 400" "400 step" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
done
CAPS="[$(metric "$CAPFREE_RUN" .metrics.capacity.max_rps), $(metric "$CAPQUOTA_RUN" .metrics.capacity.max_rps)]"
check "the quota cell's capacity is below the free cell's $CAPS" json_true '.[0] != null and .[1] != null and .[1] < .[0]' "$CAPS"
api GET "/v1/experiments/$CAPEXP/report"
check "the report aggregates capacity.max_rps, critical_rps and each SLA's rate per cell" \
        json_true '[.cells[].metrics | has("capacity.max_rps") and has("capacity.critical_rps") and has("capacity.per_sla.p99_20ms")] == [true, true]' "$BODY"
check_schema "the capacity report" getExperimentReport 200
check_eq "the check 'quota's capacity is below free's' passes" true "$(jq -r .verdict.passed <<<"$BODY")"

# --- the stop rule on capacity.max_rps (issue 37) --------------------------------------------
# Each round runs a whole search per cell, and the rule compares the cells' max_rps as it does any
# metric. A tenth of a CPU against a whole one, under an SLA loose enough (p99 <= 500 ms) that the
# capacity is what the CPU serves rather than how the machine's other work delays it (at 50 ms a
# busy machine put the free cell's at 75 to 760 req/s): about a tenth. Coarse searches (precision
# 0.5: 5 steps at most) and level 0.5, the least a rule takes and the one whose sequence is bounded
# from 2 pairs (at 0.95 from 3): two rounds decide, the third is dropped. A run's search can end
# below rate_min (then its max_rps is null): its round is left out, as the rule leaves out a round
# without a value on either side.
# A capacity run's throughput and latency are its last step's, at whichever rate the search ended.
post_experiment "$(sut "stop on the last step" "${CELLS[@]}" \
        --load "{\"target\":\"$URL\",\"mode\":\"capacity\",$SLA,\"rate_min\":20,\"rate_max\":4000,\"cpus\":\"0\"}" \
        --merge '{"iterations":{"min":2,"max":3},"stop":{"metrics":["latency_us.scheduled.p99"]}}')"
check_eq "a stop rule on latency in capacity mode: a 400 naming the metric, pointing to capacity.max_rps" \
        "400 stop.metrics[0] true" "$HTTP_STATUS $(jq -r '"\(.error.field) \(.error.message | test("compare capacity.max_rps"))"' <<<"$BODY")"
post_experiment "$(sut "capacity under a stop rule" --cell free:1 --cell tenth:1:0.1 \
        --load "{\"target\":\"$URL\",\"mode\":\"capacity\",\"sla\":[{\"percentile\":99,\"max_ms\":500}],\"rate_min\":20,\"rate_max\":4000,
                 \"warmup_s\":1,\"step\":{\"warmup_s\":1,\"measure_s\":1},\"precision\":0.5,\"connections\":64,\"timeout_ms\":2000,\"cpus\":\"0\"}" \
        --merge '{"iterations":{"min":2,"max":3},"stop":{"metrics":["capacity.max_rps"],"level":0.5}}')"
check_eq "capacity with iterations {min, max} and a stop rule on capacity.max_rps is accepted, its cost 4 to 6 runs" \
        "201 4 6" "$HTTP_STATUS $(jq -r '"\(.cost.runs_least) \(.cost.runs_most)"' <<<"$BODY")"
STOPEXP=$EXP_ID
wait_for 900 experiment_finished "$STOPEXP" || not_finished "$STOPEXP"
sequential_of "$STOPEXP"
check_schema "the capacity report with a sequential section" getExperimentReport 200
check_eq "stop rule: decided, the tenth's capacity.max_rps different from the free cell's" "decided tenth free capacity.max_rps different" \
        "$(sequential_decisions)"
check "stop rule: lower, its interval below 1, decided at the round it stopped" json_true \
        '.rounds as $n | .comparisons[0] | .ratio < 1 and .interval.high < 1 and .round == $n' "$SEQ"
STOPRUNS=$(experiment_runs "$STOPEXP")
echo "# stop rule's runs: $(jq -c '[.[] | [.cell, .iteration, .state, .metrics.capacity.outcome, .metrics.capacity.max_rps, .metrics.capacity.steps]]' <<<"$STOPRUNS")"
check "stop rule: the rounds it ran, each cell once per round, every run a search with its outcome and steps" json_true \
        "length == 2 * $(jq .rounds <<<"$SEQ") and ([.[] | [.cell, .iteration]] | unique | length) == length and
         all(.state == \"succeeded\" and (.metrics.capacity.outcome | IN(\"found\", \"rate_max_met\", \"rate_min_missed\"))
             and .metrics.capacity.steps >= 1)" "$STOPRUNS"
# The ratio and pairs recomputed: the geometric mean of the tenth/free ratios of max_rps over the
# rounds where both searches found one.
want=$(jq -c '[group_by(.iteration)[] | map({(.cell): .metrics.capacity.max_rps}) | add | select(.tenth != null and .free != null)
        | (.tenth / .free | log)] | {pairs: length, ratio: (add / length | exp)}' <<<"$STOPRUNS")
check "stop rule: its pairs and ratio are the runs' max_rps recomputed ($want)" json_true \
        ".comparisons[0] | .pairs == $(jq .pairs <<<"$want") and (.ratio - $(jq .ratio <<<"$want") | fabs) < 1e-9" "$SEQ"
no_slices_of_runs() { local r; for r in $(jq -r '.[].id' <<<"$1"); do no_slices_of "$r" || return 1; done; }
check "stop rule: no run left a slice" no_slices_of_runs "$STOPRUNS"

# --- stop conditions --------------------------------------------------------------------------
# capacity EXPERIMENT-NAME SLA: one free cell, 20 to 60 req/s, coarse precision (3 steps at most).
small_search() {
        post_experiment "$(sut "$1" --cell free:1 \
                --load "{\"target\":\"$URL\",\"mode\":\"capacity\",\"sla\":$2,\"rate_min\":20,\"rate_max\":60,
                         \"step\":{\"warmup_s\":1,\"measure_s\":2},\"precision\":0.5,\"connections\":8,\"cpus\":\"0\"}")"
        RUN=$(first_run "$EXP_ID")
}
small_search "rate_max met" '[{"percentile":99,"max_ms":3000}]'
wait_for 300 run_finished "$RUN"
api GET "/v1/runs/$RUN"
check_eq "rate_max met every SLA: the run succeeds, outcome rate_max_met, max_rps = rate_max" "succeeded rate_max_met 60" \
        "$(jq -r '"\(.state) \(.metrics.capacity.outcome) \(.metrics.capacity.max_rps)"' <<<"$BODY")"
check_match "and says so" "even rate_max \(60 req/s\) met every SLA" "$(jq -r '.warnings | join(" | ")' <<<"$BODY")"
check "rate_max itself was a step, and met" json_true '[.steps[] | select(.rate == 60 and .met)] | length == 1' "$(curl -s "$DAEMON_URL/v1/runs/$RUN/steps")"

small_search "rate_min missed" '[{"percentile":50,"max_ms":0.1}]'
wait_for 300 run_finished "$RUN"
api GET "/v1/runs/$RUN"
check_eq "rate_min met none: the run succeeds, outcome rate_min_missed, max_rps null" "succeeded rate_min_missed null null" \
        "$(jq -r '"\(.state) \(.metrics.capacity.outcome) \(.metrics.capacity.max_rps) \(.metrics.capacity.critical_rps)"' <<<"$BODY")"
check_match "and says so" "even rate_min \(20 req/s\) missed the SLAs" "$(jq -r '.warnings | join(" | ")' <<<"$BODY")"
check "every step missed, rate_min among them" json_true '(.steps | all(.met | not)) and ([.steps[] | select(.rate == 20)] | length == 1)' "$(curl -s "$DAEMON_URL/v1/runs/$RUN/steps")"

# The SUT dies mid-search: once the first step is stored, its JVM is killed.
small_search "sut dies" '[{"percentile":99,"max_ms":3000}]'
has_steps() { json_true '.steps | length >= 1' "$(curl -s "$DAEMON_URL/v1/runs/$1/steps")"; }
wait_for 300 has_steps "$RUN"
slice=$(run_field "$RUN" .slices.sut)
for f in "/sys/fs/cgroup/cpu$slice/cgroup.procs" "/sys/fs/cgroup$slice/cgroup.procs"; do
        [ -r "$f" ] && for p in $(cat "$f"); do kill -9 "$p" 2>/dev/null; done
done
wait_for 120 run_finished "$RUN"
api GET "/v1/runs/$RUN"
check_eq "the SUT died mid-search: the run fails (sut_exit)" "failed sut_exit" "$(jq -r '"\(.state) \(.reason)"' <<<"$BODY")"
check_match "and says the search stopped, at which step" "during capacity step [0-9]+ at [0-9.]+ req/s: the search stopped \(sut_died\)" "$(jq -r .message <<<"$BODY")"
check "the steps judged before stay visible" has_steps "$RUN"
check "the dead run left no slice" no_slices_of "$RUN"
finish
