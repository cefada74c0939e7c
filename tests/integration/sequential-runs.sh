#!/bin/bash
# sequential-runs.sh: iterations chosen by the data (issue 37) with real runs of slicelab-spin
# (no load: each run prints its ops_per_s): a cell at quota 0.1 against the same CPU without a
# quota decides "different" and stops before iterations.max, its queued runs dropped; an A/A
# experiment never decides "different" (at level 0.999: one chance in a thousand by design) and
# ends equivalent or undecided at iterations.max; the report's sequential section matches
# openapi.yaml and agrees with an independent recomputation of Lai's confidence sequence; a
# bundle of a stopped experiment imports; bad stop rules are 400s naming the field.
. "$SLICELAB_SRC/tests/lib.sh"

SPIN="$BUILD/contrib/workloads/slicelab-spin"
CLIENT="$BUILD/client/slicelab"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
# Two runs at once where their CPUs are apart: a round's runs may run in parallel, and the rule
# still decides between whole rounds only.
daemon_start --cgroup-root "slicelab-q$$" --max-parallel 2 || { not_ok "daemon starts"; finish; exit 1; }
# spin NAME [definition options]: slicelab-spin for a second on one thread.
spin() { definition --name "$1" "${@:2}" -- "$SPIN" --threads 1 --seconds 1; }

# --- bad stop rules ---------------------------------------------------------------------------
TWO='"cells":[{"name":"a","cpus":"1"},{"name":"b","cpus":"1"}]'
STOP='"stop":{"metrics":["ops_per_s"]}'
refused() { # NAME FIELD JSON-MEMBERS
        post_experiment "$(spin bad --merge "{$3}")"
        check_eq "$1: a 400 naming $2" "400 $2" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
}
refused "iterations.min below 2" iterations.min "\"iterations\":{\"min\":1,\"max\":4},$TWO,$STOP"
refused "iterations.min above max" iterations.min "\"iterations\":{\"min\":5,\"max\":4},$TWO,$STOP"
refused "iterations.max missing" iterations.max "\"iterations\":{\"min\":2},$TWO,$STOP"
refused "an unknown member of iterations" iterations.step "\"iterations\":{\"min\":2,\"max\":4,\"step\":1},$TWO,$STOP"
refused "iterations {min, max} without stop" stop "\"iterations\":{\"min\":2,\"max\":4},$TWO"
refused "stop with a fixed count" stop "\"iterations\":4,$TWO,$STOP"
refused "a metric stop cannot compare" "stop.metrics[0]" "\"iterations\":{\"min\":2,\"max\":4},$TWO,\"stop\":{\"metrics\":[\"errors\"]}"
refused "a metric named twice" "stop.metrics[1]" "\"iterations\":{\"min\":2,\"max\":4},$TWO,\"stop\":{\"metrics\":[\"ops_per_s\",\"ops_per_s\"]}"
refused "no metrics" stop.metrics "\"iterations\":{\"min\":2,\"max\":4},$TWO,\"stop\":{\"metrics\":[]}"
refused "a baseline that is not a cell" stop.baseline "\"iterations\":{\"min\":2,\"max\":4},$TWO,\"stop\":{\"baseline\":\"zz\",\"metrics\":[\"ops_per_s\"]}"
refused "a level out of range" stop.level "\"iterations\":{\"min\":2,\"max\":4},$TWO,\"stop\":{\"level\":1,\"metrics\":[\"ops_per_s\"]}"
refused "order sequential" order "\"iterations\":{\"min\":2,\"max\":4},\"order\":\"sequential\",$TWO,$STOP"
refused "one cell" stop "\"iterations\":{\"min\":2,\"max\":4},\"cells\":[{\"name\":\"a\"}],$STOP"
check_eq "nothing refused was stored" 0 "$(curl -s "$DAEMON_URL/v1/experiments" | jq '.experiments | length')"

# --- A/B: a quota of a tenth of a CPU ---------------------------------------------------------------
# A tenth, not a half: on a busy machine a spin shares its CPU with other work and a quota of
# half a CPU did not bind (ratio 1.02 with load average 8); a tenth binds unless the machine
# leaves the cell less than that.
post_experiment "$(spin ab --cell full:1 --cell tenth:1:0.1 --merge '{"iterations":{"min":3,"max":8},
  "stop":{"metrics":["ops_per_s"]},"checks":[{"metric":"ops_per_s","cell":"tenth","ratio_to":"full","max":0.9}]}')"
