#!/bin/bash
# series.sh: GET /v1/series over real experiments. First with a control workload that prints its
# figure (ops_per_s 100 for four experiments, then 150): the experiments in time order with the
# report's mean, one change point between the 4th and the 5th, its shift near +50%, and why naming
# the definition field that changed (sut.command); a flat series has none; bad parameters are 400s
# naming the parameter. Then slicelab-sut.jar labelled as one app, four experiments at cpu_us=100
# and four at cpu_us=10000: the change point in the SUT's CPU time during the measure phase is
# between them, worse (up), and its why names load.target. (CPU time, not latency, and a large
# step: on this shared 2-core machine a JVM a second old answered cpu_us=100 in 4 to 8 ms, and
# its p50 moved by more than 400 us from one experiment to the next.) alpha and min_segment are set low in the query: eight experiments cannot reach
# the default significance (0.01 needs p <= 1/100; 4 of 8 apart is 1 of 35 orders).
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-s$$" || { not_ok "daemon starts"; finish; exit 1; }
APP="echo-$$"

# echo_experiment OPS APP: one cell, two iterations of a command printing ops_per_s.
echo_experiment() {
        post_experiment "$(definition --name "series-$1" --iterations 2 --cell B --merge "{\"labels\":{\"app\":\"$2\"}}" \
                -- /bin/echo "{\"ops_per_s\": $1}")"
        [ "$HTTP_STATUS" = 201 ] || not_ok "experiment $1 accepted" "$BODY"
        IDS+=("$EXP_ID")
}

IDS=()
for ops in 100 101 99 100 150 151 149 150; do echo_experiment "$ops" "$APP"; done
STEP=("${IDS[@]}")
IDS=()
for ops in 100 100 101 100 99 100 101 100; do echo_experiment "$ops" "flat-$$"; done
FLAT=("${IDS[@]}")
IDS=()
for ops in 150 151 149 150 100 101 99 100; do echo_experiment "$ops" "drop-$$"; done
DROP=("${IDS[@]}")
for id in "${STEP[@]}" "${FLAT[@]}" "${DROP[@]}"; do
        wait_for 120 experiment_finished "$id" || not_finished "$id"
done

api GET "/v1/series?label=app=$APP&cell=B&metric=ops_per_s&alpha=0.1&min_segment=2"
check_eq "a series answers 200" 200 "$HTTP_STATUS"
check_schema "a series" getSeries 200
check_eq "the experiments with the label, in time order" "${STEP[*]}" "$(jq -r '[.experiments[].id] | join(" ")' <<<"$BODY")"
check_eq "each with the report's mean of its cell's metric" "100 101 99 100 150 151 149 150" "$(jq -r '[.experiments[].value] | join(" ")' <<<"$BODY")"
check "and its 95% interval around it" json_true 'all(.experiments[]; .ci95.low <= .value and .value <= .ci95.high)' "$BODY"
check_eq "one change point, between the 4th and the 5th experiment" "1 3 4 ${STEP[3]} ${STEP[4]}" \
  "$(jq -r '"\(.change_points | length) \(.change_points[0].before.index) \(.change_points[0].after.index) \(.change_points[0].before.experiment_id) \(.change_points[0].after.experiment_id)"' <<<"$BODY")"
check "its shift is about +50%, inside its interval" json_true '.change_points[0] | (.shift - 0.5 | fabs) < 0.01 and .shift_ci95.low <= .shift and .shift <= .shift_ci95.high and .shift_ci95.low > 0' "$BODY"
check "it is significant at the alpha asked" json_true '.change_points[0].p_value <= 0.1 and .parameters.alpha == 0.1 and .parameters.min_segment == 2' "$BODY"
check_eq "why names the definition field that changed" "sut.command" \
  "$(jq -r '[.change_points[0].why.differences[] | select(.source == "definition") | .field] | join(" ")' <<<"$BODY")"
check_eq "a throughput gets worse when lower" lower "$(jq -r .worse_when <<<"$BODY")"
api GET "/v1/series?label=app=$APP&cell=B&metric=ops_per_s"
check_eq "at the defaults (alpha 0.01, min segment 4) eight experiments are too few for a change" "0 0.01 4" \
  "$(jq -r '"\(.change_points | length) \(.parameters.alpha) \(.parameters.min_segment)"' <<<"$BODY")"
api GET "/v1/series?label=app=flat-$$&cell=B&metric=ops_per_s&alpha=0.1&min_segment=2"
check_eq "a flat series has no change point" "200 8 0" "$(jq -r '"\(.experiments | length) \(.change_points | length)"' <<<"$BODY" | sed "s/^/$HTTP_STATUS /")"
api GET "/v1/series?label=app=$APP&cell=B&metric=ops_per_s&limit=3"
check_eq "limit keeps the newest, and says so" "true ${STEP[5]} ${STEP[6]} ${STEP[7]}" "$(jq -r '"\(.truncated) \([.experiments[].id] | join(" "))"' <<<"$BODY")"

bad() { # NAME QUERY FIELD
        api GET "/v1/series?$2"
        check_eq "$1 is a 400 naming $3" "400 $3" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
}
bad "a missing cell" "label=app=$APP&metric=ops_per_s" cell
bad "a cell no experiment has" "label=app=$APP&cell=Z&metric=ops_per_s" cell
bad "a missing metric" "label=app=$APP&cell=B" metric
bad "a malformed metric path" "label=app=$APP&cell=B&metric=latency_us..p99" metric
bad "a metric no run has" "label=app=$APP&cell=B&metric=latency_us.scheduled.p99" metric
bad "alpha 0" "label=app=$APP&cell=B&metric=ops_per_s&alpha=0" alpha
bad "alpha not a number" "label=app=$APP&cell=B&metric=ops_per_s&alpha=x" alpha
bad "min_segment 1" "label=app=$APP&cell=B&metric=ops_per_s&min_segment=1" min_segment
bad "limit 5001" "label=app=$APP&cell=B&metric=ops_per_s&limit=5001" limit
bad "a malformed label" "label=app&cell=B&metric=ops_per_s" label
api GET "/v1/series?cell=B&metric=ops_per_s&x=1"
check_eq "an unknown parameter is a 400" 400 "$HTTP_STATUS"

# --- the client: slicelab series, exit 3 on a regression beyond --threshold ------------------
CLIENT="$BUILD/client/slicelab"
client_series() { # LABEL ARGS...: the output in OUT, the exit status in RC
        local label=$1
        shift
        RC=0
        OUT=$("$CLIENT" --url "$DAEMON_URL" series --label "app=$label" --cell B --metric ops_per_s \
          --alpha 0.1 --min-segment 2 "$@" 2>&1) || RC=$?
}
client_series "$APP"
check_eq "a throughput that rose is no regression: exit 0" 0 "$RC"
check_match "the client prints the change point between #3 and #4 with its shift" "change point between #3 \\(${STEP[3]}\\) and #4 \\(${STEP[4]}\\): \\+50" "$OUT"
check_match "and why: the definition field that changed" "definition field sut.command" "$OUT"
client_series "drop-$$" --threshold 10
check_eq "a throughput that fell by a third, beyond --threshold 10: exit 3" 3 "$RC"
check_match "saying so" "regression: .* -33\\.[0-9]% .* beyond --threshold 10%" "$OUT"
client_series "drop-$$" --threshold 40
check_eq "the same fall within --threshold 40: exit 0" 0 "$RC"
client_series "drop-$$" --threshold 10 --json
check_eq "--json prints the daemon's answer and keeps the exit status" "3 1" "$RC $(jq '.change_points | length' <<<"$OUT")"
client_series "flat-$$" --threshold 0
check_eq "a flat series: exit 0, no change point" "0 1" "$RC $(grep -c '^no change point' <<<"$OUT")"
RC=0; "$CLIENT" --url "$DAEMON_URL" series --label "app=$APP" --metric ops_per_s >/dev/null 2>&1 || RC=$?
check_eq "series without --cell is a usage error" 2 "$RC"
client_series "$APP" --alpha 2
check_eq "a bad --alpha is the daemon's 400 naming alpha: exit 4" "4 1" "$RC $(grep -c 'alpha' <<<"$OUT")"

# --- slicelab-sut.jar: cpu_us rises partway -------------------------------------------------
PORT=$(loopback_port)
jvm_experiment() {
        post_experiment "$(definition --name "shop-$1" --iterations 1 \
                --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
                --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=$1\",\"rate\":20,\"connections\":4,\"warmup_s\":1,\"measure_s\":2,\"cpus\":\"0\"}" \
                --cell B:1 --merge "{\"labels\":{\"app\":\"shop-$$\"}}" \
                -- java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$JAR" --port "$PORT")"
        [ "$HTTP_STATUS" = 201 ] || not_ok "experiment cpu_us=$1 accepted" "$BODY"
        IDS+=("$EXP_ID")
}
IDS=()
for us in 100 100 100 100 10000 10000 10000 10000; do jvm_experiment "$us"; done
SHOP=("${IDS[@]}")
for id in "${SHOP[@]}"; do
        wait_for 300 experiment_finished "$id" || not_finished "$id"
done
api GET "/v1/series?label=app=shop-$$&cell=B&metric=cgroup.cpu_usage_s&alpha=0.1&min_segment=2"
echo "# the SUT's CPU seconds: $(jq -r '[.experiments[].value] | join(" ")' <<<"$BODY")"
check_eq "the JVM series answers 200 with its eight experiments" "200 8" "$HTTP_STATUS $(jq -r '.experiments | length' <<<"$BODY")"
check_eq "one change point, where cpu_us rose" "1 ${SHOP[3]} ${SHOP[4]}" \
  "$(jq -r '"\(.change_points | length) \(.change_points[0].before.experiment_id) \(.change_points[0].after.experiment_id)"' <<<"$BODY")"
check "the SUT's CPU time went up (worse), and its interval says so" json_true '.worse_when == "higher" and .change_points[0].shift > 0 and .change_points[0].shift_ci95.low > 0' "$BODY"
check_eq "why names the definition field that changed: the load's target" "load.target" \
  "$(jq -r '[.change_points[0].why.differences[] | select(.source == "definition") | .field] | join(" ")' <<<"$BODY")"
check "both sides' host facts were compared" json_true '.change_points[0].why.hosts_compared' "$BODY"
check_schema "a JVM series" getSeries 200
finish