check_eq "a definition with iterations {min, max} and stop is accepted" 201 "$HTTP_STATUS"
check_schema "its answer" createExperiment 201
check_eq "its answer says the cost up front: 6 to 16 runs, their length the SUT's (no load)" \
        '{"runs_least":6,"runs_most":16,"run_phases_s":null,"least_s":null,"most_s":null}' "$(jq -c .cost <<<"$BODY")"
AB=$EXP_ID
check_eq "its canonical definition keeps the rule, defaults filled" \
        '{"iterations":{"min":3,"max":8},"stop":{"baseline":"full","metrics":["ops_per_s"],"difference_pct":3,"level":0.95}}' \
        "$(curl -s "$DAEMON_URL/v1/experiments/$AB" | jq -c '.definition | {iterations, stop}')"
wait_for 300 experiment_finished "$AB" || not_finished "$AB"
sequential_of "$AB"
check_schema "a report with a sequential section" getExperimentReport 200
AB_REPORT=$BODY
check_eq "A/B: decided" decided "$(jq -r .state <<<"$SEQ")"
check_eq "A/B: a tenth of a CPU is different from a whole one" different "$(jq -r '.comparisons[0].decision' <<<"$SEQ")"
check "A/B: slower: its interval lies below 1" json_true '.comparisons[0] | .interval.high < 1 and .ratio < 1' "$SEQ"
ROUNDS=$(jq -r .rounds <<<"$SEQ")
# iterations.min (3) on a quiet machine; a round or two later when other work makes the runs noisy
check "A/B: decided at the round it stopped, before max (8): round $ROUNDS" json_true \
        '.comparisons[0].round == .rounds and .rounds < .max_rounds' "$SEQ"
api GET "/v1/experiments/$AB/runs"
check_eq "A/B: the runs of the rounds it needed, all succeeded; the rest dropped, never run" \
        "$((2 * ROUNDS)) succeeded" "$(jq -r '"\(.runs | length) \([.runs[].state] | unique | join(","))"' <<<"$BODY")"
check_eq "A/B: the experiment succeeded" succeeded "$(curl -s "$DAEMON_URL/v1/experiments/$AB" | jq -r .status)"
check_eq "A/B: the experiment's own answer carries the same section" "$(jq -c '.sequential' <<<"$AB_REPORT")" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$AB" | jq -c .sequential)"
out=$("$CLIENT" --url "$DAEMON_URL" wait "$AB" 2>&1)
echo "$out" | sed 's/^/# wait: /'
check_match "A/B: slicelab wait says where the stop rule stands and each comparison's decision" \
        "stop rule: decided after $ROUNDS of at most 8 rounds.*tenth vs full ops_per_s: different at round $ROUNDS, ratio 0\.[0-9]+ \[0\.[0-9]+-0\.[0-9]+\]" \
        "$(tr '\n' ' ' <<<"$out")"
check_match "A/B: so does slicelab report" "stop rule: decided after $ROUNDS" "$("$CLIENT" --url "$DAEMON_URL" report "$AB" 2>&1)"

check_eq "A/B: a check on the ratio the rule decided is checked on its sequence, and passes" "sequence_interval true" \
        "$(jq -r '.verdict.checks[0] | "\(.basis) \(.passed)"' <<<"$AB_REPORT")"
check_match "A/B: the difference finding decides with the stop rule's sequence, as the report does" \
        "operations per second.*confidence sequence of the stop rule, shared by 1 comparison; different at round $ROUNDS" \
        "$(jq -r '.findings[] | select(.kind == "difference") | .claim' <<<"$AB_REPORT")"

# Lai's confidence sequence recomputed here from the runs' ops_per_s (sequential.h's formula,
# written again in jq): the interval the report gives after the last round, before intersecting.
ops=$(for id in $(jq -r '.runs[].id' <<<"$BODY"); do curl -s "$DAEMON_URL/v1/runs/$id"; done |
        jq -s -c '[group_by(.iteration)[] | (map({(.cell): .metrics.ops_per_s}) | add)] | map((.tenth | log) - (.full | log))')
echo "# log ratios by round: $ops"
indep=$(jq -c --argjson alpha 0.05 '
        length as $n | (add / $n) as $m | (map(pow(. - $m; 2)) | add) as $S |
        (($n + 0.1) * (1 - pow($alpha; 2 / $n) * pow(0.1 / ($n + 0.1); 1 / $n))) as $K |
        if $K >= $n then null else (($K * $S) / ($n * ($n - $K)) | sqrt) as $h |
        {ratio: ($m | exp), low: ($m - $h | exp), high: ($m + $h | exp)} end' <<<"$ops")
echo "# recomputed after round $ROUNDS: $indep"
check "A/B: the report's ratio is the recomputed one, its interval within the last round's (intersected)" json_true \
        "(.comparisons[0].ratio - $(jq .ratio <<<"$indep") | fabs) < 1e-9 and
         .comparisons[0].interval.low >= $(jq .low <<<"$indep") - 1e-9 and .comparisons[0].interval.high <= $(jq .high <<<"$indep") + 1e-9" "$SEQ"

# --- A/A ----------------------------------------------------------------------------------------
# At level 0.999 the sequence is bounded from round 5: max 8 leaves it rounds to decide in.
post_experiment "$(spin aa --cell a:1 --cell a-again:1 --merge '{"iterations":{"min":2,"max":8},
  "stop":{"metrics":["ops_per_s"],"difference_pct":10,"level":0.999},
  "checks":[{"metric":"ops_per_s","cell":"a-again","ratio_to":"a","min":0.5,"max":2}]}')"
AA=$EXP_ID
wait_for 300 experiment_finished "$AA" || not_finished "$AA"
sequential_of "$AA"
check_match "A/A: never different (equivalent, or undecided at iterations.max)" "^(equivalent|undecided)$" \
        "$(jq -r '.comparisons[0].decision' <<<"$SEQ")"
check "A/A: undecided only with every round run" json_true \
        'if .comparisons[0].decision == "undecided" then .rounds == 8 and .state == "undecided: iterations.max reached" else .state == "decided" end' "$SEQ"
if [ "$(jq -r '.comparisons[0].decision' <<<"$SEQ")" = undecided ]; then
        check_match "A/A undecided: a check on that ratio fails as undecided, however wide its bounds" \
                "^false undecided: the stop rule's confidence sequence did not decide" "$(jq -r '.verdict.checks[0] | "\(.passed) \(.note)"' <<<"$BODY")"
        check_match "A/A undecided: the noise finding says iterations.max was reached, not to re-run" \
                "the stop rule left cell a-again's comparison with a undecided after 8 of at most 8 rounds.*iterations.max was reached" \
                "$(jq -r '.findings[] | select(.kind == "noise") | .claim' <<<"$BODY")"
fi
check_eq "A/A: its runs are its rounds'" "$(( 2 * $(jq .rounds <<<"$SEQ") ))" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$AA/runs" | jq '.runs | length')"

# --- a restart between rounds, and a cancel -------------------------------------------------------
# The rule is read from the store at the head of the queue: a daemon stopped after the first
# round's runs goes on where it was, and no run is lost (each is listed once, ended) or repeated.
run_ended() { [ "$(curl -s "$DAEMON_URL/v1/experiments/$1/runs" | jq -r ".runs[$2].state")" = succeeded ]; }
post_experiment "$(spin restart --cell full:1 --cell tenth:1:0.1 \
        --merge '{"iterations":{"min":3,"max":6},"stop":{"metrics":["ops_per_s"]}}')"
RS=$EXP_ID
wait_for 120 run_ended "$RS" 1 || not_ok "the first round of the restart experiment ended"
before=$(curl -s "$DAEMON_URL/v1/experiments/$RS/runs" | jq -c '[.runs[] | select(.state != "queued") | .id]')
daemon_stop
daemon_start --cgroup-root "slicelab-q$$" --max-parallel 2 || { not_ok "the daemon restarts"; finish; exit 1; }
wait_for 300 experiment_finished "$RS" || not_finished "$RS"
api GET "/v1/experiments/$RS/runs"
echo "# after the restart: $(jq -c '[.runs[] | "\(.cell)#\(.iteration) \(.state)"]' <<<"$BODY")"
check "a run that began before the restart is still listed, once" json_true \
        "[.runs[].id] as \$ids | $before | all(. as \$b | \$ids | index(\$b) != null) and (\$ids | length) == (\$ids | unique | length)" "$BODY"
check "every round is whole: each cell once per round, none queued" json_true \
        '[.runs[] | select(.state == "queued")] == [] and ([.runs[] | [.cell, .iteration]] | length) == ([.runs[] | [.cell, .iteration]] | unique | length) and (.runs | length) % 2 == 0' "$BODY"
interrupted=$(jq '[.runs[] | select(.state == "interrupted")] | length' <<<"$BODY")
sequential_of "$RS"
check "after the restart the rule went on: decided, or at iterations.max, with a pair per whole round ($interrupted interrupted)" json_true \
        "(.state == \"decided\" or .state == \"undecided: iterations.max reached\") and .comparisons[0].pairs == .rounds - $interrupted and .comparisons[0].decision != \"equivalent\"" "$SEQ"

post_experiment "$(spin cancel --cell a:1 --cell a-again:1 \
        --merge '{"iterations":{"min":3,"max":20},"stop":{"metrics":["ops_per_s"],"difference_pct":0.1}}')"
CX=$EXP_ID
wait_for 120 run_ended "$CX" 1 || not_ok "the first round of the cancelled experiment ended"
api_auth DELETE "/v1/experiments/$CX"
check_eq "a stop rule's experiment is cancelled between rounds as any other" 202 "$HTTP_STATUS"
wait_for 120 experiment_finished "$CX" || not_finished "$CX"
sequential_of "$CX"
check_eq "a cancel between rounds: cancelled, and the rule says it ended undecided before iterations.max" \
        "cancelled undecided: ended before iterations.max" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$CX" | jq -r .status) $(jq -r .state <<<"$SEQ")"

# --- a round's runs in parallel ---------------------------------------------------------------------
post_experiment "$(spin parallel --cell cpu0:0 --cell cpu1-tenth:1:0.1 \
        --merge '{"iterations":{"min":3,"max":8},"stop":{"metrics":["ops_per_s"]}}')"
PX=$EXP_ID
wait_for 300 experiment_finished "$PX" || not_finished "$PX"
sequential_of "$PX"
api GET "/v1/experiments/$PX/runs"
check "in parallel: whole rounds only, each cell once per round up to where it stopped" json_true \
        "(.runs | length) == 2 * $(jq .rounds <<<"$SEQ") and ([.runs[] | select(.state == \"queued\")] | length) == 0 and
         ([.runs[] | [.cell, .iteration]] | unique | length) == (.runs | length)" "$BODY"
check_eq "in parallel: decided" "decided different" "$(jq -r '"\(.state) \(.comparisons[0].decision)"' <<<"$SEQ")"

# --- a fixed count: no sequential section ----------------------------------------------------------
post_experiment "$(spin fixed --iterations 1 --cell a:1)"
FIXED=$EXP_ID
wait_for 120 experiment_finished "$FIXED" || not_finished "$FIXED"
check_eq "a fixed count has no sequential section" null "$(curl -s "$DAEMON_URL/v1/experiments/$FIXED/report" | jq -c .sequential)"

# --- a stopped experiment travels as a bundle --------------------------------------------------------
curl -s -o "$TEST_TMP/ab.slbundle" "$DAEMON_URL/v1/experiments/$AB/bundle"
daemon_stop
DAEMON_STATE=$TEST_TMP/results
daemon_start --results-only --cgroup-root "slicelab-q$$-unused" || { not_ok "a results-only daemon starts"; finish; exit 1; }
api_auth POST /v1/imports -H 'Content-Type: application/vnd.slicelab.bundle' --data-binary "@$TEST_TMP/ab.slbundle"
check_eq "a stopped experiment's bundle imports (whole rounds, fewer than max)" 201 "$HTTP_STATUS"
check_eq "and its report decides as the daemon that ran it did" \
        "$(jq -c '.sequential | del(.method)' <<<"$AB_REPORT")" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$AB/report" | jq -c '.sequential | del(.method)')"
finish
